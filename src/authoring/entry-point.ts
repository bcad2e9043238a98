/**
 * A workflow script's body is what runs: it is neither a module nor a program with a `main`. The wrappers a model
 * writes out of habit (an exported function, `module.exports`, `main()` or an async IIFE nobody awaits, a function
 * nothing calls) run nothing or lose their result here; each is reported with a fix that works as written: unwrap
 * the body, or call the function with `return await main()`.
 */
import { type AnyNode, analyzeScopes, type ScopeAnalysis } from "./scope.ts";

/** What is wrong and what to write instead. */
export interface Advice {
	message: string;
	fix: string;
}

/** A finding of this file, before it becomes a diagnostic. */
export interface EntryFinding extends Advice {
	offset: number;
	code: "not_awaited" | "never_called";
}

/** An identifier whose mistake another finding already explains. */
export const SAID: Advice = { message: "", fix: "" };

/** Longest code quoted in a fix as written; longer code is quoted by its shape. */
const QUOTE_CHARS = 60;
const UNWRAP_TAIL =
	"and keep the statements inside as the script's body: top-level `await` and `return` work there, and `return` gives the run its result";

/** The message and fix for an `export` other than the header (`statement`, a statement of `program`). */
export function exportAdvice(statement: AnyNode, program: AnyNode, source: string): Advice {
	if (statement.type === "ExportAllDeclaration" || statement.source) {
		return {
			message: "`export … from` loads a module, and workflow scripts have none",
			fix: "Delete it: the globals agent, parallel, pipeline, phase, log, workflow are already there; for files, the network or processes, ask an agent to do it",
		};
	}
	const analysis = scopesOf(program);
	const isDefault = statement.type === "ExportDefaultDeclaration";
	const words = isDefault ? "export default" : "export";
	const declaration: AnyNode | null = statement.declaration;
	const fn = declaration && functionOf(declaration);
	if (declaration && fn) {
		const name = functionName(declaration);
		if (name && isReferenced(analysis, name)) {
			return {
				message: `\`${words}\` is not available in workflow scripts; only the \`export const meta = {…}\` header is`,
				fix: `Delete \`${words}\` and keep the function, which the script calls`,
			};
		}
		const what = name ? `the \`${name}\` it exports` : "the function it exports";
		return {
			message: `A workflow script is not a module: nothing imports it or calls ${what}, so the code inside would never run`,
			fix: unwrapFix(fn, statement.start, source),
		};
	}
	if (isDefault && declaration) {
		const called = declaration.type === "Identifier" ? topFunction(program, declaration.name) : undefined;
		if (called) {
			return {
				message: `A workflow script is not a module: nothing imports it or calls the \`${declaration.name}\` it exports, so the code inside would never run`,
				fix: `Call it and return its result: write \`return await ${declaration.name}();\` in place of \`export default ${declaration.name};\``,
			};
		}
		if (declaration.type !== "ClassDeclaration") {
			return {
				message: "`export default` is not available in workflow scripts: a script gives its result with `return`",
				fix: `Write \`return\` in place of \`export default\`: \`return ${quote(declaration, source)};\``,
			};
		}
	}
	if (declaration?.type === "VariableDeclaration") {
		const names = declaredNames(declaration);
		if (names.length > 0 && !names.some((name) => isReferenced(analysis, name))) {
			const result = names.length === 1 ? names[0] : `{ ${names.join(", ")} }`;
			return {
				message: "`export` is not available in workflow scripts: a script gives its result with `return`",
				fix: `Delete \`export\` and return the value: \`${declaration.kind} ${names.length === 1 ? names[0] : "…"} = …;\` then \`return ${result};\``,
			};
		}
	}
	if (!declaration && statement.specifiers?.length > 0) {
		return {
			message: "`export { … }` is not available in workflow scripts: a script gives its result with `return`",
			fix: `Return the values in its place: \`return ${returnedSpecifiers(statement.specifiers)};\``,
		};
	}
	return {
		message: `\`${words}\` is not available in workflow scripts; only the \`export const meta = {…}\` header is`,
		fix: `Delete \`${words}\``,
	};
}

/**
 * Wrappers that run nothing or drop their result: a top-level `main()` or async IIFE whose promise nobody awaits
 * (its errors are lost, and the script may return first, which stops it), and a body that only declares
 * functions, one of which nothing calls.
 */
export function findEntryMistakes(program: AnyNode, analysis: ScopeAnalysis, source: string): EntryFinding[] {
	const findings: EntryFinding[] = [];
	const body: AnyNode[] = program.body;
	for (let index = 0; index < body.length; index++) {
		const statement = body[index] as AnyNode;
		if (statement.type !== "ExpressionStatement") continue;
		const call = droppedCall(statement.expression);
		if (!call) continue;
		// With a `return` after it, the script gives another result: the call only needs awaiting.
		const returnsLater = body.slice(index + 1).some((later) => later.type === "ReturnStatement");
		const callee = call.callee;
		if (callee.type === "Identifier" && isTopAsync(program, analysis, callee)) {
			const name: string = callee.name;
			findings.push({
				offset: call.start,
				code: "not_awaited",
				message: returnsLater
					? `\`${name}()\` returns a promise nobody awaits: the script can return before \`${name}\` is done, which stops it, and errors in it are lost`
					: `\`${name}()\` returns a promise nobody awaits: the script ends before \`${name}\` is done, and its result is lost`,
				fix: returnsLater
					? `Write \`await ${name}();\`, which waits for it to finish`
					: `Write \`return await ${name}();\`, which waits for it and gives the run its result`,
			});
		} else if (isAsyncFunction(callee)) {
			findings.push({
				offset: call.start,
				code: "not_awaited",
				message: returnsLater
					? "This `async` function returns a promise nobody awaits: the script can return before it is done, which stops it, and errors in it are lost"
					: "This `async` function returns a promise nobody awaits: the script ends before it is done, and its result is lost",
				fix: returnsLater
					? "Write `await` before it: `await (async () => {…})();`"
					: `Delete \`${head(callee, call.start, source)}\` and its closing \`})()\`, ${UNWRAP_TAIL}; or write \`return await (async () => {…})();\``,
			});
		}
	}
	if (body.every(declaresOnly)) {
		for (const statement of body) {
			const fn = statement.type === "ExportNamedDeclaration" ? undefined : functionOf(statement);
			const name = fn && functionName(statement);
			if (!fn || !name || isReferenced(analysis, name)) continue;
			findings.push({
				offset: statement.start,
				code: "never_called",
				message: `Nothing runs: the script only declares \`${name}\`, and nothing calls it`,
				fix: `${unwrapFix(fn, statement.start, source)}; or call it at the end: \`return await ${name}();\``,
			});
		}
	}
	return findings;
}

/**
 * `module.exports = …`, `exports.x = …` and `require.main === module`: the Node habits around a script's entry,
 * keyed by the undeclared `module`/`exports`/`require` identifier the undeclared-name check would report.
 */
export function moduleAdvice(program: AnyNode, source: string): Map<AnyNode, Advice> {
	// Keyed by identifier node; `SAID` marks one that needs no finding of its own.
	const advice = new Map<AnyNode, Advice>();
	for (const statement of program.body as AnyNode[]) {
		if (statement.type === "IfStatement" && isRequireMain(statement.test)) {
			const require = statement.test.left.type === "MemberExpression" ? statement.test.left : statement.test.right;
			advice.set(require.object, {
				message:
					"`require.main === module` asks whether the file was run as a program; a workflow script always is",
				fix: "Delete the `if` and call what it calls, awaiting it: `return await main();`",
			});
			// The same mistake, said once.
			const other = require === statement.test.left ? statement.test.right : statement.test.left;
			advice.set(other, SAID);
			continue;
		}
		if (statement.type !== "ExpressionStatement") continue;
		const assignment = statement.expression;
		if (assignment.type !== "AssignmentExpression" || assignment.operator !== "=") continue;
		const target = exportsTarget(assignment.left);
		if (!target) continue;
		advice.set(target.identifier, exportsAdvice(target, assignment, program, source));
	}
	return advice;
}

function exportsAdvice(
	target: { identifier: AnyNode; property?: string },
	assignment: AnyNode,
	program: AnyNode,
	source: string,
): Advice {
	const written = target.property
		? `${source.slice(assignment.left.start, assignment.left.end)} = …`
		: "`module.exports = …`";
	const message = `There are no modules in workflow scripts: nothing reads ${target.property ? `\`${written}\`` : written}`;
	const value: AnyNode = assignment.right;
	const fn = functionOf(value);
	if (fn && !target.property) return { message, fix: unwrapFix(fn, assignment.start, source) };
	const named = value.type === "Identifier" ? topFunction(program, value.name) : undefined;
	if (named || fn) {
		const name = value.type === "Identifier" ? value.name : (target.property ?? "main");
		return { message, fix: `Call the function and return its result: \`return await ${name}();\`` };
	}
	if (target.property) {
		return { message, fix: `Return what the script gives as its result: \`return { ${target.property}: … };\`` };
	}
	return { message, fix: `Write \`return\` in place of \`module.exports =\`: \`return ${quote(value, source)};\`` };
}

/** `module.exports`, `module.exports.x`, `exports.x`: the identifier and the property set, if any. */
function exportsTarget(node: AnyNode): { identifier: AnyNode; property?: string } | undefined {
	if (node.type !== "MemberExpression" || node.computed) return undefined;
	const object: AnyNode = node.object;
	const property: string = node.property.name;
	if (object.type === "Identifier" && object.name === "module" && property === "exports")
		return { identifier: object };
	if (object.type === "Identifier" && object.name === "exports") return { identifier: object, property };
	const inner = exportsTarget(object);
	return inner && !inner.property ? { identifier: inner.identifier, property } : undefined;
}

function isRequireMain(node: AnyNode): boolean {
	if (node.type !== "BinaryExpression" || (node.operator !== "===" && node.operator !== "==")) return false;
	const isMain = (side: AnyNode) =>
		side.type === "MemberExpression" &&
		!side.computed &&
		side.object.type === "Identifier" &&
		side.object.name === "require" &&
		side.property.name === "main";
	const isModule = (side: AnyNode) => side.type === "Identifier" && side.name === "module";
	return (isMain(node.left) && isModule(node.right)) || (isModule(node.left) && isMain(node.right));
}

/** The call a dropped expression statement makes: `main()`, `main().catch(…)`, `void main()`. */
function droppedCall(node: AnyNode): AnyNode | undefined {
	let expression = node.type === "UnaryExpression" && node.operator === "void" ? node.argument : node;
	// `main().then(…).catch(…)`: the chain's own promise is dropped too, so its start is what matters.
	while (
		expression.type === "CallExpression" &&
		expression.callee.type === "MemberExpression" &&
		!expression.callee.computed &&
		["then", "catch", "finally"].includes(expression.callee.property.name)
	) {
		expression = expression.callee.object;
	}
	return expression.type === "CallExpression" ? expression : undefined;
}

/** Whether `callee` names a top-level `async function` or a top-level `const` bound to an async function. */
function isTopAsync(program: AnyNode, analysis: ScopeAnalysis, callee: AnyNode): boolean {
	const binding = analysis.referenceOf.get(callee)?.binding;
	if (!binding || analysis.program.own(binding.name) !== binding) return false;
	const fn = topFunction(program, binding.name);
	return fn !== undefined && fn.async === true;
}

/** The top-level function declaration, or `const` function, named `name`. */
function topFunction(program: AnyNode, name: string): AnyNode | undefined {
	for (const statement of program.body as AnyNode[]) {
		if (statement.type === "FunctionDeclaration" && statement.id?.name === name) return statement;
		if (statement.type !== "VariableDeclaration") continue;
		for (const declarator of statement.declarations) {
			if (declarator.id.type === "Identifier" && declarator.id.name === name && declarator.init) {
				return functionOf(declarator.init);
			}
		}
	}
	return undefined;
}

/** The function a declaration or expression is, or binds alone (`const main = async () => {…}`). */
function functionOf(node: AnyNode): AnyNode | undefined {
	if (isFunction(node)) return node;
	if (node.type === "VariableDeclaration" && node.declarations.length === 1) {
		const init = node.declarations[0].init;
		return init && isFunction(init) ? init : undefined;
	}
	return undefined;
}

function functionName(declaration: AnyNode): string | undefined {
	if (declaration.type === "VariableDeclaration") return declaration.declarations[0].id.name;
	return declaration.id?.name;
}

function isFunction(node: AnyNode): boolean {
	return (
		node.type === "FunctionDeclaration" ||
		node.type === "FunctionExpression" ||
		node.type === "ArrowFunctionExpression"
	);
}

function isAsyncFunction(node: AnyNode): boolean {
	return isFunction(node) && node.async === true;
}

/** "Delete `export default async function run() {` and its closing `}`, and keep …", or, for `=> expr`, a return. */
function unwrapFix(fn: AnyNode, from: number, source: string): string {
	if (fn.body.type !== "BlockStatement") {
		return `Write \`return ${quote(fn.body, source)};\` in place of the function`;
	}
	const inputs = fn.params.length > 0 ? "; read its inputs from `args` rather than parameters" : "";
	return `Delete \`${head(fn, from, source)}\` and its closing \`}\`, ${UNWRAP_TAIL}${inputs}`;
}

/** The code from `from` to the function body's `{`, as written when short, else by its shape. */
function head(fn: AnyNode, from: number, source: string): string {
	const written = oneLine(source.slice(from, fn.body.start + 1));
	if (written.length <= QUOTE_CHARS) return written;
	const name = fn.id ? ` ${fn.id.name}` : "";
	const start = oneLine(source.slice(from, fn.start));
	const shape =
		fn.type === "ArrowFunctionExpression"
			? `${fn.async ? "async " : ""}(…) => {`
			: `${fn.async ? "async " : ""}function${name}(…) {`;
	return `${start}${start ? " " : ""}${shape}`.slice(0, QUOTE_CHARS + 20);
}

/** `node` as written when short; otherwise its shape (`{ … }`, `[ … ]`, `…`). */
function quote(node: AnyNode, source: string): string {
	const written = oneLine(source.slice(node.start, node.end));
	if (written.length <= QUOTE_CHARS) return written;
	if (node.type === "ObjectExpression") return "{ … }";
	if (node.type === "ArrayExpression") return "[ … ]";
	return "…";
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

function declaredNames(declaration: AnyNode): string[] {
	const names: string[] = [];
	for (const declarator of declaration.declarations)
		if (declarator.id.type === "Identifier") names.push(declarator.id.name);
	return names;
}

function returnedSpecifiers(specifiers: AnyNode[]): string {
	const name = (node: AnyNode): string => (node.type === "Identifier" ? node.name : String(node.value));
	if (specifiers.length === 1) return name(specifiers[0].local);
	const parts = specifiers.map((specifier) => {
		const local = name(specifier.local);
		const exported = name(specifier.exported);
		return local === exported ? local : `${exported}: ${local}`;
	});
	return `{ ${parts.join(", ")} }`;
}

/** The scopes of `program`, or undefined for a tree nested deeper than the stack (the engine reports it when run). */
function scopesOf(program: AnyNode): ScopeAnalysis | undefined {
	try {
		return analyzeScopes(program, ["meta"]);
	} catch (error) {
		if (error instanceof RangeError) return undefined;
		throw error;
	}
}

/** Whether anything in the script reads `name` (a top-level binding); without an analysis, assumed so. */
function isReferenced(analysis: ScopeAnalysis | undefined, name: string): boolean {
	if (!analysis) return true;
	const binding = analysis.program.own(name);
	return binding !== undefined && analysis.referencesOf(binding).length > 0;
}

/** A top-level statement that only declares (the header, functions, classes, `const f = () => …`): it runs nothing. */
function declaresOnly(statement: AnyNode): boolean {
	switch (statement.type) {
		case "ExportNamedDeclaration":
		case "FunctionDeclaration":
		case "ClassDeclaration":
		case "EmptyStatement":
			return true;
		case "VariableDeclaration":
			return statement.declarations.every(
				(declarator: AnyNode) =>
					!declarator.init || declarator.init.type === "Literal" || isFunction(declarator.init),
			);
		default:
			return false;
	}
}
