/**
 * Which `args` a script reads, without running it: for a dry run that planned no agent call, to say whether the
 * script wanted args it was not given or that its `meta.args` does not declare.
 */
import { analyzeScopes } from "../../authoring/scope.ts";
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
