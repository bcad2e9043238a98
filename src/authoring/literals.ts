/**
 * The value of an expression written as a literal: strings, numbers, booleans, null, arrays and objects of them,
 * templates without substitutions, and `const` names bound to such a literal. Anything else is `NOT_LITERAL`:
 * the static pass says nothing about values it cannot know.
 */
import type { AnyNode, ScopeAnalysis } from "./scope.ts";

export const NOT_LITERAL: unique symbol = Symbol("not a literal");
export type LiteralValue = unknown;

const constValues = new WeakMap<AnyNode, unknown>();

/** Deepest `const` chain followed (`const A = B; const B = {…}`); a cycle is impossible for consts, but bounded. */
const MAX_CONST_HOPS = 8;

export function literalValue(node: AnyNode, analysis: ScopeAnalysis, hops = 0): LiteralValue | typeof NOT_LITERAL {
	switch (node.type) {
		case "Literal":
			return node.regex !== undefined || node.bigint !== undefined ? NOT_LITERAL : node.value;
		case "TemplateLiteral":
			return node.expressions.length === 0 ? node.quasis[0]?.value.cooked : NOT_LITERAL;
		case "UnaryExpression":
			if (node.operator === "-" && node.argument.type === "Literal" && typeof node.argument.value === "number") {
				return -node.argument.value;
			}
			return NOT_LITERAL;
		case "ArrayExpression": {
			const items: unknown[] = [];
			for (const element of node.elements) {
				if (!element || element.type === "SpreadElement") return NOT_LITERAL;
				const value = literalValue(element, analysis, hops);
				if (value === NOT_LITERAL) return NOT_LITERAL;
				items.push(value);
			}
			return items;
		}
		case "ObjectExpression": {
			const object: Record<string, unknown> = {};
			for (const property of node.properties) {
				const key = propertyKey(property);
				if (key === undefined || property.kind !== "init" || property.method) return NOT_LITERAL;
				const value = literalValue(property.value, analysis, hops);
				if (value === NOT_LITERAL) return NOT_LITERAL;
				setOwn(object, key, value);
			}
			return object;
		}
		case "Identifier": {
			const init = constInit(node, analysis);
			if (!init || hops >= MAX_CONST_HOPS) return NOT_LITERAL;
			// A `const` read by many calls is evaluated once.
			if (!constValues.has(init)) constValues.set(init, literalValue(init, analysis, hops + 1));
			return constValues.get(init);
		}
		default:
			return NOT_LITERAL;
	}
}

/**
 * `object[key] = value` as an own property even for `__proto__` (whose assignment would set the prototype). Only that
 * key takes `defineProperty`, which is several times slower than an assignment and ran for every property.
 */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
	if (key === "__proto__") {
		Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
	} else object[key] = value;
}

/** The initializer of the `const` an identifier reads, if it is one. */
export function constInit(node: AnyNode, analysis: ScopeAnalysis): AnyNode | undefined {
	const binding = analysis.referenceOf.get(node)?.binding;
	return binding?.kind === "const" ? binding.init : undefined;
}

/** A property's key when it is a plain name or a string/number literal (not computed, not a spread). */
export function propertyKey(property: AnyNode): string | undefined {
	if (property.type !== "Property" || property.computed) return undefined;
	if (property.key.type === "Identifier") return property.key.name;
	if (
		property.key.type === "Literal" &&
		(typeof property.key.value === "string" || typeof property.key.value === "number")
	) {
		return String(property.key.value);
	}
	return undefined;
}
