/**
 * Literal calls of the globals a run refuses because they break resume (`Date.now()`, `new Date()`, `Date()`,
 * `Math.random()`), reported with the run's own `determinism` words (runtime/guest/prelude.js says them when the
 * call runs) before anything is paid for. A `try` whose `catch` takes the error, or code that cannot run, keeps a
 * call from being reported; a `typeof` test does not: `Date` and `Date.now` exist here and throw when called.
 */
import type { CallFinding } from "./call-checks.ts";
import { guardOf } from "./guards.ts";
import type { AnyNode, CallSite, ScopeAnalysis } from "./scope.ts";

const TIME = "Pass a timestamp in `args`";
const SAMPLE = "Put the sample index in the prompt or label instead";

/** Each unavailable call written in `analysis`'s script, at the start of the call. */
export function findUnavailableCalls(analysis: ScopeAnalysis): CallFinding[] {
	const findings: CallFinding[] = [];
	const { calls } = analysis;
	// Indexed: a loop run once per script runs mostly unoptimized, where `for…of` makes an object per step.
	for (let index = 0; index < calls.length; index++) {
		const { node } = calls[index] as CallSite;
		const call = unavailable(node, analysis);
		if (!call) continue;
		const guard = guardOf(call.global.guard, call.global.node.name);
		if (guard && guard.kind !== "typeof") continue;
		findings.push({
			code: "determinism",
			offset: node.start,
			message: `\`${call.what}\` is unavailable: it breaks resume`,
			fix: call.what === "Math.random()" ? SAMPLE : TIME,
		});
	}
	return findings;
}

/** What `node` (a call or `new`) calls, when it is one the run refuses, and the global it reads. */
function unavailable(node: AnyNode, analysis: ScopeAnalysis) {
	const callee: AnyNode = node.callee;
	if (callee.type === "Identifier") {
		const global = globalReference(callee, "Date", analysis);
		if (!global) return undefined;
		if (node.type === "CallExpression") return { what: "Date()", global };
		return node.arguments.length === 0 ? { what: "new Date()", global } : undefined;
	}
	if (node.type !== "CallExpression" || callee.type !== "MemberExpression") return undefined;
	const member = memberName(callee);
	const global =
		member === "now"
			? globalReference(callee.object, "Date", analysis)
			: member === "random"
				? globalReference(callee.object, "Math", analysis)
				: undefined;
	return global ? { what: `${global.node.name}.${member}()`, global } : undefined;
}

/** The reference of `node` when it reads the global `name` (not a binding of the script's own). */
function globalReference(node: AnyNode, name: string, analysis: ScopeAnalysis) {
	if (node.type !== "Identifier" || node.name !== name) return undefined;
	const reference = analysis.referenceOf.get(node);
	return reference && !reference.binding ? reference : undefined;
}

/** `.name` or `["name"]` of a member access. */
function memberName(member: AnyNode): string | undefined {
	if (!member.computed) return member.property.type === "Identifier" ? member.property.name : undefined;
	return member.property.type === "Literal" && typeof member.property.value === "string"
		? member.property.value
		: undefined;
}
