/**
 * Reads the `meta` header's initializer as a pure literal, straight from acorn's tree; nothing is evaluated.
 * Every node kept is indexed by its JSON pointer, so later shape errors can point at the author's own text.
 */
import type { Expression, Node, ObjectExpression, Property } from "acorn";
import { type SourceLocation, WorkflowError } from "../../errors.ts";
import type { JsonValue } from "../core/types.ts";
import { loadAcorn } from "./acorn.ts";

/** The nodes behind one value of the literal: the value itself and, for an object property, its key. */
export interface LiteralNodes {
	value: Node;
	key?: Node;
}

/** The literal's value, and the nodes of every value in it keyed by JSON pointer ("" is the root). */
export interface MetaLiteral {
	value: JsonValue;
	nodes: Map<string, LiteralNodes>;
}

/** Keys that would reach or replace an object's prototype chain, refused at every depth. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Reads `node` as a pure literal named `meta`; throws `meta_invalid` naming the first construct that is not one. */
export function readMetaLiteral(node: Expression, source: string): MetaLiteral {
	const nodes = new Map<string, LiteralNodes>();
	const value = new LiteralReader(source, nodes).read(node, "meta", "");
	return { value, nodes };
}

/** A 1-based location from acorn's 0-based column, for any node parsed with `locations: true`. */
export function nodeLocation(node: Node): SourceLocation {
	const start = node.loc?.start ?? { line: 1, column: 0 };
	return { line: start.line, column: start.column + 1 };
}

/** "phases" → ".phases", "a b" → '["a b"]', the way the author would write the access. */
export function pathSegment(key: string): string {
	return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

class LiteralReader {
	private readonly source: string;
	private readonly nodes: Map<string, LiteralNodes>;

	constructor(source: string, nodes: Map<string, LiteralNodes>) {
		this.source = source;
		this.nodes = nodes;
	}

	read(node: Expression, path: string, pointer: string, key?: Node): JsonValue {
		this.nodes.set(pointer, key ? { value: node, key } : { value: node });
		switch (node.type) {
			case "Literal":
				if (node.regex) throw notLiteral(path, "a regular expression", node);
				if (node.bigint !== undefined) throw notLiteral(path, "a BigInt", node);
				return node.value as JsonValue;
			case "TemplateLiteral":
				// biome-ignore lint/suspicious/noTemplateCurlyInString: the message quotes the syntax it refuses.
				if (node.expressions.length > 0) throw notLiteral(path, "a template literal with `${…}`", node);
				return node.quasis[0]?.value.cooked ?? "";
			case "UnaryExpression":
				if (node.operator === "-" && node.argument.type === "Literal" && typeof node.argument.value === "number") {
					return -node.argument.value;
				}
				if (node.operator === "-") throw notLiteral(path, `\`-\` applied to ${describeNode(node.argument)}`, node);
				throw notLiteral(path, `a unary \`${node.operator}\` expression`, node);
			case "ArrayExpression":
				return node.elements.map((element, index) => {
					const itemPath = `${path}[${index}]`;
					if (element === null) throw this.hole(itemPath, node.elements, index, node);
					if (element.type === "SpreadElement") throw notLiteral(itemPath, "a spread `...`", element);
					return this.read(element, itemPath, `${pointer}/${index}`);
				});
			case "ObjectExpression":
				return this.readObject(node, path, pointer);
			default:
				throw notLiteral(path, describeNode(node), node);
		}
	}

	private readObject(node: ObjectExpression, path: string, pointer: string): JsonValue {
		const result: { [key: string]: JsonValue } = {};
		const seen = new Set<string>();
		for (const property of node.properties) {
			if (property.type === "SpreadElement") throw notLiteral(path, "a spread `...`", property);
			const key = propertyKey(property, path);
			const keyPath = `${path}${pathSegment(key)}`;
			if (FORBIDDEN_KEYS.has(key)) {
				throw invalid(`\`${path}\` must not have a \`${key}\` key: it is reserved. Rename the key`, property.key);
			}
			if (seen.has(key)) throw invalid(`\`${keyPath}\` is given twice. Keep one`, property.key);
			seen.add(key);
			if (property.kind !== "init") {
				throw notLiteral(keyPath, property.kind === "get" ? "a getter" : "a setter", property);
			}
			if (property.method) throw notLiteral(keyPath, "a method", property);
			if (property.shorthand) {
				throw notLiteral(keyPath, `a shorthand property. Write \`${key}: <literal>\``, property);
			}
			// The pointer uses the raw key; ajv reports `instancePath` in JSON pointer form with ~ and / escaped.
			const escaped = key.replace(/~/g, "~0").replace(/\//g, "~1");
			result[key] = this.read(property.value, keyPath, `${pointer}/${escaped}`, property.key);
		}
		return result;
	}

	/** A hole has no node; point at its comma so the author finds it. */
	private hole(path: string, elements: readonly (Node | null)[], index: number, array: Node): WorkflowError {
		// The slot ends at the comma after the previous element's own comma (or after `[` for the first slot).
		let offset = skipTrivia(this.source, index === 0 ? array.start + 1 : (elements[index - 1]?.end ?? array.start));
		if (index > 0) offset = skipTrivia(this.source, offset + 1);
		const position = loadAcorn().getLineInfo(this.source, offset);
		return new WorkflowError("meta_invalid", `\`${path}\` must be a literal, found a hole (an empty slot)`, {
			location: { line: position.line, column: position.column + 1 },
		});
	}
}

function propertyKey(property: Property, path: string): string {
	if (property.computed) throw notLiteral(path, "a computed key `[…]`", property);
	if (property.key.type === "Identifier") return property.key.name;
	if (property.key.type === "Literal" && typeof property.key.value === "string") return property.key.value;
	throw invalid(`\`${path}\` keys must be names or strings, found ${describeNode(property.key)}`, property.key);
}

function notLiteral(path: string, found: string, node: Node): WorkflowError {
	return invalid(`\`${path}\` must be a literal, found ${found}`, node);
}

function invalid(message: string, node: Node): WorkflowError {
	return new WorkflowError("meta_invalid", message, { location: nodeLocation(node) });
}

/** Names a node for a message: "an identifier `foo`", "a call expression", "a number `1`". */
function describeNode(node: Node): string {
	if (node.type === "Identifier") return `an identifier \`${(node as Node & { name: string }).name}\``;
	if (node.type === "Literal") {
		const literal = node as Node & { value: unknown; raw?: string; regex?: unknown; bigint?: string };
		if (literal.regex) return "a regular expression";
		if (literal.bigint !== undefined) return "a BigInt";
		return `a ${literal.value === null ? "null" : typeof literal.value} \`${literal.raw ?? String(literal.value)}\``;
	}
	const special: Record<string, string> = {
		NewExpression: "a `new` expression",
		ThisExpression: "`this`",
		ChainExpression: "an optional chain `?.`",
		TemplateLiteral: "a template literal",
		UnaryExpression: "a unary expression",
	};
	const named = special[node.type];
	if (named) return named;
	// "ArrowFunctionExpression" → "an arrow function expression".
	const words = node.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
	return `${/^[aeiou]/.test(words) ? "an" : "a"} ${words}`;
}

/** Skips whitespace and comments from `offset`. */
function skipTrivia(source: string, offset: number): number {
	let index = offset;
	while (index < source.length) {
		const rest = source.slice(index, index + 2);
		if (/^\s/.test(rest)) index++;
		else if (rest === "//") index = source.indexOf("\n", index) === -1 ? source.length : source.indexOf("\n", index);
		else if (rest === "/*")
			index = source.indexOf("*/", index) === -1 ? source.length : source.indexOf("*/", index) + 2;
		else break;
	}
	return index;
}
