/**
 * Checks the shape of a literal `meta` header with ajv and turns the first problem into a `meta_invalid` error that
 * names the key and points at the author's text.
 */
import { type SourceLocation, WorkflowError } from "../../errors.ts";
import { compileTrustedSchema, type SchemaIssue } from "../schema/session.ts";
import type { JsonSchema, WorkflowMeta } from "../types.ts";
import { type MetaLiteral, nodeLocation, pathSegment } from "./literal.ts";

const NON_EMPTY: JsonSchema = { type: "string", pattern: "\\S" };

/** What a header may hold. Unknown keys are errors, so a misspelled `descripton` is caught. */
const META_SCHEMA: JsonSchema = {
	type: "object",
	required: ["name", "description"],
	additionalProperties: false,
	properties: {
		name: NON_EMPTY,
		description: NON_EMPTY,
		whenToUse: { type: "string" },
		phases: {
			type: "array",
			items: {
				type: "object",
				required: ["title"],
				additionalProperties: false,
				properties: { title: NON_EMPTY, detail: { type: "string" } },
			},
		},
		args: { type: "object" },
		model: NON_EMPTY,
	},
};

const META_KEYS = "name, description, whenToUse, phases, args, model";
const PHASE_KEYS = "title, detail";
const ARTICLES: Record<string, string> = { string: "a string", array: "an array", object: "an object" };
const FOUND: Record<string, string> = {
	string: "a string",
	number: "a number",
	boolean: "a boolean",
	null: "null",
	array: "an array",
	object: "an object",
};

/** Returns the header as `WorkflowMeta`, or throws `meta_invalid` for its first problem in source order. */
export function validateMetaShape(literal: MetaLiteral): WorkflowMeta {
	const result = compileTrustedSchema(META_SCHEMA).validate(literal.value, { root: "meta" });
	if (result.ok) return literal.value as unknown as WorkflowMeta;
	const problems = result.issues.map((issue) => ({ issue, location: locate(literal, issue) }));
	problems.sort((a, b) => a.location.line - b.location.line || a.location.column - b.location.column);
	const first = problems[0];
	if (!first) throw new WorkflowError("internal", "meta validation failed without an error");
	throw new WorkflowError("meta_invalid", describe(first.issue), {
		location: first.location,
		details: { path: first.issue.path, keyword: first.issue.keyword },
	});
}

/** The key of an unknown property, the value of a wrong one, else the object missing something. */
function locate(literal: MetaLiteral, issue: SchemaIssue): SourceLocation {
	if (issue.keyword === "additionalProperties") {
		const key = String(issue.params.additionalProperty).replace(/~/g, "~0").replace(/\//g, "~1");
		const nodes = literal.nodes.get(`${issue.pointer}/${key}`);
		if (nodes) return nodeLocation(nodes.key ?? nodes.value);
	}
	const nodes = literal.nodes.get(issue.pointer) ?? literal.nodes.get("");
	return nodes ? nodeLocation(nodes.value) : { line: 1, column: 1 };
}

function describe(issue: SchemaIssue): string {
	const { path, params } = issue;
	switch (issue.keyword) {
		case "required":
			return `\`${path}\` is missing \`${String(params.missingProperty)}\`${hint(String(params.missingProperty))}`;
		case "additionalProperties": {
			const known = issue.pointer === "" ? META_KEYS : PHASE_KEYS;
			return `\`${path}${pathSegment(String(params.additionalProperty))}\` is not a known key. Known keys: ${known}`;
		}
		case "type": {
			const expected = ARTICLES[String(params.type)] ?? String(params.type);
			const found = /found (\w+)$/.exec(issue.message)?.[1] ?? "";
			const what = path === "meta.args" ? "a JSON Schema object" : expected;
			return `\`${path}\` must be ${what}, found ${FOUND[found] ?? found}`;
		}
		case "pattern":
			return `\`${path}\` must not be empty`;
		default:
			return `\`${path}\` ${issue.message}`;
	}
}

function hint(key: string): string {
	if (key === "name") return ": a short id such as `review-and-fix`";
	if (key === "description") return ": one sentence on what the workflow does";
	return "";
}
