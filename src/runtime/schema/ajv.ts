/**
 * ajv as the schema worker runs it: patterns on RE2 (linear time), `uniqueItems` in linear time, compiled
 * validators kept by contents while someone holds them, and ajv itself dropped once nobody does, since ajv keeps
 * every compiled pattern and function in a scope shared by all its schemas for as long as it lives.
 */

import type { Ajv, Options, ValidateFunction } from "ajv";
import { errorMessage, WorkflowError } from "../../errors.ts";
import { stableJson } from "../json.ts";
import type { JsonSchema } from "../types.ts";
import { formatIssues, type SchemaValidation, toIssues } from "./issues.ts";
import { loadAjv, loadAjv2020, loadAjvFormats, loadRe2 } from "./lazy-deps.ts";
import { checkSchemaPatterns, type SchemaDialect } from "./limits.ts";

/** What compiling needs: the checked copy, its contents as the key, its dialect and its name in messages. */
export interface CompileJob {
	key: string;
	schema: JsonSchema;
	dialect: SchemaDialect;
	name: string;
}

/**
 * Longest string `format: "regex"` compiles to see whether it is one: V8 took 3.4 s to compile a hostile 8 MiB
 * string, and every other format of ajv-formats stays under a second on one.
 */
const MAX_REGEX_FORMAT_LENGTH = 64 * 1024;

/** The `$id` a schema that refers to itself (`$ref: "#"`) gets, since ajv resolves `#` only against an `$id`. */
const ROOT_ID = "pi-workflows:schema";

/** ajv's `code.regExp`: every `pattern` and `patternProperties` key runs on RE2, whose time is linear in the input. */
const re2Engine = Object.assign(
	(pattern: string) => {
		const RE2JS = loadRe2();
		const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
		return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/` };
	},
	// Only read when ajv writes standalone code, which we never do.
	{ code: "re2" },
);

/**
 * Schemas one ajv compiles before new ones go to a fresh ajv: an ajv keeps what it compiled until it is dropped,
 * and it is dropped once none of its validators is held; a new one costs its meta-schema, some tens of ms.
 */
const COMPILES_PER_AJV = 32;
const DIALECTS: readonly SchemaDialect[] = ["draft-07", "2020-12"];

/** One ajv, how many schemas it compiled, and how many of its validators are still held. */
interface Generation {
	ajv: Ajv;
	compiles: number;
	live: number;
}

/** The validators one worker holds, by schema contents, each with the ajv that compiled it. */
export class SchemaCompiler {
	readonly #validators = new Map<string, { validate: ValidateFunction; generation: Generation }>();
	/** The ajv new schemas of each dialect go to. */
	#current: Partial<Record<SchemaDialect, Generation>> = {};

	/** Validators held now. */
	get size(): number {
		return this.#validators.size;
	}

	/** Compiles `job` unless its contents are held already. Throws `schema_invalid` with ajv's reasons. */
	compile(job: CompileJob): void {
		if (this.#validators.has(job.key)) return;
		const generation = this.#generationFor(job.dialect);
		const { ajv } = generation;
		// Checked against the meta-schema first, so the reasons carry paths like `args.properties.n.type`.
		if (!ajv.validateSchema(job.schema)) {
			// The meta-schema reports one mistake several ways (enum, type, anyOf); the first says it best.
			const issues = toIssues(ajv.errors ?? [], job.schema, job.name).filter(
				(issue, index, all) => all.findIndex((other) => other.path === issue.path) === index,
			);
			throw new WorkflowError(
				"schema_invalid",
				`\`${job.name}\` is not a valid JSON Schema: ${formatIssues(issues)}`,
				{ details: { errors: issues } },
			);
		}
		checkSchemaPatterns(job.schema, job.name);
		const schema = refersToRoot(job) ? { $id: ROOT_ID, ...job.schema } : job.schema;
		// Counted before compiling: a compile that fails has left things in ajv's scope too.
		generation.compiles++;
		try {
			this.#validators.set(job.key, { validate: ajv.compile(schema), generation });
			generation.live++;
		} catch (error) {
			const reason = errorMessage(error);
			throw new WorkflowError("schema_invalid", `\`${job.name}\` is not a valid JSON Schema: ${reason}`, {
				details: { reason },
			});
		}
	}

	/** Checks `value` (named `root` in messages) against the held validator `key`; never throws for an invalid value. */
	validate(key: string, value: unknown, root: string): SchemaValidation {
		const validate = this.#validators.get(key)?.validate;
		if (!validate) throw new WorkflowError("internal", `The schema worker holds no schema for this key`);
		let valid: boolean;
		try {
			valid = validate(value) as boolean;
		} catch (error) {
			// A recursive schema over data nested deeper than the worker's stack.
			if (!(error instanceof RangeError)) throw error;
			const issue = {
				path: root,
				message: "is nested too deeply to check",
				keyword: "$ref",
				params: {},
				pointer: "",
			};
			return { ok: false, errors: formatIssues([issue]), issues: [issue] };
		}
		if (valid) return { ok: true, value };
		const issues = toIssues(validate.errors ?? [], value, root);
		return { ok: false, errors: formatIssues(issues), issues };
	}

	/** Forgets the validator `key`; once none of its ajv's is held, the ajv goes too, with all it compiled. */
	release(key: string): void {
		const entry = this.#validators.get(key);
		if (!entry) return;
		this.#validators.delete(key);
		const { generation } = entry;
		generation.live--;
		// A retired ajv is referenced by its validators only, so it goes with the last; the current one is let go.
		if (generation.live > 0) return;
		for (const dialect of DIALECTS) if (this.#current[dialect] === generation) delete this.#current[dialect];
	}

	#generationFor(dialect: SchemaDialect): Generation {
		const current = this.#current[dialect];
		if (current && current.compiles < COMPILES_PER_AJV) return current;
		const { addFormats, fullFormats } = loadAjvFormats();
		const Dialect = dialect === "2020-12" ? loadAjv2020() : loadAjv();
		const isRegex = fullFormats.regex as (text: string) => boolean;
		const ajv = withLinearUniqueItems(addFormats(new Dialect(ajvOptions()))).addFormat(
			"regex",
			(text: string) => text.length <= MAX_REGEX_FORMAT_LENGTH && isRegex(text),
		);
		const generation = { ajv, compiles: 0, live: 0 };
		this.#current[dialect] = generation;
		return generation;
	}
}

/** The options of every ajv here, the host's trusted one included. */
export function ajvOptions(): Options {
	// strictSchema catches misspelled keywords ("requried"); the type/tuple hints would only log, so they are off.
	// addUsedSchema: false keeps `$id`s out of the shared registry, so two schemas may reuse one `$id`.
	return {
		allErrors: true,
		strictSchema: true,
		strictTypes: false,
		strictTuples: false,
		addUsedSchema: false,
		code: { regExp: re2Engine },
	};
}

/** `$ref: "#"` somewhere, without a root `$id` for it to resolve against. */
function refersToRoot(job: CompileJob): boolean {
	return job.schema.$id === undefined && job.key.includes('"$ref":"#"');
}

/**
 * ajv's `uniqueItems` compares every pair of items that are not all scalars: 15,000 small objects took seconds.
 * This one keys each item by its JSON with sorted keys, linear in the array's size, with ajv's message.
 */
function withLinearUniqueItems(ajv: Ajv): Ajv {
	ajv.removeKeyword("uniqueItems");
	const validate = (unique: boolean, data: unknown[]): boolean => {
		validate.errors = [];
		if (!unique) return true;
		const seen = new Map<string, number>();
		for (let i = data.length - 1; i >= 0; i--) {
			const id = stableJson(data[i]);
			const j = seen.get(id);
			if (j !== undefined) {
				validate.errors = [
					{
						keyword: "uniqueItems",
						message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
						params: { i, j },
					},
				];
				return false;
			}
			seen.set(id, i);
		}
		return true;
	};
	validate.errors = [] as { keyword: string; message: string; params: Record<string, unknown> }[];
	ajv.addKeyword({ keyword: "uniqueItems", type: "array", schemaType: "boolean", errors: true, validate });
	return ajv;
}
