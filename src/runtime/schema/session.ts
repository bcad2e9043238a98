/**
 * JSON Schemas a script supplies, compiled and validated in the schema worker after the host's own bounded checks,
 * held per session (a run, a child) and given back when it ends; our own schemas compile on the host. Also the
 * lenient reading of a JSON object out of an agent's text answer.
 */
import type { Ajv, ValidateFunction } from "ajv";
import { WorkflowError } from "../../errors.ts";
import type { JsonSchema, JsonValue } from "../core/types.ts";
import { ajvOptions, type CompileJob } from "./ajv.ts";
import { describeType, formatIssues, type SchemaValidation, toIssues } from "./issues.ts";
import { loadAjv } from "./lazy-deps.ts";
import { type CheckedSchema, checkSchema } from "./limits.ts";
import { type SchemaWorker, schemaWorker } from "./schema-worker-host.ts";

export { formatIssues, type SchemaIssue, type SchemaValidation } from "./issues.ts";

/** Options of `CompiledSchema.validate`. */
export interface SchemaValidateOptions {
	/** Name of the validated value in messages (`output.title`). Default: "output". */
	root?: string;
}

/** Schemas out of use a session keeps compiled for the next call with the same contents. */
const KEPT_IDLE = 16;

/** A compiled validator, held by the session that compiled it until released or the session is disposed. */
export interface CompiledSchema {
	/** The schema's contents as sorted-key JSON: what identifies it in the session and the worker. */
	readonly key: string;
	/** The private deep copy that was compiled, so later changes to the caller's object cannot affect it. */
	readonly schema: JsonSchema;
	/**
	 * Checks `value` in the schema worker, or on the host when the check's work is bounded before it starts
	 * (host-check.ts). Contract: resolves for an invalid value; rejects with `limit_cpu` or
	 * `limit_memory` when the check was stopped, and `internal` for our own faults.
	 */
	validate(value: unknown, options?: SchemaValidateOptions): Promise<SchemaValidation>;
}

/** A schema a session holds: its compile, its job, the uses not yet released, the JSON text it last came as. */
interface SessionEntry {
	compiled: Promise<CompiledSchema>;
	job: CompileJob;
	uses: number;
	text?: string;
}

/** Options of `SchemaSession.compile`. */
export interface CompileSchemaOptions {
	/** How the schema is named in error messages. Default: "schema". */
	name?: string;
}

/**
 * The schemas one owner (a run, a pi child) compiled, by contents: the same contents compile once while in use.
 * Each `compile` is one use until `release`; a few schemas no longer in use are kept for the next call with the
 * same contents (idle in the worker, which may evict them when it needs room), the rest are dropped from the
 * worker, and `dispose()` drops them all when the owner ends.
 */
export class SchemaSession {
	readonly #worker: SchemaWorker;
	/** In the order of last use, so the first idle entry is the one unused longest. */
	readonly #entries = new Map<string, SessionEntry>();
	/** The JSON text a held schema last came as (`compileParsed`), to its key: one text per entry, gone with it. */
	readonly #byText = new Map<string, string>();
	#disposed = false;

	constructor(worker: SchemaWorker = schemaWorker) {
		this.#worker = worker;
	}

	/** Schemas the session holds, in use or kept. */
	get size(): number {
		return this.#entries.size;
	}

	/**
	 * Compiles any JSON Schema, as one use until `release`. Throws `schema_invalid` synchronously for what the host's
	 * checks find (not plain JSON, a limit, lookaround, a remote `$ref`); rejects with `schema_invalid` for what the
	 * worker finds (ajv, RE2).
	 */
	compile(schema: unknown, options: CompileSchemaOptions = {}): Promise<CompiledSchema> {
		this.#checkOpen();
		const name = options.name ?? "schema";
		return this.#hold(checkSchema(schema, name), name).compiled;
	}

	/** Compiles the schema of an `agent()` call: a JSON Schema whose root is `type: "object"`. As `compile`. */
	compileAgent(schema: unknown): Promise<CompiledSchema> {
		checkAgentRoot(schema);
		return this.compile(schema);
	}

	/**
	 * `compileAgent` for a schema that `JSON.parse` made (a sandbox call's argument), returning its key at once too.
	 * Such a value is plain data that its JSON text describes whole, so the text of a schema the session holds
	 * finds it without the host's checks again (a script's inline literal is a new object each call).
	 */
	compileParsed(schema: JsonValue): { key: string; compiled: Promise<CompiledSchema> } {
		this.#checkOpen();
		const text = JSON.stringify(schema);
		const key = this.#byText.get(text);
		const known = key === undefined ? undefined : this.#entries.get(key);
		if (key !== undefined && known) return { key, compiled: this.#use(key, known) };
		checkAgentRoot(schema);
		const entry = this.#hold(checkSchema(schema, "schema"), "schema");
		const previous = entry.text;
		if (previous !== undefined && previous !== text) this.#byText.delete(previous);
		entry.text = text;
		this.#byText.set(text, entry.job.key);
		return { key: entry.job.key, compiled: entry.compiled };
	}

	/** One more use of the checked schema: the session's entry for its contents, made (compiling) if there is none. */
	#hold({ copy, key, dialect }: CheckedSchema, name: string): SessionEntry {
		const known = this.#entries.get(key);
		if (known) {
			this.#use(key, known);
			return known;
		}
		const job: CompileJob = { key, schema: copy, dialect, name };
		const worker = this.#worker;
		const compiled = worker.compile(job).then(
			(): CompiledSchema => ({
				key,
				schema: copy,
				validate: (value, validateOptions = {}) => worker.validate(job, value, validateOptions.root ?? "output"),
			}),
		);
		const entry: SessionEntry = { compiled, job, uses: 1 };
		this.#entries.set(key, entry);
		// A schema that failed is not held: the next call with it reports the same error again.
		compiled.catch(() => {
			if (this.#entries.get(key) === entry) this.#forget(key, entry);
		});
		return entry;
	}

	#checkOpen(): void {
		if (this.#disposed) throw new WorkflowError("internal", "A schema session was used after it was disposed");
	}

	/** A held entry used again, now the last used. */
	#use(key: string, entry: SessionEntry): Promise<CompiledSchema> {
		if (entry.uses++ === 0) this.#reuse(entry.job);
		this.#entries.delete(key);
		this.#entries.set(key, entry);
		return entry.compiled;
	}

	#forget(key: string, entry: SessionEntry): void {
		this.#entries.delete(key);
		if (entry.text !== undefined) this.#byText.delete(entry.text);
	}

	/** Ends one use of `compiled`; past `KEPT_IDLE` schemas out of use, the one unused longest is dropped. */
	release(compiled: CompiledSchema): void {
		const entry = this.#entries.get(compiled.key);
		if (!entry || entry.uses === 0) return;
		if (--entry.uses === 0) this.#idle(compiled.key, entry.compiled);
		let idle = 0;
		for (const other of this.#entries.values()) if (other.uses === 0) idle++;
		for (const [key, other] of this.#entries) {
			if (idle <= KEPT_IDLE) break;
			if (other.uses > 0) continue;
			this.#forget(key, other);
			this.#drop(key, other.compiled, false);
			idle--;
		}
	}

	/** Releases every schema of the session; harmless twice. */
	dispose(): void {
		if (this.#disposed) return;
		this.#disposed = true;
		for (const [key, entry] of this.#entries) this.#drop(key, entry.compiled, entry.uses > 0);
		this.#entries.clear();
		this.#byText.clear();
	}

	/** A kept schema used again: in use in the worker again (compiled again there if it was evicted). */
	#reuse(job: CompileJob): void {
		// A new hold in use, then the idle one goes; if the compile fails, the idle hold stays and a check sends the
		// schema along.
		this.#worker.compile(job).then(
			() => this.#worker.release(job.key),
			() => {},
		);
	}

	#idle(key: string, compiled: Promise<CompiledSchema>): void {
		compiled.then(
			() => this.#worker.idle(key),
			() => {},
		);
	}

	#drop(key: string, compiled: Promise<CompiledSchema>, inUse: boolean): void {
		compiled.then(
			() => {
				if (inUse) this.#worker.idle(key);
				this.#worker.release(key);
			},
			() => {},
		);
	}
}

/** Throws `schema_invalid` unless `schema` is an object schema with `type: "object"` at its root. */
export function checkAgentRoot(schema: unknown): void {
	if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
		throw new WorkflowError(
			"schema_invalid",
			`\`schema\` must be a JSON Schema object with \`type: "object"\`, found ${describeType(schema)}`,
		);
	}
	const type = (schema as { type?: unknown }).type;
	if (type !== "object") {
		const found = type === undefined ? "no `type`" : `\`type: ${JSON.stringify(type)}\``;
		throw new WorkflowError(
			"schema_invalid",
			`\`schema\` must have \`type: "object"\` at its root, found ${found}. Wrap other values in an object property`,
		);
	}
}

/** A validator of one of this package's own schemas, synchronous, on the host. */
export interface TrustedSchema {
	validate(value: unknown, options?: SchemaValidateOptions): SchemaValidation;
}

/**
 * Compiles one of this package's own schemas on the host (cached): it is known to be valid, so it is not checked
 * against JSON Schema's meta-schema, whose first use costs tens of ms.
 */
export function compileTrustedSchema(schema: JsonSchema): TrustedSchema {
	const key = JSON.stringify(schema);
	let validateFn = trustedValidators.get(key);
	if (!validateFn) {
		const TrustedAjv = loadAjv();
		trusted ??= new TrustedAjv({ ...ajvOptions(), validateSchema: false });
		validateFn = trusted.compile(schema);
		trustedValidators.set(key, validateFn);
	}
	const compiled = validateFn;
	return {
		validate(value, options = {}) {
			if (compiled(value)) return { ok: true, value };
			const issues = toIssues(compiled.errors ?? [], value, options.root ?? "output");
			return { ok: false, errors: formatIssues(issues), issues };
		},
	};
}

/**
 * Reads a JSON object out of an agent's text: the whole text, else a ```json (or plain ```) fenced block, else the
 * first balanced `{…}` in surrounding prose that parses. Returns undefined when there is none.
 */
export function parseStructuredText(text: string): unknown | undefined {
	return parseBare(text.trim(), true) ?? parseFenced(text) ?? parseFirstObject(text);
}

// ---- trusted schemas ----

let trusted: Ajv | undefined;
/** Only this package's own schemas, a handful: never grows with what scripts send. */
const trustedValidators = new Map<string, ValidateFunction>();

// ---- structured text ----

/** Characters the prose scan may visit in all, so an answer full of unclosed `{` costs bounded time. */
const SCAN_BUDGET = 4_000_000;

function isPlainObject(value: unknown): boolean {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseBare(text: string, unwrapString: boolean): unknown | undefined {
	if (!/^[{"]/.test(text)) return undefined;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	// Some models double-encode: the answer is a JSON string that holds the object.
	if (typeof value === "string" && unwrapString) return parseBare(value.trim(), false);
	return isPlainObject(value) ? value : undefined;
}

function parseFenced(text: string): unknown | undefined {
	const blocks = fencedBlocks(text);
	// A block tagged json wins over an untagged one, whatever their order.
	const ordered = [
		...blocks.filter((block) => /^(json|jsonc|json5)$/i.test(block.tag)),
		...blocks.filter((block) => block.tag === ""),
	];
	for (const block of ordered) {
		const value = parseBare(block.content.trim(), false);
		if (value !== undefined) return value;
	}
	return undefined;
}

/** Markdown fences, found line by line (a regex here could backtrack badly on a long answer full of backticks). */
function fencedBlocks(text: string): { tag: string; content: string }[] {
	const blocks: { tag: string; content: string }[] = [];
	let open: { tag: string; lines: string[] } | undefined;
	for (const line of text.split(/\r?\n/)) {
		const trimmed = line.trim();
		if (!open) {
			if (trimmed.startsWith("```")) open = { tag: trimmed.slice(3).trim().split(/\s/)[0] ?? "", lines: [] };
		} else if (trimmed.endsWith("```")) {
			open.lines.push(trimmed.slice(0, -3));
			blocks.push({ tag: open.tag, content: open.lines.join("\n") });
			open = undefined;
		} else {
			open.lines.push(line);
		}
	}
	return blocks;
}

function parseFirstObject(text: string): unknown | undefined {
	let budget = SCAN_BUDGET;
	for (let start = text.indexOf("{"); start !== -1 && budget > 0; start = text.indexOf("{", start + 1)) {
		const end = balancedEnd(text, start, budget);
		budget -= (end === -1 ? Math.min(text.length, start + budget) : end + 1) - start;
		const value = end === -1 ? undefined : parseBare(text.slice(start, end + 1), false);
		if (value !== undefined) return value;
	}
	return undefined;
}

/** Index of the `}` closing the `{` at `start`, skipping braces in JSON strings; -1 if it does not close within `limit`. */
function balancedEnd(text: string, start: number, limit: number): number {
	let depth = 0;
	let inString = false;
	const stop = Math.min(text.length, start + limit);
	for (let index = start; index < stop; index++) {
		const char = text[index];
		if (inString) {
			if (char === "\\") index++;
			else if (char === '"') inString = false;
		} else if (char === '"') inString = true;
		else if (char === "{") depth++;
		else if (char === "}" && --depth === 0) return index;
	}
	return -1;
}
