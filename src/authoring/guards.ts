/**
 * What may keep an undeclared name from failing a script: the guards the scope walk (scope.ts) records around each
 * reference, and `guardOf`, which says which of them keeps a given name from throwing. Sound, not clever: a `try`
 * guards only what runs in its own block, not in a function written there (which may run after the try is done).
 */
import type { Node } from "acorn";

// biome-ignore lint/suspicious/noExplicitAny: ESTree nodes are read by field after a `type` check (as in scope.ts).
type AnyNode = Node & Record<string, any>;

/**
 * What stands around a reference: the `try` block of a try/catch; a branch taken only when `test` is `truth` (a
 * `typeof x !== "undefined"` check, or the rest of a block after `if (typeof x === "undefined") return;`); code that
 * cannot run (`after` a `return`, `throw`, `break` or `continue` in the same block, or behind a `literal` test); and
 * code that runs on its own later (`function`: a function's body, a field initializer), past which no `try` guards.
 */
export type Guard =
	| { kind: "try"; node: AnyNode }
	| { kind: "when"; test: AnyNode; truth: boolean }
	| { kind: "dead"; node: AnyNode; why: "after" | "literal" }
	| { kind: "function" };

/** One guard and the guards around it, innermost first; shared by every reference inside. */
export interface GuardLink {
	guard: Guard;
	outer: GuardLink | undefined;
}

/** What keeps a name from throwing: a `try`, a `typeof` check (its comparison), or code that cannot run. */
export type GuardReason =
	| { kind: "try"; node: AnyNode }
	| { kind: "typeof"; node: AnyNode }
	| { kind: "dead"; node: AnyNode; why: "after" | "literal" };

/** Statements after which the rest of their block cannot run. */
const TERMINATORS: ReadonlySet<string> = new Set([
	"ReturnStatement",
	"ThrowStatement",
	"BreakStatement",
	"ContinueStatement",
]);

/** A test whose value is written down (`false`, `0`, `"x"`, `!true`): its other branch never runs. */
export function literalTruth(test: AnyNode): boolean | undefined {
	if (test.type === "Literal" && !(test.value instanceof RegExp) && test.bigint === undefined)
		return Boolean(test.value);
	if (test.type === "UnaryExpression" && test.operator === "!") {
		const inner = literalTruth(test.argument);
		return inner === undefined ? undefined : !inner;
	}
	return undefined;
}

/** What guards the statements after `statement` in its block: none, dead code, or "only when its test was false". */
export function guardAfter(statement: AnyNode): Guard | undefined {
	if (TERMINATORS.has(statement.type)) return { kind: "dead", node: statement, why: "after" };
	if (statement.type !== "IfStatement" || statement.alternate || !ends(statement.consequent)) return undefined;
	if (literalTruth(statement.test) === true) return { kind: "dead", node: statement, why: "after" };
	return { kind: "when", test: statement.test, truth: false };
}

function ends(node: AnyNode): boolean {
	if (TERMINATORS.has(node.type)) return true;
	return (
		node.type === "BlockStatement" && (node.body as AnyNode[]).some((statement) => TERMINATORS.has(statement.type))
	);
}

/** The innermost guard in `link` that keeps reading the undeclared `name` from failing the script, if any. */
export function guardOf(link: GuardLink | undefined, name: string): GuardReason | undefined {
	let later = false;
	for (; link; link = link.outer) {
		const { guard } = link;
		if (guard.kind === "function") later = true;
		else if (guard.kind === "try") {
			if (!later) return guard;
		} else if (guard.kind === "dead") return guard;
		else {
			const check = presentWhen(guard.test, name, guard.truth);
			if (check) return { kind: "typeof", node: check };
		}
	}
	return undefined;
}

const COMPARISONS: ReadonlySet<string> = new Set(["===", "==", "!==", "!="]);

/** The `typeof name` comparison in `test` that, when `test` is `truth`, says `name` exists. */
function presentWhen(test: AnyNode, name: string, truth: boolean): AnyNode | undefined {
	if (test.type === "UnaryExpression" && test.operator === "!") return presentWhen(test.argument, name, !truth);
	if (test.type === "LogicalExpression") {
		// `a && b` true: both were; `a || b` false: neither was.
		if ((test.operator === "&&" && truth) || (test.operator === "||" && !truth)) {
			return presentWhen(test.left, name, truth) ?? presentWhen(test.right, name, truth);
		}
		return undefined;
	}
	if (test.type !== "BinaryExpression" || !COMPARISONS.has(test.operator)) return undefined;
	const literal = isTypeofOf(test.left, name) ? test.right : isTypeofOf(test.right, name) ? test.left : undefined;
	if (literal?.type !== "Literal" || typeof literal.value !== "string") return undefined;
	// Whether `typeof name` equals the literal; equal to "undefined" says absent, equal to anything else present.
	const equal = test.operator === "===" || test.operator === "==" ? truth : !truth;
	return (literal.value === "undefined" ? !equal : equal) ? test : undefined;
}

function isTypeofOf(node: AnyNode, name: string): boolean {
	return (
		node.type === "UnaryExpression" &&
		node.operator === "typeof" &&
		node.argument.type === "Identifier" &&
		node.argument.name === name
	);
}
