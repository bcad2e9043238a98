/**
 * Promises used as values: an `agent()`/`ask()`/`parallel()`/`pipeline()`/`workflow()` result read, printed, spread, tested
 * or passed on without `await`, and `async` callbacks whose promises nobody can await (`forEach(async …)`, a
 * `.map(async …)` whose array is dropped). Only forms that are wrong whatever runs around them are reported:
 * `Promise.all`, starting now and awaiting later, `.then`, and returning the promise itself are all fine; a promise
 * held in a variable and returned inside an object or array is not (the run refuses a result that is not data).
 */

import type { Reference } from "./bindings.ts";
import { ASYNC_GLOBALS } from "./sandbox-globals.ts";
import type { AnyNode, CallSite, Scope, ScopeAnalysis } from "./scope.ts";

export interface UnawaitedFinding {
	offset: number;
	message: string;
	fix: string;
}

/** Members a promise really has: reading them is using the promise, not its value. */
const PROMISE_MEMBERS: ReadonlySet<string> = new Set(["then", "catch", "finally", "constructor"]);
/** Globals that read their arguments as plain values: a promise in one is a mistake. */
const VALUE_TAKERS: ReadonlySet<string> = new Set([
	"agent",
	"ask",
	"tool",
	"log",
	"workflow",
	"phase",
	"sleep",
	"parallel",
	"pipeline",
]);

export function findUnawaited(analysis: ScopeAnalysis): UnawaitedFinding[] {
	const findings: UnawaitedFinding[] = [];
	const { calls } = analysis;
	// Indexed: a loop run once per script runs mostly unoptimized, where `for…of` makes an object per step.
	for (let index = 0; index < calls.length; index++) {
		const call = calls[index] as CallSite;
		const name = call.global;
		// The script's own `async` functions return promises too: `main().summary` is the same mistake.
		const promised = name !== undefined ? (ASYNC_GLOBALS.has(name) ? name : undefined) : asyncLocal(call);
		if (promised !== undefined) {
			const use = misuse(call.node, call.parent, analysis);
			if (use) findings.push(promiseUsed(call.node, call.parent, promised, use));
			else if (call.parent.type === "VariableDeclarator" && call.parent.init === call.node) {
				constPromise(call.parent, promised, call.scope, analysis, findings);
			}
		}
		if (name === "parallel") functionsExpected(call.node, analysis, findings);
		if (name === "pipeline" || name === "phase") awaitedForFunction(call.node, name, analysis, findings);
		asyncCallback(call.node, call.parent, call.scope.functionScope.parent === undefined, findings);
	}
	return findings;
}

/** The global a call's callee names (`agent(…)`, not a local `agent`), if any. */
function globalCallee(node: AnyNode, analysis: ScopeAnalysis): string | undefined {
	if (node.type !== "CallExpression" || node.callee.type !== "Identifier") return undefined;
	const reference = analysis.referenceOf.get(node.callee);
	return reference && !reference.binding ? node.callee.name : undefined;
}

/**
 * A place that takes a function, where a promise cannot become one by `await`: a `pipeline()` stage, `parallel()`'s
 * list, `phase(name, fn)`'s `fn`, a method's callback (`.then`, `.map`). The fix there is a function that makes the call.
 */
interface FunctionWanted {
	/** What the place takes, up to "is": "`pipeline()` takes functions as its stages, and stage 2". */
	place: string;
	/** What the value is not: "a function". */
	not: string;
	fix: string;
}

/** How `node` (a pending promise) is used as if it were its value, or undefined when the use is fine. */
function misuse(node: AnyNode, parent: AnyNode, analysis: ScopeAnalysis): string | FunctionWanted | undefined {
	switch (parent.type) {
		case "MemberExpression": {
			if (parent.object !== node) return undefined;
			if (parent.computed) return "reads an element of it";
			const member: string = parent.property.name;
			return PROMISE_MEMBERS.has(member) ? undefined : `reads \`.${member}\` of it`;
		}
		case "TemplateLiteral":
			return "puts it in a template string (the text says `[object Promise]`)";
		case "BinaryExpression":
			return parent.operator === "+" ? "adds it to a string (the text says `[object Promise]`)" : undefined;
		case "SpreadElement":
			return "spreads it";
		case "IfStatement":
		case "ConditionalExpression":
			return parent.test === node ? "tests it (a promise is always truthy)" : undefined;
		case "UnaryExpression":
			return parent.operator === "!" ? "tests it (a promise is always truthy)" : undefined;
		case "CallExpression": {
			if (parent.callee === node || !parent.arguments.includes(node)) return undefined;
			const taker = globalCallee(parent, analysis);
			const index = parent.arguments.indexOf(node);
			const wanted = taker === undefined ? callbackWanted(parent.callee, index) : functionWanted(taker, index);
			if (wanted) return wanted;
			if (taker !== undefined && VALUE_TAKERS.has(taker)) return `passes it to \`${taker}()\``;
			if (isMethod(parent.callee, "JSON", "stringify")) return "passes it to `JSON.stringify` (which gives `{}`)";
			if (parent.callee.type === "MemberExpression" && isGlobal(parent.callee.object, "console", analysis)) {
				return "logs it";
			}
			return undefined;
		}
		default:
			return undefined;
	}
}

/** Methods whose first argument is a callback, and the parameter the fix names. */
const CALLBACKS: ReadonlyMap<string, string> = new Map([
	["then", "answer"],
	["catch", "error"],
	["map", "item"],
	["forEach", "item"],
	["filter", "item"],
	["flatMap", "item"],
	["some", "item"],
	["every", "item"],
	["find", "item"],
]);

/** `.then(agent(…))`, `items.map(agent(…))`: a started call where a method takes its callback. */
function callbackWanted(callee: AnyNode, index: number): FunctionWanted | undefined {
	if (index !== 0 || callee.type !== "MemberExpression" || callee.computed) return undefined;
	const method: string = callee.property.name;
	const param = CALLBACKS.get(method);
	if (param === undefined) return undefined;
	return {
		place: `\`.${method}()\` takes a function, and this`,
		not: "a function",
		fix: `Pass a function that makes the call when \`.${method}()\` calls it: \`.${method}((${param}) => agent(…))\` (\`await\` gives a value, which is not a function either)`,
	};
}

/** The function argument `index` of a call of `taker` must be, if it must be one. */
function functionWanted(taker: string, index: number): FunctionWanted | undefined {
	if (taker === "pipeline" && index >= 1) return PIPELINE_STAGE(index);
	if (taker === "parallel" && index === 0) return PARALLEL_LIST;
	// `phase(name, fn)` and `phase(name, options, fn)`: a promise is neither options nor a function.
	if (taker === "phase" && (index === 1 || index === 2)) return PHASE_FN;
	return undefined;
}

const PIPELINE_STAGE = (index: number): FunctionWanted => ({
	place: `\`pipeline()\` takes functions as its stages, and stage ${index}`,
	not: "a function",
	fix: "Pass a function, which `pipeline()` calls for each item with the previous stage's result, the item and its index: `(prev, item, i) => agent(…)` (`await` gives a value, which is not a function either)",
});
const PARALLEL_LIST: FunctionWanted = {
	place: "`parallel()` takes an array of functions, and this",
	not: "an array of functions",
	fix: "Pass functions that make the calls, which `parallel()` starts together: `parallel([() => agent(…), () => agent(…)])`, or `parallel(items.map((item) => () => agent(…)))`",
};
const PHASE_FN: FunctionWanted = {
	place: "`phase(name, fn)` takes a function as `fn`, and this",
	not: "a function",
	fix: 'Pass a function, which `phase()` calls inside the phase: `phase("name", () => agent(…))`',
};

/** `what` (a started call, a promise, an awaited answer) given where `wanted` takes a function. */
function functionFinding(offset: number, wanted: FunctionWanted, what: string): UnawaitedFinding {
	return { offset, message: `${wanted.place} is ${what}, not ${wanted.not}`, fix: wanted.fix };
}

function promiseUsed(node: AnyNode, parent: AnyNode, name: string, use: string | FunctionWanted): UnawaitedFinding {
	const what = `\`${name}()\``;
	if (typeof use !== "string")
		return functionFinding(node.start, use, `a call of ${what} already started (its promise)`);
	// `await agent(…).x` reads `.x` of the promise still: the await has to be in parentheses.
	if (parent.type === "MemberExpression" && parent.object === node) {
		const member = parent.computed ? "[…]" : `.${parent.property.name}`;
		return {
			offset: node.start,
			message: `${what} returns a promise, and this ${use} without \`await\``,
			fix: `Await the call in parentheses: \`(await ${name}(…))${member}\` (\`await ${name}(…)${member}\` still reads it of the promise), or write \`const answer = await ${name}(…)\` first`,
		};
	}
	return {
		offset: node.start,
		message: `${what} returns a promise, and this ${use} without \`await\``,
		fix: `Write \`await\` before the call (\`const answer = await ${name}(…)\`), or \`await\` the promise before using it`,
	};
}

/**
 * `const p = agent(…)`, or a `let` never assigned again: every use of `p` as a value is wrong (awaiting it elsewhere
 * does not change `p`), and so is carrying it inside object and array literals to where data must be (`heldInto`).
 */
function constPromise(
	declarator: AnyNode,
	name: string,
	scope: Scope,
	analysis: ScopeAnalysis,
	findings: UnawaitedFinding[],
): void {
	if (declarator.id.type !== "Identifier") return;
	const variable: string = declarator.id.name;
	const binding = scope.own(variable);
	if (!binding || binding.node !== declarator.id) return;
	const references = analysis.referencesOf(binding);
	const fixed = binding.kind === "const" || (binding.kind === "let" && references.every((r) => !r.write));
	if (!fixed) return;
	for (const reference of references) {
		const use = misuse(reference.node, reference.parent, analysis);
		if (!use) {
			const held = heldInto(reference, variable, name, analysis);
			if (held) findings.push(held);
			continue;
		}
		if (typeof use !== "string") {
			findings.push(
				functionFinding(reference.node.start, use, `\`${variable}\`, the promise \`${name}()\` returned`),
			);
			continue;
		}
		findings.push({
			offset: reference.node.start,
			message: `\`${variable}\` is the promise \`${name}()\` returned, and this ${use} without \`await\``,
			fix: `Read \`(await ${variable})\`, or write \`const ${variable} = await ${name}(…)\``,
		});
	}
}

/** A held promise inside literals: the path to it from the outermost literal, and where that literal goes. */
interface Carried {
	/** `.a`, `[0]`, `.x.y[2]`; undefined when a computed key or a spread before it hides the path. */
	path: string | undefined;
	/** Only arrays hold it (an array turned into text turns its items into text; an object does not). */
	arraysOnly: boolean;
	/** The outermost literal. */
	literal: AnyNode;
	/** What holds the outermost literal. */
	holder: AnyNode | undefined;
}

/** How `reference` is carried through the object and array literals around it; undefined when it is in none. */
function carriedBy(reference: Reference): Carried | undefined {
	let node: AnyNode = reference.node;
	let holder: AnyNode | undefined = reference.parent;
	let link = reference.literals;
	let path: string | undefined = "";
	let arraysOnly = true;
	let literal: AnyNode | undefined;
	// Each step out is to the next literal around: the node is a property's value or an element of it.
	while (holder && link) {
		if (holder.type === "Property" && holder.value === node && link.literal.properties?.includes(holder)) {
			const key = holder.computed ? undefined : propertyName(holder.key);
			path = key === undefined || path === undefined ? undefined : `${key}${path}`;
			arraysOnly = false;
		} else if (holder.type === "ArrayExpression" && holder === link.literal) {
			const index = holder.elements.indexOf(node);
			const spread = holder.elements
				.slice(0, index)
				.some((element: AnyNode | null) => element?.type === "SpreadElement");
			path = spread || path === undefined ? undefined : `[${index}]${path}`;
		} else break;
		literal = link.literal;
		node = link.literal;
		holder = link.holder;
		link = link.outer;
	}
	return literal ? { path, arraysOnly, literal, holder } : undefined;
}

/** `.name` or `["odd key"]` for a property key; undefined for one that is not a plain name or string. */
function propertyName(key: AnyNode): string | undefined {
	const name = key.type === "Identifier" ? key.name : key.type === "Literal" ? String(key.value) : undefined;
	if (name === undefined) return undefined;
	return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

/**
 * `return { a }`, `return [a, b]`, `JSON.stringify({ a })`, `` `${[a]}` ``, `parallel([a])`: a held promise carried
 * in literals to where data (or, for `parallel()`, a function) must be, said in the run-time error's words. Keeping
 * `[p, q]` to await later, or `Promise.all([p, q])`, is fine.
 */
function heldInto(
	reference: Reference,
	variable: string,
	name: string,
	analysis: ScopeAnalysis,
): UnawaitedFinding | undefined {
	const carried = carriedBy(reference);
	const holder = carried?.holder;
	if (!carried || !holder) return undefined;
	const promise = `\`${variable}\`, the Promise that \`${name}()\` returns`;
	const fix = `write \`await ${name}(…)\` before using its result (\`const ${variable} = await ${name}(…)\`), or put \`await ${variable}\` there in its place`;
	const offset = reference.node.start;
	if (holder.type === "ReturnStatement" && reference.scope.functionScope === analysis.program) {
		const where =
			carried.path !== undefined
				? `\`result${carried.path}\` is ${promise}`
				: `The script's return value holds ${promise}`;
		return {
			offset,
			message: `${where}, but the script's return value must be plain JSON data`,
			fix: `\`await\` it and return its result: ${fix}`,
		};
	}
	if (holder.type === "CallExpression" && holder.arguments.includes(carried.literal)) {
		if (isMethod(holder.callee, "JSON", "stringify")) {
			return {
				offset,
				message: `\`JSON.stringify\` gets ${promise}`,
				fix: capitalized(fix),
			};
		}
		const list = holder.arguments[0] === carried.literal && carried.literal.type === "ArrayExpression";
		if (list && globalCallee(holder, analysis) === "parallel" && carried.path?.startsWith("[")) {
			return {
				offset,
				message: `\`parallel()\` takes functions; item ${carried.path.slice(1, carried.path.indexOf("]"))} is ${promise}, a call already started`,
				fix: `Pass \`() => ${name}(…)\`, a function that makes the call when \`parallel()\` starts it (\`await\` gives a value, which is not a function either)`,
			};
		}
	}
	if (holder.type === "TemplateLiteral" && carried.arraysOnly) {
		return {
			offset,
			message: `${capitalized(promise)}, is turned into text with its array (the text says \`[object Promise]\`)`,
			fix: capitalized(fix),
		};
	}
	return undefined;
}

function capitalized(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * `parallel([agent(…), …])`: the calls started already, and parallel refuses anything but functions; and
 * `parallel([await agent(…), …])`, which is the same mistake with `await` written before the call.
 */
function functionsExpected(call: AnyNode, analysis: ScopeAnalysis, findings: UnawaitedFinding[]): void {
	const list = call.arguments[0];
	if (list?.type === "ArrayExpression") {
		for (const element of list.elements) {
			const started = element && globalCallee(element, analysis);
			if (started && ASYNC_GLOBALS.has(started)) {
				findings.push({
					offset: element.start,
					message: `\`parallel()\` takes functions, and this item is a call of \`${started}()\` already started (its promise)`,
					fix: `Wrap it in a function: \`() => ${started}(…)\``,
				});
			}
			const awaited = element && awaitedCall(element, analysis);
			if (awaited) {
				findings.push({
					offset: element.start,
					message: `\`parallel()\` takes functions, and this item is the answer of an awaited \`${awaited}()\` call, not a function`,
					fix: `Wrap the call in a function instead of awaiting it: \`() => ${awaited}(…)\``,
				});
			}
		}
	}
	if (list?.type === "CallExpression" && asyncMap(list)) {
		findings.push({
			offset: list.start,
			message: "`parallel()` takes functions, and `.map(async …)` gives it promises already started",
			fix: "Return a function from the map: `parallel(items.map((item) => () => agent(…)))`",
		});
	}
}

/** `pipeline(items, …, await agent(…))` and `phase(name, await agent(…))`: a value where a function goes. */
function awaitedForFunction(call: AnyNode, name: string, analysis: ScopeAnalysis, findings: UnawaitedFinding[]): void {
	for (const [index, argument] of call.arguments.entries()) {
		const wanted = functionWanted(name, index);
		const awaited = wanted && awaitedCall(argument, analysis);
		if (wanted && awaited) {
			findings.push(functionFinding(argument.start, wanted, `the answer of an awaited \`${awaited}()\` call`));
		}
	}
}

/** The name of the script's own `async` function a call calls (`async function main`, `const f = async () => …`). */
function asyncLocal(call: CallSite): string | undefined {
	if (call.node.type !== "CallExpression") return undefined;
	const binding = call.callee?.binding;
	if (binding?.kind !== "function" && binding?.kind !== "const") return undefined;
	const fn = binding.init;
	const isFunction =
		fn?.type === "FunctionDeclaration" || fn?.type === "FunctionExpression" || fn?.type === "ArrowFunctionExpression";
	return isFunction && fn.async === true ? binding.name : undefined;
}

/** The async global `node` awaits (`await agent(…)`), if it is one. */
function awaitedCall(node: AnyNode, analysis: ScopeAnalysis): string | undefined {
	if (node.type !== "AwaitExpression") return undefined;
	const name = globalCallee(node.argument, analysis);
	return name !== undefined && ASYNC_GLOBALS.has(name) ? name : undefined;
}

/** `forEach(async …)` always, and `.map(async …)` whose promises are dropped, awaited as an array, or returned. */
function asyncCallback(call: AnyNode, parent: AnyNode, topLevel: boolean, findings: UnawaitedFinding[]): void {
	if (call.type !== "CallExpression" || call.callee.type !== "MemberExpression" || call.callee.computed) return;
	const method: string = call.callee.property.name;
	const callback = call.arguments[0];
	if (!callback || !isAsyncFunction(callback)) return;
	const fix =
		"Await them all: `await Promise.all(items.map(async (item) => …))`, or `await parallel(items.map((item) => () => agent(…)))`, or a `for (const item of items)` loop with `await`";
	if (method === "forEach") {
		findings.push({
			offset: call.callee.property.start,
			message:
				"`forEach` does not wait for an `async` callback: the run can end before this work does, and its results are lost",
			fix,
		});
		return;
	}
	if (method !== "map") return;
	const dropped = parent.type === "ExpressionStatement";
	const awaited = parent.type === "AwaitExpression";
	const returned = parent.type === "ReturnStatement" && topLevel;
	if (!dropped && !awaited && !returned) return;
	const what = dropped
		? "nobody awaits the promises it makes"
		: awaited
			? "`await` on an array does not wait for the promises in it"
			: "the script returns an array of promises, which are not data";
	findings.push({ offset: call.callee.property.start, message: `\`.map(async …)\`: ${what}`, fix });
}

function asyncMap(call: AnyNode): boolean {
	return (
		call.callee.type === "MemberExpression" &&
		!call.callee.computed &&
		call.callee.property.name === "map" &&
		call.arguments[0] !== undefined &&
		isAsyncFunction(call.arguments[0])
	);
}

function isAsyncFunction(node: AnyNode): boolean {
	return (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression") && node.async === true;
}

function isMethod(node: AnyNode, object: string, method: string): boolean {
	return (
		node.type === "MemberExpression" &&
		!node.computed &&
		node.object.type === "Identifier" &&
		node.object.name === object &&
		node.property.name === method
	);
}

function isGlobal(node: AnyNode, name: string, analysis: ScopeAnalysis): boolean {
	if (node.type !== "Identifier" || node.name !== name) return false;
	const reference = analysis.referenceOf.get(node);
	return reference !== undefined && !reference.binding;
}
