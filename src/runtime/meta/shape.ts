/**
 * Checks the shape of a literal `meta` header (one that plainly fits in plain code, anything else with ajv) and turns
 * the first problem into a `meta_invalid` error that names the key and points at the author's text. Keys other
 * runtimes put in a header (`meta.phases[].agentCount`) are warnings (the script still sees them); a key that looks
 * like a misspelled known one stays an error.
 */
import { closestName } from "../../authoring/index.ts";
import { type SourceLocation, WorkflowError } from "../../errors.ts";
import type { JsonSchema, WorkflowMeta } from "../core/types.ts";
import { compileTrustedSchema, type SchemaIssue } from "../schema/session.ts";
import { type MetaLiteral, nodeLocation, pathSegment } from "./literal.ts";

const NON_EMPTY: JsonSchema = { type: "string", pattern: "\\S" };

/** What a header may hold. Unknown keys are errors, so a misspelled `descripton` is caught. */
export const META_SCHEMA: JsonSchema = {
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

const META_KEY_LIST = ["name", "description", "whenToUse", "phases", "args", "model"];
const PHASE_KEY_LIST = ["title", "detail"];
const META_KEYS = META_KEY_LIST.join(", ");
const PHASE_KEYS = PHASE_KEY_LIST.join(", ");

/** A header key this runtime does not read, left out with a word instead of failing the script. */
export interface MetaWarning {
	message: string;
	location: SourceLocation;
}
const ARTICLES: Record<string, string> = { string: "a string", array: "an array", object: "an object" };
const FOUND: Record<string, string> = {
	string: "a string",
	number: "a number",
	boolean: "a boolean",
	null: "null",
	array: "an array",
	object: "an object",
};

/**
 * Returns the header as `WorkflowMeta` (other runtimes' keys kept as written, each named in `warnings`), or throws
 * `meta_invalid` for its first problem in source order.
 */
export function validateMetaShape(literal: MetaLiteral, warnings: MetaWarning[] = []): WorkflowMeta {
	const value = withoutForeignKeys(literal, warnings);
	// The script still sees every key it wrote: a peer script may read its own `meta.phases[i].agentCount`.
	// A header that plainly fits is not handed to ajv: loading and compiling it is most of a first run's host time.
	if (fitsPlainly(value)) return literal.value as unknown as WorkflowMeta;
	const result = compileTrustedSchema(META_SCHEMA).validate(value, { root: "meta" });
	if (result.ok) return literal.value as unknown as WorkflowMeta;
	// `descripton`: the misspelled key is the problem to name, not the `description` it leaves missing.
	const misspelled = new Set(
		result.issues
			.filter((issue) => issue.keyword === "additionalProperties")
			.map((issue) => `${issue.pointer}|${closestName(String(issue.params.additionalProperty), knownAt(issue))}`),
	);
	const problems = result.issues
		.filter(
			(issue) =>
				issue.keyword !== "required" || !misspelled.has(`${issue.pointer}|${String(issue.params.missingProperty)}`),
		)
		.map((issue) => ({ issue, location: locate(literal, issue) }));
	problems.sort((a, b) => a.location.line - b.location.line || a.location.column - b.location.column);
	const first = problems[0];
	if (!first) throw new WorkflowError("internal", "meta validation failed without an error");
	throw new WorkflowError("meta_invalid", describe(first.issue), {
		location: first.location,
		details: { path: first.issue.path, keyword: first.issue.keyword },
	});
}

/**
 * True only for a header `META_SCHEMA` accepts (a cheap check in plain code); false for anything else, which then
 * goes to ajv for the exact issues. JavaScript's `\S` is stricter than RE2's, so a text it finds non-blank is
 * non-blank to the schema too. Exported for the test that holds it to the schema.
 */
export function fitsPlainly(value: unknown): boolean {
	if (!isPlain(value) || !nonBlank(value.name) || !nonBlank(value.description)) return false;
	for (const [key, item] of Object.entries(value)) {
		if (key === "name" || key === "description") continue;
		if (key === "model" ? !nonBlank(item) : key === "whenToUse" ? typeof item !== "string" : false) return false;
		if (key === "args" && !isPlain(item)) return false;
		if (key === "phases" && !(Array.isArray(item) && item.every(plainPhase))) return false;
		if (!META_KEY_LIST.includes(key)) return false;
	}
	return true;
}

function plainPhase(phase: unknown): boolean {
	if (!isPlain(phase) || !nonBlank(phase.title)) return false;
	return Object.entries(phase).every(
		([key, item]) => key === "title" || (key === "detail" && typeof item === "string"),
	);
}

function nonBlank(value: unknown): boolean {
	return typeof value === "string" && /\S/.test(value);
}

/** The keys known where `issue` is: the header's, or a phase's. */
function knownAt(issue: SchemaIssue): readonly string[] {
	return issue.pointer === "" ? META_KEY_LIST : PHASE_KEY_LIST;
}

type Plain = { [key: string]: unknown };

function isPlain(value: unknown): value is Plain {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The header without keys it does not know that are no misspelling of one it knows (those stay, so the schema's
 * error names them). A copy: the literal keeps what the author wrote.
 */
function withoutForeignKeys(literal: MetaLiteral, warnings: MetaWarning[]): unknown {
	const root = literal.value;
	if (!isPlain(root)) return root;
	const keep = (object: Plain, known: readonly string[], path: string, pointer: string): Plain => {
		const out: Plain = {};
		for (const [key, item] of Object.entries(object)) {
			if (known.includes(key) || closestName(key, known) !== undefined) {
				out[key] = item;
				continue;
			}
			const nodes = literal.nodes.get(`${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
			warnings.push({
				message: `\`${path}${pathSegment(key)}\` is not a key this runtime reads (another runtime's, perhaps): the script still sees it in \`meta\`, nothing else reads it. Known keys: ${known.join(", ")}`,
				location: nodes ? nodeLocation(nodes.key ?? nodes.value) : { line: 1, column: 1 },
			});
		}
		return out;
	};
	const meta = keep(root, META_KEY_LIST, "meta", "");
	if (Array.isArray(meta.phases)) {
		meta.phases = meta.phases.map((phase, index) =>
			isPlain(phase) ? keep(phase, PHASE_KEY_LIST, `meta.phases[${index}]`, `/phases/${index}`) : phase,
		);
	}
	return meta;
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
			const key = String(params.additionalProperty);
			const meant = closestName(key, knownAt(issue));
			const hint = meant ? ` Did you mean \`${meant}\`?` : "";
			return `\`${path}${pathSegment(key)}\` is not a known key.${hint} Known keys: ${known}`;
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
