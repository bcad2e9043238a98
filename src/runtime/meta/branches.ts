/**
 * Where a script may make agent calls, read without running it: the `if`/`else`/`case` branches that hold `agent()`
 * calls, and the phases it names as literals (`phase("x")`, `agent(…, { phase: "x" })`). A dry run takes one path
 * through a branchy script; this says which of the others it did not take.
 */
import { openParen } from "../../authoring/call-checks.ts";
import { positionOf } from "../../authoring/diagnostic.ts";
import { propertyKey } from "../../authoring/literals.ts";
import { type AnyNode, analyzeScopes } from "../../authoring/scope.ts";
import { parseWorkflowProgram } from "./read.ts";

/** Where in the author's file: 1-based, as the run gives call sites. */
export interface ScriptPosition {
	line: number;
	column: number;
}

/** One branch of an `if` (`if`: its consequent, `else`: its alternate) or one `case` of a `switch`. */
export interface AgentBranch extends ScriptPosition {
	kind: "if" | "else" | "case";
	/** The `agent()` calls written in it, nested branches' included: where each one's `(` is. */
	calls: ScriptPosition[];
	/** The index of the branch it is nested in, if any. */
	parent?: number;
}

/** What the static pass found: branches in source order (those with no agent() call too, so `parent` indexes them), and the literal phase names in order of first mention. */
export interface ScriptPaths {
	branches: AgentBranch[];
	phases: string[];
}

/** Undefined when the script cannot be read (the run itself says why). */
export function scriptPaths(source: string, filename: string | undefined): ScriptPaths | undefined {
	let program: AnyNode;
	let globals: Set<AnyNode>;
	try {
		program = parseWorkflowProgram(source, filename !== undefined ? { filename } : {}).program as AnyNode;
		// Only the globals `agent` and `phase`: a script's own function of that name is not one.
		globals = new Set(
			analyzeScopes(program, ["meta"])
				.unresolved.filter((ref) => ref.node.name === "agent" || ref.node.name === "phase")
				.map((ref) => ref.node),
		);
	} catch {
		return undefined;
	}
	const paths: ScriptPaths = { branches: [], phases: [] };
	const at = (offset: number): ScriptPosition => positionOf(source, offset);
	const visit = (node: unknown, open: number[]): void => {
		if (Array.isArray(node)) {
			for (const item of node) visit(item, open);
			return;
		}
		if (!isNode(node)) return;
		if (node.type === "IfStatement") {
			visit(node.test, open);
			visitBranch("if", node.consequent, node.consequent, open);
			if (node.alternate) visitBranch("else", node.alternate, node.alternate, open);
			return;
		}
		if (node.type === "SwitchCase") {
			if (node.test) visit(node.test, open);
			visitBranch("case", node, node.consequent, open);
			return;
		}
		if (node.type === "CallExpression" && globals.has(node.callee)) {
			called(node, open);
		}
		for (const [key, value] of Object.entries(node)) {
			if (key !== "type" && key !== "start" && key !== "end" && key !== "loc") visit(value, open);
		}
	};
	const visitBranch = (kind: AgentBranch["kind"], where: AnyNode, body: unknown, open: number[]) => {
		const parent = open.at(-1);
		const index = paths.branches.push({
			kind,
			...at(where.start),
			calls: [],
			...(parent !== undefined ? { parent } : {}),
		});
		visit(body, [...open, index - 1]);
	};
	const called = (call: AnyNode, open: number[]) => {
		const [first, second] = call.arguments as AnyNode[];
		if (call.callee.name === "phase") {
			if (first?.type === "Literal" && typeof first.value === "string") named(first.value);
			return;
		}
		const phase =
			second?.type === "ObjectExpression"
				? second.properties.find((p: AnyNode) => propertyKey(p) === "phase")
				: undefined;
		if (phase?.value?.type === "Literal" && typeof phase.value.value === "string") named(phase.value.value);
		const site = at(openParen(call, source));
		for (const index of open) paths.branches[index]?.calls.push(site);
	};
	const named = (phase: string) => {
		if (!paths.phases.includes(phase)) paths.phases.push(phase);
	};
	visit(program.body, []);
	return paths;
}

/**
 * The branches with agent() calls none of which was made at a position in `reached` ("line:column"), outermost only:
 * a branch inside one not reached is not named again.
 */
export function unreachedBranches(branches: readonly AgentBranch[], reached: ReadonlySet<string>): AgentBranch[] {
	const missed = branches.map(
		(branch) => branch.calls.length > 0 && !branch.calls.some((call) => reached.has(`${call.line}:${call.column}`)),
	);
	return branches.filter((branch, i) => missed[i] && !(branch.parent !== undefined && missed[branch.parent]));
}

function isNode(value: unknown): value is AnyNode {
	return value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string";
}
