/**
 * Which `args` a script reads, without running it: for a dry run that planned no agent call, to say whether the
 * script wanted args it was not given or that its `meta.args` does not declare.
 */
import { propertyKey } from "../../authoring/literals.ts";
import { type AnyNode, analyzeScopes } from "../../authoring/scope.ts";
import type { JsonSchema } from "../core/types.ts";
import { parseWorkflowProgram } from "./read.ts";

/** What the script reads of `args`: whether at all, and the properties read by name that `schema` does not declare. */
export interface ArgsRead {
	reads: boolean;
	undeclared: string[];
}

/** Undefined when the script cannot be read (the run itself says why). */
export function argsRead(
	source: string,
	filename: string | undefined,
	schema: JsonSchema | undefined,
): ArgsRead | undefined {
	let references: ReturnType<typeof analyzeScopes>["unresolved"];
	try {
		const { program } = parseWorkflowProgram(source, filename !== undefined ? { filename } : {});
		references = analyzeScopes(program, ["meta"]).unresolved.filter((ref) => ref.node.name === "args");
	} catch {
		return undefined;
	}
	const declared =
		schema && typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {};
	const undeclared = new Set<string>();
	for (const { node, parent } of references) {
		const named = parent.type === "MemberExpression" && parent.object === node && !parent.computed;
		const name = named ? (parent.property as { name?: unknown }).name : undefined;
		if (typeof name === "string" && !Object.hasOwn(declared, name)) undeclared.add(name);
	}
	return { reads: references.length > 0, undeclared: [...undeclared] };
}

/**
 * The properties of `args` the script reads with a fallback of its own: `args.x ?? d`, `args.x || d`, and
 * `const { x = d } = args`. A sample of `meta.args` leaves those out when optional, so the script's default stands.
 * Empty when the script cannot be read.
 */
export function argsWithFallback(source: string, filename: string | undefined): string[] {
	let program: AnyNode;
	let globals: Set<AnyNode>;
	try {
		program = parseWorkflowProgram(source, filename !== undefined ? { filename } : {}).program as AnyNode;
		const references = analyzeScopes(program, ["meta"]).unresolved.filter((ref) => ref.node.name === "args");
		globals = new Set(references.map((ref) => ref.node));
	} catch {
		return [];
	}
	const names = new Set<string>();
	const isArgs = (node: AnyNode | undefined) => node !== undefined && globals.has(node);
	const visit = (node: unknown): void => {
		if (Array.isArray(node)) {
			for (const item of node) visit(item);
			return;
		}
		if (node === null || typeof node !== "object" || typeof (node as AnyNode).type !== "string") return;
		const n = node as AnyNode;
		if (n.type === "LogicalExpression" && (n.operator === "??" || n.operator === "||")) {
			const left = n.left as AnyNode;
			if (left.type === "MemberExpression" && !left.computed && isArgs(left.object)) names.add(left.property.name);
		}
		if (n.type === "VariableDeclarator" && isArgs(n.init) && n.id.type === "ObjectPattern") {
			for (const property of n.id.properties as AnyNode[]) {
				const key = propertyKey(property);
				if (key !== undefined && property.value?.type === "AssignmentPattern") names.add(key);
			}
		}
		for (const [key, value] of Object.entries(n)) if (key !== "loc") visit(value);
	};
	visit(program.body);
	return [...names];
}
