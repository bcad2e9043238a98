/**
 * `phase()` calls whose options are written out and cannot be right: a misspelled option or budget field (with the
 * name meant), a value of the wrong kind, or the function before the options. The rules are the runtime's own
 * (`CallRules.checkPhaseOptions`), so the static pass and the run say the same thing; values the pass cannot know
 * are passed as `null`, which the rules take as not given.
 */
import { type CallFinding, type CallRules, openParen, ruled } from "./call-checks.ts";
import { constInit, literalValue, NOT_LITERAL, propertyKey, setOwn } from "./literals.ts";
import type { AnyNode, CallSite, ScopeAnalysis } from "./scope.ts";

/** Findings of every `phase(name, options, fn?)` call, at its `(`. */
export function findPhaseMistakes(analysis: ScopeAnalysis, rules: CallRules, source: string): CallFinding[] {
	const findings: CallFinding[] = [];
	const check = rules.checkPhaseOptions;
	const { calls } = analysis;
	// Indexed: a loop run once per script runs mostly unoptimized, where `for…of` makes an object per step.
	for (let index = 0; index < calls.length; index++) {
		const { node, global } = calls[index] as CallSite;
		if (global !== "phase") continue;
		const [, second, third] = node.arguments as (AnyNode | undefined)[];
		if (!second) continue;
		const at = openParen(node, source);
		if (isFunction(second)) {
			if (third) {
				findings.push({
					code: "phase_options_invalid",
					offset: at,
					message: "`phase()` takes its options before the function",
					fix: "Write `phase(name, { budget }, fn)`",
				});
			}
			continue;
		}
		if (!check) continue;
		const value = knownParts(second, analysis);
		if (value !== NOT_LITERAL) ruled(() => check(value), at, findings);
	}
	return findings;
}

function isFunction(node: AnyNode): boolean {
	return node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression";
}

/**
 * The value as far as it is written out: objects keep every plainly named key, a value the pass cannot know becomes
 * `null`. `NOT_LITERAL` when not even its shape is known (a call, a variable that is not a `const` object…).
 */
function knownParts(node: AnyNode, analysis: ScopeAnalysis): unknown {
	const object = node.type === "Identifier" ? constInit(node, analysis) : node;
	if (object?.type !== "ObjectExpression") return object ? literalValue(object, analysis) : NOT_LITERAL;
	const out: Record<string, unknown> = {};
	for (const property of object.properties as AnyNode[]) {
		const key = propertyKey(property);
		// A spread or a computed key may hold anything: its keys cannot be checked, the rest still can.
		if (key === undefined || property.kind !== "init" || property.method) continue;
		const value = property.value.type === "ObjectExpression" ? knownParts(property.value, analysis) : null;
		const literal = value === null ? literalValue(property.value, analysis) : value;
		setOwn(out, key, literal === NOT_LITERAL ? null : literal);
	}
	return out;
}
