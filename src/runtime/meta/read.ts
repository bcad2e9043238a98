/**
 * Reads a workflow script without running it: size limit, syntax (acorn), the forbidden module syntax, the literal
 * `export const meta = {…}` header and its shape, and the body the sandbox evaluates with every position unchanged.
 */
import type { ExportNamedDeclaration, Expression, Node, Program, VariableDeclaration, VariableDeclarator } from "acorn";
import {
	type AnyNode,
	explainSyntaxError,
	exportAdvice,
	markdownFence,
	type SyntaxExplanation,
	sentence,
} from "../../authoring/index.ts";
import { isWorkflowError, limitError, type SourceLocation, stripLocation, WorkflowError } from "../../errors.ts";
import type { WorkflowMeta } from "../core/types.ts";
import { checkSchema } from "../schema/limits.ts";
import { SchemaSession, type SchemaValidation } from "../schema/session.ts";
import { loadAcorn } from "./acorn.ts";
import { nodeLocation, readMetaLiteral } from "./literal.ts";
import { watchScriptGoal } from "./script-goal.ts";
import { type MetaWarning, validateMetaShape } from "./shape.ts";

/** Options of `parseWorkflowSource`. */
export interface ParseWorkflowOptions {
	/** Name of the script in errors and stacks. Default: "workflow.js". */
	filename?: string;
	/** Largest script accepted, in UTF-8 bytes. Default: 512 KiB. */
	maxScriptBytes?: number;
}

/** A script that passed every static check. */
export interface ParsedWorkflow {
	meta: WorkflowMeta;
	/**
	 * The code to evaluate: the source with the header blanked and wrapped as `(async (meta) => {…})(<meta>)`,
	 * so every line:column of the author's code is the same as in the file. Its completion value is a promise.
	 */
	body: string;
	filename: string;
	/** Where `meta.args` is written, for the errors of compiling it (which happens when the run starts). */
	argsLocation?: SourceLocation;
	/** Header keys this runtime does not read (another runtime's; still in `meta`); absent when none. */
	headerWarnings?: MetaWarning[];
}

/** Options of `validateArgs`. */
export interface ValidateArgsOptions {
	/** Holds the compiled `meta.args` (a run's session). Default: a session of its own, disposed when done. */
	session?: SchemaSession;
	/** Where `meta.args` is written: compile errors are `meta_invalid` at this position. */
	location?: SourceLocation;
}

/** The outcome of `checkWorkflowSource`. */
export type WorkflowCheckResult = { ok: true; meta: WorkflowMeta } | { ok: false; error: WorkflowError };

/** Default of `ParseWorkflowOptions.maxScriptBytes`. */
export const DEFAULT_MAX_SCRIPT_BYTES = 512 * 1024;
/** Default of `ParseWorkflowOptions.filename`. */
export const DEFAULT_WORKFLOW_FILENAME = "workflow.js";

/** Opens the body; written inside the blanked header. `async(meta)=>` must stay on one line, hence no spaces. */
const BODY_OPEN = "(async(meta)=>{";
const GLOBALS = "agent, parallel, pipeline, phase, log, workflow";
const MISSING_META = "A workflow must start with `export const meta = { name, description }`";

/**
 * Parses and checks a workflow script. Throws `WorkflowError`: `script_too_large`, `syntax_error` (acorn's message,
 * 1-based column, and forbidden `import`/`export`), or `meta_invalid` (naming the path, the construct and its position).
 */
export function parseWorkflowSource(source: string, options: ParseWorkflowOptions = {}): ParsedWorkflow {
	const { program, filename } = parseWorkflowProgram(source, options);
	return readWorkflowHeader(source, program, filename);
}

/**
 * The first half of `parseWorkflowSource`: size, syntax and module syntax, giving acorn's tree (which the static
 * pass reads too, so a script is parsed once). Throws `script_too_large` or `syntax_error`.
 */
export function parseWorkflowProgram(
	source: string,
	options: ParseWorkflowOptions = {},
): { program: Program; filename: string } {
	const { filename, maxScriptBytes } = checkOptions(source, options);
	const bytes = Buffer.byteLength(source, "utf8");
	if (bytes > maxScriptBytes) {
		throw limitError(
			"script_too_large",
			`The workflow script is ${bytes} bytes`,
			maxScriptBytes,
			"Shorten it, or raise `limits.maxScriptBytes`",
		);
	}
	return { program: parseProgram(source, filename), filename };
}

/** The second half of `parseWorkflowSource`: the header of a parsed script, and the body to run. Throws `meta_invalid`. */
export function readWorkflowHeader(source: string, program: Program, filename: string): ParsedWorkflow {
	const header = findHeader(program);
	const init = header.declarator.init as Expression;
	const literal = readMetaLiteral(init, source);
	const found: MetaWarning[] = [];
	const meta = validateMetaShape(literal, found);
	const warnings = found.length > 0 ? { headerWarnings: found } : {};
	if (meta.args === undefined) return { meta, body: buildBody(source, header.statement, meta), filename, ...warnings };
	const argsLocation = nodeLocation(literal.nodes.get("/args")?.value ?? init);
	checkArgsSchema(meta.args, argsLocation);
	return { meta, body: buildBody(source, header.statement, meta), filename, argsLocation, ...warnings };
}

/** Runs the static checks of `parseWorkflowSource` and reports instead of throwing; for checking before running. */
export function checkWorkflowSource(source: string, options: ParseWorkflowOptions = {}): WorkflowCheckResult {
	try {
		return { ok: true, meta: parseWorkflowSource(source, options).meta };
	} catch (error) {
		if (isWorkflowError(error)) return { ok: false, error };
		throw error;
	}
}

/**
 * Checks a run's `args` against `meta.args` (compiled and checked in the schema worker); rejects with `args_invalid`
 * listing every problem, and `details.errors` as `SchemaIssue`s, or `meta_invalid` when `meta.args` does not
 * compile. Without `meta.args` any args pass. Missing args are checked as `{}` when the schema's root is an object,
 * so a schema without required properties accepts a call without args.
 */
export async function validateArgs(
	meta: WorkflowMeta,
	args: unknown,
	options: ValidateArgsOptions = {},
): Promise<void> {
	if (meta.args === undefined) return;
	const value = args === undefined && meta.args.type === "object" ? {} : args;
	const session = options.session ?? new SchemaSession();
	let result: SchemaValidation;
	try {
		const compiled = await asHeaderError(() => session.compile(meta.args, { name: "meta.args" }), options.location);
		try {
			result = await compiled.validate(value, { root: "args" });
		} finally {
			session.release(compiled);
		}
	} finally {
		if (!options.session) session.dispose();
	}
	if (result.ok) return;
	throw new WorkflowError(
		"args_invalid",
		`The args do not match \`meta.args\` of workflow \`${meta.name}\`: ${result.errors}`,
		{ details: { errors: result.issues } },
	);
}

function checkOptions(source: unknown, options: ParseWorkflowOptions): { filename: string; maxScriptBytes: number } {
	if (typeof source !== "string") throw new TypeError(`Expected \`source\` to be a string, got ${typeof source}`);
	const filename = options.filename ?? DEFAULT_WORKFLOW_FILENAME;
	if (typeof filename !== "string")
		throw new TypeError(`Expected \`filename\` to be a string, got ${typeof filename}`);
	const maxScriptBytes = options.maxScriptBytes ?? DEFAULT_MAX_SCRIPT_BYTES;
	if (!Number.isInteger(maxScriptBytes) || maxScriptBytes <= 0) {
		throw new TypeError(
			`Expected \`maxScriptBytes\` to be a positive integer, got \`${String(maxScriptBytes)}\` (${typeof maxScriptBytes})`,
		);
	}
	return { filename, maxScriptBytes };
}

function parseProgram(source: string, filename: string): Program {
	const fence = markdownFence(source);
	if (fence) throw explained(source, fence, filename);
	// acorn reads a module, QuickJS runs a classic script: the forms they read differently are refused (script-goal.ts).
	const goal = watchScriptGoal(source);
	let program: Program;
	try {
		program = loadAcorn().parse(source, {
			ecmaVersion: "latest",
			sourceType: "module",
			allowAwaitOutsideFunction: true,
			allowReturnOutsideFunction: true,
			locations: true,
			...goal?.options,
		});
	} catch (error) {
		const loc = (error as { loc?: { line: number; column: number } }).loc;
		if (!(error instanceof SyntaxError) || !loc) throw error;
		// Such a form is what the parse tripped on (`-->` never parses in a module), or it comes first.
		const differential = goal?.found((error as { pos?: number }).pos);
		if (differential) throw differential;
		const explanation = explainSyntaxError(source, {
			message: error.message,
			pos: (error as SyntaxError & { pos: number }).pos,
		});
		throw explained(source, explanation, filename, error);
	}
	const differential = goal?.found();
	if (differential) throw differential;
	rejectModuleSyntax(program, source);
	return program;
}

/** A `syntax_error` saying what the parse failure most likely is and the fix, at the author's line:column. */
function explained(source: string, explanation: SyntaxExplanation, filename: string, cause?: unknown): WorkflowError {
	const { line, column } = loadAcorn().getLineInfo(source, explanation.offset);
	return new WorkflowError("syntax_error", sentence(explanation.message, explanation.fix), {
		location: { line, column: column + 1 },
		details: { filename, ...(explanation.fix ? { fix: explanation.fix } : {}) },
		...(cause === undefined ? {} : { cause }),
	});
}

interface Header {
	statement: ExportNamedDeclaration;
	declarator: VariableDeclarator;
}

/** The `export const meta = …` statement declaring `meta`, if `node` is one (whatever its kind or siblings). */
function metaExport(node: Node): { statement: ExportNamedDeclaration; declaration: VariableDeclaration } | undefined {
	if (node.type !== "ExportNamedDeclaration") return undefined;
	const statement = node as ExportNamedDeclaration;
	const declaration = statement.declaration;
	if (declaration?.type !== "VariableDeclaration") return undefined;
	const declaresMeta = declaration.declarations.some(
		(item) => item.id.type === "Identifier" && item.id.name === "meta",
	);
	return declaresMeta ? { statement, declaration } : undefined;
}

function findHeader(program: Program): Header {
	const first = program.body[0];
	const found = first ? metaExport(first) : undefined;
	if (!found) {
		throw new WorkflowError("meta_invalid", MISSING_META, {
			location: first ? nodeLocation(first) : { line: 1, column: 1 },
		});
	}
	const { statement, declaration } = found;
	if (declaration.kind !== "const") {
		const message = `\`meta\` must be declared with \`const\`, found \`${declaration.kind}\``;
		throw new WorkflowError("meta_invalid", message, { location: nodeLocation(declaration) });
	}
	const isMeta = (item: VariableDeclarator) => item.id.type === "Identifier" && item.id.name === "meta";
	const stray = declaration.declarations.find((item) => !isMeta(item));
	if (stray) {
		throw new WorkflowError(
			"meta_invalid",
			"`export const meta` must declare `meta` alone. Move the other declaration to its own statement",
			{ location: nodeLocation(stray) },
		);
	}
	const declarator = declaration.declarations[0] as VariableDeclarator;
	return { statement, declarator };
}

/** Rejects `import`, `import()`, `import.meta` and any `export` besides the header, in source order. */
function rejectModuleSyntax(program: Program, source: string): void {
	for (const [index, statement] of program.body.entries()) {
		if (statement.type === "ImportDeclaration") throw moduleSyntax(`\`import\` is not available`, statement);
		if (metaExport(statement)) {
			if (index === 0) continue;
			throw new WorkflowError(
				"meta_invalid",
				"`export const meta` must be the first statement of the workflow. Move it to the top",
				{
					location: nodeLocation(statement),
				},
			);
		}
		if (statement.type.startsWith("Export")) {
			const { message, fix } = exportAdvice(statement as AnyNode, program as AnyNode, source);
			throw new WorkflowError("syntax_error", sentence(message, fix), {
				location: nodeLocation(statement),
				details: { fix },
			});
		}
	}
	// Walking the whole tree costs more than parsing it, and almost no script has the word at all.
	if (!source.includes("import")) return;
	const dynamic = findFirst(program, (node) => node.type === "ImportExpression" || isImportMeta(node));
	if (dynamic) {
		throw moduleSyntax(
			dynamic.type === "ImportExpression" ? "`import()` is not available" : "`import.meta` is not available",
			dynamic,
		);
	}
}

function moduleSyntax(what: string, node: Node): WorkflowError {
	const fix = `Delete it: the globals ${GLOBALS} are already there; for files, the network or processes, ask an agent to do it (\`await agent("Read package.json and return its version")\`)`;
	return new WorkflowError("syntax_error", `${what} in workflow scripts. ${fix}`, {
		location: nodeLocation(node),
		details: { fix },
	});
}

function isImportMeta(node: Node): boolean {
	return node.type === "MetaProperty" && (node as Node & { meta: { name: string } }).meta.name === "import";
}

/** The matching node that starts first; iterative, so deeply nested code cannot overflow the stack. */
function findFirst(root: Node, matches: (node: Node) => boolean): Node | undefined {
	let first: Node | undefined;
	const stack: Node[] = [root];
	const isNode = (value: unknown): value is Node =>
		typeof value === "object" && value !== null && typeof (value as Node).type === "string";
	for (let node = stack.pop(); node; node = stack.pop()) {
		if (matches(node)) {
			if (!first || node.start < first.start) first = node;
			continue;
		}
		for (const key in node) {
			if (key === "loc") continue;
			const value: unknown = (node as unknown as Record<string, unknown>)[key];
			if (Array.isArray(value)) {
				for (const item of value) if (isNode(item)) stack.push(item);
			} else if (isNode(value)) stack.push(value);
		}
	}
	return first;
}

/** The host's checks of `meta.args` (limits, patterns, references), at parse time; ajv's come when the run starts. */
function checkArgsSchema(schema: NonNullable<WorkflowMeta["args"]>, location: SourceLocation): void {
	try {
		checkSchema(schema, "meta.args");
	} catch (error) {
		throw headerError(error, location);
	}
}

/** Runs `compile`, turning its `schema_invalid` into the header's `meta_invalid` at `location`. */
async function asHeaderError<T>(compile: () => Promise<T>, location: SourceLocation | undefined): Promise<T> {
	try {
		return await compile();
	} catch (error) {
		throw headerError(error, location);
	}
}

function headerError(error: unknown, location: SourceLocation | undefined): unknown {
	if (!isWorkflowError(error) || error.code !== "schema_invalid") return error;
	return new WorkflowError("meta_invalid", stripLocation(error.message), {
		...(location ? { location } : {}),
		details: error.details,
	});
}

/**
 * Blanks the header with spaces (line breaks kept), writes `BODY_OPEN` into the blank, and closes the call after the
 * last line. A leading `#!` line is blanked too. Nothing before or after the header moves.
 */
function buildBody(source: string, header: Node, meta: WorkflowMeta): string {
	const blank = (text: string) => text.replace(/[^\n\r\u2028\u2029]/g, " ");
	const hashbang = /^#![^\n\r\u2028\u2029]*/.exec(source)?.[0] ?? "";
	const before = blank(hashbang) + source.slice(hashbang.length, header.start);
	let region = blank(source.slice(header.start, header.end));
	// Normally the header's first line holds the opener; a header broken over many short lines may need a later one.
	const slot = /[^\n\r\u2028\u2029]+/g;
	let match: RegExpExecArray | null = slot.exec(region);
	while (match && match[0].length < BODY_OPEN.length) match = slot.exec(region);
	if (!match) {
		throw new WorkflowError("meta_invalid", "Write `export const meta = {` on one line", {
			location: nodeLocation(header),
		});
	}
	region = region.slice(0, match.index) + BODY_OPEN + region.slice(match.index + BODY_OPEN.length);
	// U+2028/9 are escaped so the closing line stays one line for any engine.
	const metaJson = JSON.stringify(meta)
		.replace(/\u2028/g, "\\u2028")
		.replace(/\u2029/g, "\\u2029");
	return `${before}${region}${source.slice(header.end)}\n})(${metaJson})`;
}
