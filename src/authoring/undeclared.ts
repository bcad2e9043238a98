/**
 * Names a script reads that nothing declares and the sandbox does not have: each at its line:column, with the
 * name most likely meant, or what to do instead when the name is a capability scripts do not have (timers, the
 * network, files, processes, modules, the environment). A name whose every use is guarded (in a `try` block whose
 * `catch` takes the ReferenceError, behind a `typeof` check, in code that cannot run) is a warning: the script runs.
 */
import { positionOf } from "./diagnostic.ts";
import { type Advice, SAID } from "./entry-point.ts";
import { foreignGlobal } from "./foreign-globals.ts";
import { type GuardReason, guardOf } from "./guards.ts";
import { closestName } from "./names.ts";
import { SANDBOX_GLOBALS } from "./sandbox-globals.ts";
import type { AnyNode, Reference, ScopeAnalysis } from "./scope.ts";

/** One undeclared name, or one missing member of `process`, before it becomes a diagnostic. */
export interface UndeclaredFinding {
	offset: number;
	message: string;
	fix: string;
	/** A guarded name: reported, and the script runs. */
	severity?: "warning";
}

const ASK_AGENT =
	'Workflow scripts cannot reach the network, files or processes: ask an agent to do it, e.g. `await agent("Read package.json and return its version")`';
// A forgotten interval would keep a script from ever settling, where a stuck script now fails at once as unsettled.
const TIMER = "There are no repeating timers in workflow scripts: loop with `await sleep(ms)`, or use `setTimeout`";
const ENV =
	"The environment is not visible to workflow scripts: read the value from `args` (`args.token`), and pass it in when the run starts (`args: { token }`)";

/** Names that mean a capability scripts do not have, and what to do instead. */
const CAPABILITIES: Readonly<Record<string, string>> = {
	setInterval: TIMER,
	setImmediate: "There is no `setImmediate` in workflow scripts: use `setTimeout(fn, 0)` or `queueMicrotask(fn)`",
	clearInterval: TIMER,
	fetch: ASK_AGENT,
	XMLHttpRequest: ASK_AGENT,
	WebSocket: ASK_AGENT,
	require: ASK_AGENT,
	module: "There are no modules in workflow scripts: give the result with `return`",
	exports: "There are no modules in workflow scripts: give the result with `return`",
	fs: ASK_AGENT,
	Buffer: ASK_AGENT,
	__dirname: "Read the working directory from `cwd`",
	__filename: "Read the working directory from `cwd`",
	window:
		"Workflow scripts run in a sandbox, not a browser: the globals are agent, parallel, pipeline, phase, log, workflow, sleep, budget, args, cwd, console",
	document: "Workflow scripts run in a sandbox, not a browser: ask an agent to read or change files",
	performance: "There is no clock in workflow scripts (it breaks resume): pass a timestamp in `args`",
	crypto: "There is no randomness in workflow scripts (it breaks resume): put an index in the prompt or label",
	SharedArrayBuffer: "The sandbox has no `SharedArrayBuffer` (see SECURITY.md): use an `ArrayBuffer`",
	Atomics: "The sandbox has no `Atomics` (see SECURITY.md): scripts run on one thread, so plain reads and writes do",
	WebAssembly: "The sandbox has no `WebAssembly`: ask an agent to run such code",
	Deno: ASK_AGENT,
	Bun: ASK_AGENT,
};

/** `process` has `cwd()` only. */
const PROCESS_MEMBERS: ReadonlySet<string> = new Set(["cwd"]);

/**
 * One finding per undeclared name, at its first use (a name misspelled ten times is one mistake). `advice` replaces
 * the explanation of particular identifiers (`module` in `module.exports = …`), said where they stand.
 */
export function findUndeclared(
	analysis: ScopeAnalysis,
	source: string,
	advice: ReadonlyMap<AnyNode, Advice> = new Map(),
): UndeclaredFinding[] {
	const findings: UndeclaredFinding[] = [];
	const uses = new Map<string, { finding: UndeclaredFinding; count: number }>();
	const guarded = new Map<string, { reference: Reference; reason: GuardReason; count: number }>();
	let candidates: string[] | undefined;
	const explainUse = (reference: Reference) => {
		candidates ??= [...SANDBOX_GLOBALS, ...analysis.declaredNames];
		const usable = candidates.filter((candidate) => !inDeclaration(reference, candidate, source));
		return explain(reference.node.name, reference.node, reference.parent, source, usable, reference.write);
	};
	for (const reference of analysis.unresolved) {
		const name: string = reference.node.name;
		if (SANDBOX_GLOBALS.has(name)) {
			if (name === "process") processMember(reference.parent, reference.node, findings);
			continue;
		}
		if (reference.typeofOperand) continue;
		const special = advice.get(reference.node);
		if (special) {
			if (special !== SAID) findings.push({ offset: reference.node.start, ...special });
			continue;
		}
		const reason = guardOf(reference.guard, name);
		if (reason) {
			const first = guarded.get(name);
			if (first) first.count++;
			else guarded.set(name, { reference, reason, count: 1 });
			continue;
		}
		const seen = uses.get(name);
		if (seen) {
			seen.count++;
			continue;
		}
		const finding = { offset: reference.node.start, ...explainUse(reference) };
		uses.set(name, { finding, count: 1 });
		findings.push(finding);
	}
	for (const { finding, count } of uses.values()) {
		if (count > 1) finding.message += ` (used ${count} times; this is the first)`;
	}
	// A name also used unguarded is that use's error; one guarded everywhere is a warning at its first use.
	for (const [name, { reference, reason, count }] of guarded) {
		if (uses.has(name)) continue;
		const { message, fix } = explainUse(reference);
		const times = count > 1 ? ` (used ${count} times, each guarded; this is the first)` : "";
		findings.push({
			offset: reference.node.start,
			message: `${message}, but ${guardText(reason, name, source)}${times}`,
			fix,
			severity: "warning",
		});
	}
	return findings;
}

/** Why a guarded name did not refuse the script, naming the guard's line:column. */
function guardText(reason: GuardReason, name: string, source: string): string {
	const { line, column } = positionOf(source, reason.node.start);
	const at = `${line}:${column}`;
	if (reason.kind === "try") {
		return `it is guarded by the \`try\` at ${at}: at run time it throws a ReferenceError, which that \`catch\` takes`;
	}
	if (reason.kind === "typeof") {
		return `the \`typeof ${name}\` check at ${at} lets it be read only where it exists (at run time it does not)`;
	}
	if (reason.why === "literal") return `it is in code that cannot run: the condition at ${at} never lets it`;
	const what = reason.node.type.replace("Statement", "").toLowerCase();
	return `it is in code that cannot run, after the \`${what}\` at ${at}`;
}

function explain(
	name: string,
	node: AnyNode,
	parent: AnyNode,
	source: string,
	candidates: string[],
	write: boolean,
): { message: string; fix: string } {
	const message = `\`${name}\` is not defined`;
	const required = name === "require" ? requiredFile(node, parent) : undefined;
	if (required) {
		return {
			message: `${message} in workflow scripts: there are no modules to load \`${required}\` from`,
			fix: `To run another workflow script, call it: \`await workflow(${JSON.stringify(required)}, args)\`; a helper has to be copied into this script`,
		};
	}
	const capability = CAPABILITIES[name];
	if (capability) return { message: `${message} in workflow scripts`, fix: capability };
	const foreign = foreignGlobal(name);
	if (foreign) return foreign;
	// `agent<Review>(…)` parses as two comparisons, so the type argument reads as an undeclared name.
	if (parent.type === "BinaryExpression" && parent.operator === "<" && parent.right === node) {
		if (/^\s*>\s*\(/.test(source.slice(node.end, node.end + 20))) {
			return {
				message: `\`<${name}>\` after a call's name is a TypeScript type argument; workflow scripts are plain JavaScript`,
				fix: `Delete \`<${name}>\`; describe the answer's shape with \`{ schema }\``,
			};
		}
	}
	const meant = closestName(name, candidates);
	if (meant) return { message, fix: `Did you mean \`${meant}\`?` };
	if (write) return { message, fix: `Declare it first: \`let ${name} = …\`` };
	return {
		message,
		fix: `Declare it (\`const\`, \`let\`, a parameter) before use; or, for an input of the script, read it from \`args\` (\`args.${name}\`) and pass it in when the run starts`,
	};
}

/**
 * Whether `candidate` is a `let`/`const`/class being declared by the statement `reference` stands in, where reading
 * it throws (`for (const file of files)` must not be told "did you mean `file`?", nor `const total = totl + 1`).
 */
function inDeclaration(reference: Reference, candidate: string, source: string): boolean {
	const binding = reference.scope.lookup(candidate);
	if (!binding || (binding.kind !== "let" && binding.kind !== "const" && binding.kind !== "class")) return false;
	const end: number = binding.node.end;
	if (end > reference.node.start) return false;
	return /^\s*(=|of\b|in\b)[^;{}]*$/.test(source.slice(end, reference.node.start));
}

/** The relative path of `require("./file")`, which is another script of the author's, not a capability. */
function requiredFile(node: AnyNode, parent: AnyNode): string | undefined {
	if (parent.type !== "CallExpression" || parent.callee !== node) return undefined;
	const [first] = parent.arguments;
	const path = first?.type === "Literal" && typeof first.value === "string" ? first.value : undefined;
	return path?.startsWith(".") ? path : undefined;
}

function processMember(parent: AnyNode, node: AnyNode, findings: UndeclaredFinding[]): void {
	if (parent.type !== "MemberExpression" || parent.object !== node || parent.computed) return;
	const member: string = parent.property.name;
	if (PROCESS_MEMBERS.has(member)) return;
	findings.push({
		offset: node.start,
		message: `\`process.${member}\` is not available in workflow scripts (\`process\` has \`cwd()\` only)`,
		fix:
			member === "env"
				? ENV
				: member === "argv"
					? "Read the script's inputs from `args` (`args.files`), and pass them in when the run starts"
					: ASK_AGENT,
	});
}
