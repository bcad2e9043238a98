/**
 * ajv as the schema worker runs it: patterns on RE2 (linear time), `uniqueItems` in linear time, and what it
 * compiled kept in a cache bounded by estimated bytes (`SizedCache`). Each validator has an ajv of its own, since an
 * ajv keeps every pattern and function it compiled in a scope shared by all its schemas for as long as it lives:
 * evicting a validator frees all it took. Schemas are checked against the meta-schema by one ajv per dialect that
 * compiles nothing else, so it never grows.
 */

import type { Ajv, Options, ValidateFunction } from "ajv";
import { errorMessage, WorkflowError } from "../../errors.ts";
import { stableJson } from "../core/json.ts";
import type { JsonSchema } from "../core/types.ts";
import { SizedCache } from "./cache.ts";
import { formatIssues, type SchemaValidation, toIssues } from "./issues.ts";
import { loadAjv, loadAjv2020, loadAjvFormats, loadRe2 } from "./lazy-deps.ts";
import { checkSchemaPatterns, type SchemaDialect } from "./limits.ts";
import { Re2Programs, type RegExpEngine } from "./re2.ts";

/** What compiling needs: the checked copy, its contents as the key, its dialect and its name in messages. */
export interface CompileJob {
	key: string;
	schema: JsonSchema;
	dialect: SchemaDialect;
	name: string;
}

/** How big a compiled validator is: what the host reads to decide whether it may keep a copy (host-check.ts). */
export interface CompiledSize {
	/** RE2 instructions of all its patterns' programs. */
	instructions: number;
	/** Characters of the validating function ajv generated. */
	codeChars: number;
}

/**
 * Longest string `format: "regex"` compiles to see whether it is one: V8 took 3.4 s to compile a hostile 8 MiB
 * string, and every other format of ajv-formats stays under a second on one.
 */
const MAX_REGEX_FORMAT_LENGTH = 64 * 1024;

/** The `$id` a schema that refers to itself (`$ref: "#"`) gets, since ajv resolves `#` only against an `$id`. */
const ROOT_ID = "pi-workflows:schema";

/**
 * ajv's `code.regExp` for the host's own schemas: every `pattern` runs on RE2, whose time is linear in the input.
 * The worker uses its cache's engine instead (`Re2Programs`).
 */
const re2Engine: RegExpEngine = Object.assign(
	(pattern: string) => {
		const RE2JS = loadRe2();
		const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
		return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/` };
	},
	// Only read when ajv writes standalone code, which we never do.
	{ code: "re2" },
);

/**
 * Estimated bytes the worker keeps, validators and RE2 programs together: a quarter of its 256 MiB heap, so the
 * largest schema the limits allow (tens of MiB of programs) still compiles beside a full cache.
 */
export const SCHEMA_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Estimated heap of a validator besides its programs: its ajv (about 21 KiB) and the compiled function, whose
 * source V8 keeps (measured: 1–2.7 bytes of heap per character of code), and the schema it holds.
 */
const BYTES_PER_VALIDATOR = 32 * 1024;
const BYTES_PER_CODE_CHAR = 1.5;

/** The key of a validator in the worker's cache. */
const validatorKey = (key: string) => `schema:${key}`;

/** A validator the worker holds, and the patterns whose programs its ajv refers to. */
class HeldValidator {
	readonly validate: ValidateFunction;
	readonly patterns: readonly string[];
	readonly size: CompiledSize;

	constructor(validate: ValidateFunction, patterns: readonly string[], size: CompiledSize) {
		this.validate = validate;
		this.patterns = patterns;
		this.size = size;
	}
}

/** Options of `SchemaCompiler`. */
export interface SchemaCompilerOptions {
	/**
	 * Schemas the schema worker compiled already (the host's copies): not checked against the meta-schema again,
	 * whose first use costs tens of ms. Default: false.
	 */
	compiledBefore?: boolean;
}

/** The validators one worker holds, by schema contents, and the RE2 programs they share, within a byte budget. */
export class SchemaCompiler {
	readonly #cache: SizedCache<unknown>;
	readonly #programs: Re2Programs;
	/** One ajv per dialect that only checks schemas against its meta-schema. */
	readonly #checkers: Partial<Record<SchemaDialect, Ajv>> = {};
	/** Keys of the validators evicted since `takeEvicted`, for the host to send the schema again when it needs it. */
	#evicted: string[] = [];
	#validators = 0;
	readonly #compiledBefore: boolean;

	constructor(maxBytes = SCHEMA_CACHE_BYTES, options: SchemaCompilerOptions = {}) {
		this.#cache = new SizedCache<unknown>(maxBytes, (key, value) => this.#evict(key, value));
		this.#programs = new Re2Programs(this.#cache);
		this.#compiledBefore = options.compiledBefore ?? false;
	}

	/** Validators held now. */
	get size(): number {
		return this.#validators;
	}

	/** Estimated bytes of all it holds. */
	get bytes(): number {
		return this.#cache.bytes;
	}

	/** Whether the validator of `key` is held. */
	holds(key: string): boolean {
		return this.#cache.peek(validatorKey(key)) instanceof HeldValidator;
	}

	/** The instructions of the held program of `pattern` (0 when none is held). */
	programSize(pattern: string): number {
		return this.#programs.size(pattern);
	}

	/**
	 * Compiles `job` unless its contents are held already, and marks it in use until `release`. Throws
	 * `schema_invalid` with ajv's reasons. Returns how big the validator is.
	 */
	compile(job: CompileJob): CompiledSize {
		const key = validatorKey(job.key);
		const held = this.#cache.use(key);
		if (held instanceof HeldValidator) {
			this.#cache.setState(key, "used");
			return held.size;
		}
		if (!this.#compiledBefore) this.#checkSchema(job);
		const schema = refersToRoot(job) ? { $id: ROOT_ID, ...job.schema } : job.schema;
		let validate: ValidateFunction | undefined;
		const { patterns, error } = this.#programs.collect(() => {
			if (!this.#compiledBefore) {
				checkSchemaPatterns(job.schema, job.name, (pattern) => this.#programs.compile(pattern));
			}
			validate = newAjv(job.dialect, this.#programs.engine).compile(schema);
		});
		if (error !== undefined || !validate) {
			this.#cache.trim();
			if (error instanceof WorkflowError) throw error;
			const reason = errorMessage(error);
			throw new WorkflowError("schema_invalid", `\`${job.name}\` is not a valid JSON Schema: ${reason}`, {
				details: { reason },
			});
		}
		const code = String(validate).length;
		const bytes = BYTES_PER_VALIDATOR + Math.round(BYTES_PER_CODE_CHAR * code) + job.key.length;
		let instructions = 0;
		for (const pattern of patterns) instructions += this.#programs.size(pattern);
		const size = { instructions, codeChars: code };
		this.#cache.set(key, new HeldValidator(validate, patterns, size), bytes, "used");
		this.#validators++;
		this.#programs.retain(patterns);
		this.#cache.trim(key);
		return size;
	}

	/** Checked against the meta-schema first, so the reasons carry paths like `args.properties.n.type`. */
	#checkSchema(job: CompileJob): void {
		const checker = this.#checker(job.dialect);
		if (!checker.validateSchema(job.schema)) {
			// The meta-schema reports one mistake several ways (enum, type, anyOf); the first says it best.
			const issues = toIssues(checker.errors ?? [], job.schema, job.name).filter(
				(issue, index, all) => all.findIndex((other) => other.path === issue.path) === index,
			);
			throw new WorkflowError(
				"schema_invalid",
				`\`${job.name}\` is not a valid JSON Schema: ${formatIssues(issues)}`,
				{ details: { errors: issues } },
			);
		}
	}

	/** Checks `value` (named `root` in messages) against the held validator `key`; never throws for an invalid value. */
	validate(key: string, value: unknown, root: string): SchemaValidation {
		const held = this.#cache.use(validatorKey(key));
		if (!(held instanceof HeldValidator)) {
			throw new WorkflowError("internal", `The schema worker holds no schema for this key`);
		}
		const { validate } = held;
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
		} finally {
			// Matching may have grown the programs' DFAs.
			this.#programs.settle(held.patterns);
			this.#cache.trim(validatorKey(key));
		}
		if (valid) return { ok: true, value };
		const issues = toIssues(validate.errors ?? [], value, root);
		return { ok: false, errors: formatIssues(issues), issues };
	}

	/**
	 * Ends the host's use of `key`: with `idle`, it is kept until the cache needs the room (the host may use it again);
	 * without, it is dropped with the programs no other validator uses. Once no validator is held, nothing is kept.
	 */
	release(key: string, idle = false): void {
		const cached = validatorKey(key);
		if (idle) {
			this.#cache.setState(cached, "idle");
			return;
		}
		const held = this.#cache.peek(cached);
		if (!(held instanceof HeldValidator)) return;
		this.#cache.delete(cached, false);
		this.#forget(held, false);
		if (this.#validators === 0) this.#cache.clear();
	}

	/** Keys of the validators evicted since the last call. */
	takeEvicted(): string[] {
		const evicted = this.#evicted;
		this.#evicted = [];
		return evicted;
	}

	/** The cache's eviction: a validator lets go of its programs, which stay idle for the next schema that has them. */
	#evict(key: string, value: unknown): void {
		if (!(value instanceof HeldValidator)) return;
		this.#evicted.push(key.slice(validatorKey("").length));
		this.#forget(value, true);
	}

	#forget(held: HeldValidator, keepPrograms: boolean): void {
		this.#validators--;
		this.#programs.release(held.patterns, keepPrograms);
	}

	#checker(dialect: SchemaDialect): Ajv {
		this.#checkers[dialect] ??= newAjv(dialect, re2Engine, true);
		return this.#checkers[dialect];
	}
}

/**
 * An ajv of `dialect` with our formats and `uniqueItems`. Only a checker loads the meta-schema (some ms, and heap
 * each ajv would keep); the others compile without checking, after the checker has.
 */
function newAjv(dialect: SchemaDialect, regExp: RegExpEngine, checker = false): Ajv {
	const { addFormats, fullFormats } = loadAjvFormats();
	const Dialect = dialect === "2020-12" ? loadAjv2020() : loadAjv();
	const isRegex = fullFormats.regex as (text: string) => boolean;
	const options: Options = { ...ajvOptions(regExp), ...(checker ? {} : { meta: false, validateSchema: false }) };
	return withLinearUniqueItems(addFormats(new Dialect(options))).addFormat(
		"regex",
		(text: string) => text.length <= MAX_REGEX_FORMAT_LENGTH && isRegex(text),
	);
}

/** The options of every ajv here, the host's trusted one included; patterns go to `regExp`. */
export function ajvOptions(regExp: RegExpEngine = re2Engine): Options {
	// strictSchema catches misspelled keywords ("requried"); the type/tuple hints would only log, so they are off.
	// addUsedSchema: false keeps `$id`s out of the shared registry, so two schemas may reuse one `$id`.
	return {
		allErrors: true,
		strictSchema: true,
		strictTypes: false,
		strictTuples: false,
		addUsedSchema: false,
		code: { regExp },
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
