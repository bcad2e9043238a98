/**
 * Checks a workflow script before anything runs: the parse and header checks of meta.ts, then the static pass of
 * authoring/ over the same tree (parsed once). `checkWorkflowScript` reports every finding; `prepareWorkflow` is
 * what a run does first, failing with one error that lists them all.
 */
import {
	analyzeProgram,
	type CallRules,
	diagnosticAt,
	formatDiagnostic,
	sentence,
	splitMessage,
	type WorkflowDiagnostic,
} from "../../authoring/index.ts";
import { isWorkflowError, stripLocation, WorkflowError } from "../../errors.ts";
import { checkAgentOptions, checkPrompt } from "../agent/options.ts";
import { checkAskArguments } from "../ask/ask.ts";
import type { JsonSchema, JsonValue } from "../core/types.ts";
import {
	type ParsedWorkflow,
	type ParseWorkflowOptions,
	parseWorkflowProgram,
	readWorkflowHeader,
} from "../meta/read.ts";
import { checkLiteralSchema } from "../schema/limits.ts";
import { checkAgentRoot } from "../schema/session.ts";
import { checkPhaseOptions } from "../spend/phase-budget.ts";
import { checkToolArguments } from "../step/call.ts";

/** Options of `checkWorkflowScript`. */
export interface CheckWorkflowOptions extends ParseWorkflowOptions {
	/** The agent types the run will have: a literal `agent: "name"` outside them is reported. Default: not checked. */
	agentTypes?: readonly string[];
	/** Said after an unknown agent type's error: what the host did not read and how to change that. */
	agentTypesNote?: string;
}

/** Every problem found, in source order; `ok` when none is an error. */
export interface WorkflowCheckReport {
	ok: boolean;
	diagnostics: WorkflowDiagnostic[];
}

/**
 * Checks `source` without running it: size, syntax (explained), header, undeclared names, promises used without
 * `await`, and literal `agent()` arguments and schemas that cannot be right. Never throws for the script's faults.
 */
export function checkWorkflowScript(source: string, options: CheckWorkflowOptions = {}): WorkflowCheckReport {
	const { diagnostics } = inspect(source, options);
	return { ok: !diagnostics.some((diagnostic) => diagnostic.severity === "error"), diagnostics };
}

/** A script ready to run, and what the static pass warned of (a guarded undeclared name). */
export interface PreparedWorkflow extends ParsedWorkflow {
	/** `file:line:column message. fix`, one per warning: the run logs each at `warn` when it starts. */
	warnings: string[];
	/** An `agent()` call's literal options may fork the session's conversation (`context`/`contextMode` fork). */
	forks: boolean;
}

/**
 * Parses and checks `source` for a run: the parsed script, or a `WorkflowError` with the first error's code and
 * position, every diagnostic in `details.diagnostics`, and a message listing them all. A script with only a
 * header or syntax problem throws that error as `parseWorkflowSource` would.
 */
export function prepareWorkflow(source: string, options: CheckWorkflowOptions = {}): PreparedWorkflow {
	const seen = { forks: false };
	const { parsed, diagnostics, thrown } = inspect(source, options, seen);
	const errors = diagnostics.filter((diagnostic) => diagnostic.severity === "error");
	if (errors.length === 0 && parsed) {
		const warnings = diagnostics.map((diagnostic) => `${parsed.filename}:${formatDiagnostic(diagnostic)}`);
		return { ...parsed, warnings, forks: seen.forks };
	}
	if (thrown && errors.length === 1) throw thrown;
	throw failure(errors);
}

/** The runtime's own checks of `agent()` arguments, as the static pass applies them to literals. */
export const CALL_RULES: Omit<CallRules, "agentTypes"> = {
	checkPrompt: (prompt) => checkPrompt(prompt as JsonValue),
	checkOptions: (opts) => checkAgentOptions(opts as JsonValue),
	checkAsk: (question, opts) => {
		checkAskArguments(question as JsonValue, opts as JsonValue);
	},
	checkTool: (name, opts) => {
		checkToolArguments(name as JsonValue, null, opts as JsonValue);
	},
	checkSchema: (schema) => {
		checkAgentRoot(schema);
		checkLiteralSchema(schema as JsonSchema, "schema");
	},
	checkPhaseOptions: (options) => checkPhaseOptions(options as JsonValue),
};

function inspect(
	source: string,
	options: CheckWorkflowOptions,
	seen?: { forks: boolean },
): { parsed?: ParsedWorkflow; diagnostics: WorkflowDiagnostic[]; thrown?: WorkflowError } {
	let program: ReturnType<typeof parseWorkflowProgram>;
	try {
		program = parseWorkflowProgram(source, options);
	} catch (error) {
		return fromThrown(source, error);
	}
	let parsed: ParsedWorkflow | undefined;
	let thrown: WorkflowError | undefined;
	const diagnostics: WorkflowDiagnostic[] = [];
	try {
		parsed = readWorkflowHeader(source, program.program, program.filename);
		for (const warning of parsed.headerWarnings ?? []) {
			const { message, fix } = splitMessage(warning.message);
			diagnostics.push(diagnosticAt(source, warning.location, "meta_invalid", message, fix, "warning"));
		}
	} catch (error) {
		const header = fromThrown(source, error);
		thrown = header.thrown;
		diagnostics.push(...header.diagnostics);
	}
	const rules: CallRules = {
		...CALL_RULES,
		...(options.agentTypes ? { agentTypes: options.agentTypes } : {}),
		...(options.agentTypesNote ? { agentTypesNote: options.agentTypesNote } : {}),
		...(seen ? { checkOptions: (opts) => noteForks(opts, seen) } : {}),
	};
	diagnostics.push(...analyzeProgram(program.program, source, { rules, params: ["meta"] }));
	return { ...(parsed ? { parsed } : {}), diagnostics, ...(thrown ? { thrown } : {}) };
}

/** `CALL_RULES.checkOptions`, noting options that fork or may (a value the pass cannot know stands as null). */
function noteForks(opts: Record<string, unknown>, seen: { forks: boolean }): void {
	const context = opts.context ?? opts.contextMode;
	if (context === null || (typeof context === "string" && context.startsWith("fork"))) seen.forks = true;
	CALL_RULES.checkOptions(opts);
}

/** A header or parse error as a diagnostic (and the error itself, to rethrow unchanged). */
function fromThrown(source: string, error: unknown): { diagnostics: WorkflowDiagnostic[]; thrown: WorkflowError } {
	if (!isWorkflowError(error)) throw error;
	const text = stripLocation(error.message);
	const fix = typeof error.details?.fix === "string" ? error.details.fix : undefined;
	const { message, fix: fixText } =
		fix !== undefined && text.endsWith(fix)
			? { message: text.slice(0, text.length - fix.length).replace(/\.?\s+$/, ""), fix }
			: splitMessage(text);
	const where = error.location ?? { line: 1, column: 1 };
	const diagnostic = diagnosticAt(source, where, error.code, message, fixText);
	return { diagnostics: [diagnostic], thrown: error };
}

function failure(errors: WorkflowDiagnostic[]): WorkflowError {
	const [first] = errors as [WorkflowDiagnostic, ...WorkflowDiagnostic[]];
	const location = { line: first.line, column: first.column };
	const details = { diagnostics: errors };
	if (errors.length === 1)
		return new WorkflowError(first.code, sentence(first.message, first.fix), { location, details });
	const list = errors.map((diagnostic) => `  ${formatDiagnostic(diagnostic)}`).join("\n");
	return new WorkflowError(
		first.code,
		`The script has ${errors.length} problems; nothing ran:\n${list}\nFix them and run again`,
		{ location, details },
	);
}
