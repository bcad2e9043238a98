/**
 * Where a script returns its value, for errors about the value (not plain data, too large): the `return`
 * statements of the body itself, outside any function. Parsed again only when such an error happens.
 */
import type { Node } from "acorn";
import type { SourceLocation } from "../../errors.ts";
import { loadAcorn } from "../meta/acorn.ts";

/** The script's own `return`s in `body` (the wrapped body run.ts evaluates; positions are the author's), in order. */
export function returnSites(body: string): SourceLocation[] {
	let program: Node;
	try {
		program = loadAcorn().parse(body, { ecmaVersion: "latest", sourceType: "script", locations: true });
	} catch {
		return [];
	}
	const sites: SourceLocation[] = [];
	// The body is wrapped in one async arrow: its `return`s are the script's; deeper functions' are not.
	const wrapper = findFirst(program, (node) => node.type === "ArrowFunctionExpression");
	if (wrapper) collect((wrapper as unknown as { body: Node }).body, sites);
	return sites;
}

const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression", "ClassBody"]);

function collect(node: Node, sites: SourceLocation[]): void {
	if (node.type === "ReturnStatement" && node.loc) {
		sites.push({ line: node.loc.start.line, column: node.loc.start.column + 1 });
	}
	for (const child of children(node)) if (!FUNCTIONS.has(child.type)) collect(child, sites);
}

function findFirst(node: Node, test: (node: Node) => boolean): Node | undefined {
	if (test(node)) return node;
	for (const child of children(node)) {
		const found = findFirst(child, test);
		if (found) return found;
	}
	return undefined;
}

function children(node: Node): Node[] {
	const out: Node[] = [];
	for (const [key, value] of Object.entries(node)) {
		if (key === "loc") continue;
		if (Array.isArray(value)) {
			for (const item of value) if (isNode(item)) out.push(item);
		} else if (isNode(value)) out.push(value);
	}
	return out;
}

function isNode(value: unknown): value is Node {
	return value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string";
}

/** Where to point an error about the returned value: the one `return`, or a note naming the lines of several. */
export function returnPosition(body: string): { location?: SourceLocation; note: string } {
	const sites = returnSites(body);
	if (sites.length === 1) return { location: sites[0] as SourceLocation, note: "" };
	if (sites.length === 0) return { note: "" };
	const lines = [...new Set(sites.map((site) => site.line))];
	const shown = lines.length > 6 ? `${lines.slice(0, 6).join(", ")}…` : lines.join(", ");
	return { note: ` (returned by one of the \`return\`s at lines ${shown})` };
}

/** How to make a value that is not JSON data into data, by what it is. */
export function plainDataFix(found: string | undefined): string {
	switch (found) {
		case "a function":
			return "leave functions out, or call them and return what they give";
		case "a Map":
			return "return `Object.fromEntries(map)` instead of the Map";
		case "a Set":
			return "return `[...set]` instead of the Set";
		case "a Date":
			return "return `date.toISOString()` instead of the Date";
		case "a Promise":
			return "`await` it and return its result";
		case "an Error":
			return "return `error.message` instead of the Error";
		case "a BigInt":
			return "return `String(n)` or `Number(n)` instead";
		case "undefined":
			return "use `null` where a value is missing";
		case "NaN":
		case "Infinity":
		case "-Infinity":
			return "return a finite number, or `null`";
		case "a cycle (a value that contains itself)":
			return "return a copy without the back-reference";
		default:
			if (found && /^an? [A-Z]/.test(found)) {
				return `copy the fields you need into a plain object (\`{ ...value }\` or \`{ a: value.a }\`) instead of ${found}`;
			}
			return "build it from objects, arrays, strings, numbers, booleans and null only";
	}
}
