/**
 * The one error class every layer throws, its stable codes, and the builders for messages that recur.
 * A leaf module: it imports nothing, so sandbox, runtime, progress and tool can all depend on it.
 */

/**
 * Where in a run an error arises:
 * - `before_start`: the script cannot start (its size, header, syntax, args, an undeclared name): nothing ran, so
 *   the `workflow` tool fails the call itself rather than returning a failed run;
 * - `author`: the script asked a child for what cannot be (an agent type, options, a schema); a runner may find it
 *   too, and `agent()` throws it into the script rather than resolving to null;
 * - `guest`: the script while it runs: its own mistakes and the sandbox's limits;
 * - `child`: an agent child or the place it works (its answer, its provider, its worktree, the queue);
 * - `host`: the process around the script: the person, the caller, tools, the run store, the command line, our bugs.
 */
export type WorkflowErrorStage = "before_start" | "author" | "guest" | "child" | "host";

interface ErrorCodeFacts {
	stage: WorkflowErrorStage;
	/** A host function throws it into the script, which may catch it; uncaught, the run ends with this code. */
	catchable?: true;
}

/** Every stable error code with its stage: the one list, from which the code lists below are derived. */
export const ERROR_CODES = {
	meta_invalid: { stage: "before_start", catchable: true },
	syntax_error: { stage: "before_start", catchable: true },
	name_undeclared: { stage: "before_start" },
	not_awaited: { stage: "guest", catchable: true },
	never_called: { stage: "guest" },
	args_invalid: { stage: "before_start", catchable: true },
	agent_type_unknown: { stage: "author", catchable: true },
	agent_options_invalid: { stage: "author", catchable: true },
	fork_unavailable: { stage: "author", catchable: true },
	schema_invalid: { stage: "author", catchable: true },
	resume_not_found: { stage: "author", catchable: true },
	resume_ambiguous: { stage: "author", catchable: true },
	resume_unavailable: { stage: "author", catchable: true },
	schema_unmet: { stage: "child", catchable: true },
	schema_unsampleable: { stage: "author", catchable: true },
	agent_cap_reached: { stage: "guest", catchable: true },
	budget_exhausted: { stage: "guest", catchable: true },
	phase_options_invalid: { stage: "guest", catchable: true },
	fanout_declined: { stage: "host", catchable: true },
	limit_memory: { stage: "guest" },
	limit_cpu: { stage: "guest" },
	limit_stack: { stage: "guest" },
	limit_items: { stage: "guest", catchable: true },
	limit_value_size: { stage: "guest", catchable: true },
	script_too_large: { stage: "before_start" },
	value_not_json: { stage: "guest", catchable: true },
	determinism: { stage: "guest", catchable: true },
	unsettled: { stage: "guest" },
	cancelled: { stage: "host", catchable: true },
	timed_out: { stage: "host", catchable: true },
	provider_limit: { stage: "child", catchable: true },
	cost_cap: { stage: "host", catchable: true },
	workflow_not_found: { stage: "guest", catchable: true },
	workflow_exists: { stage: "host" },
	workflow_digest_mismatch: { stage: "host" },
	workflow_verify_failed: { stage: "host" },
	workflow_nesting: { stage: "guest", catchable: true },
	limit_workflows: { stage: "guest", catchable: true },
	ask_options_invalid: { stage: "guest", catchable: true },
	ask_answer_invalid: { stage: "host", catchable: true },
	ask_timeout: { stage: "host", catchable: true },
	ask_unavailable: { stage: "host", catchable: true },
	question_not_found: { stage: "host" },
	tool_options_invalid: { stage: "guest", catchable: true },
	tool_unavailable: { stage: "host", catchable: true },
	tool_unknown: { stage: "guest", catchable: true },
	tool_refused: { stage: "host", catchable: true },
	tool_failed: { stage: "host", catchable: true },
	tool_timeout: { stage: "host", catchable: true },
	limit_tool_calls: { stage: "guest", catchable: true },
	limit_ask_calls: { stage: "guest", catchable: true },
	agents_failed: { stage: "child" },
	script_error: { stage: "guest" },
	run_id_invalid: { stage: "host" },
	run_not_found: { stage: "host" },
	run_busy: { stage: "host" },
	run_not_resumable: { stage: "host" },
	run_store: { stage: "host" },
	grants_invalid: { stage: "host" },
	child_not_found: { stage: "host" },
	child_not_running: { stage: "host" },
	steer_message_empty: { stage: "host" },
	sandbox_corrupt: { stage: "host" },
	worktree_git_missing: { stage: "child" },
	worktree_not_a_repo: { stage: "child" },
	worktree_no_commit: { stage: "child" },
	worktree_branch_exists: { stage: "child" },
	worktree_locked: { stage: "child" },
	worktree_failed: { stage: "child" },
	worktree_remote_failed: { stage: "child" },
	worktree_commit_missing: { stage: "child" },
	cli_usage: { stage: "host" },
	eval_file_invalid: { stage: "host" },
	eval_not_found: { stage: "host" },
	compare_arms_invalid: { stage: "host" },
	blame_runs_differ: { stage: "host" },
	queue_unreachable: { stage: "child" },
	queue_job_failed: { stage: "child" },
	placement_unsatisfiable: { stage: "child" },
	internal: { stage: "host" },
} as const satisfies Record<string, ErrorCodeFacts>;

/** Stable error codes. Callers match on these; message wording may improve over time. */
export type WorkflowErrorCode = keyof typeof ERROR_CODES;

/** The stage of `code` (see `WorkflowErrorStage`); undefined for a code not in the table (a host's own, cast in). */
export function errorStage(code: WorkflowErrorCode): WorkflowErrorStage | undefined {
	return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code].stage : undefined;
}

/** The codes of one stage. */
export function codesOfStage(stage: WorkflowErrorStage): ReadonlySet<string> {
	return new Set(codesWhere((facts) => facts.stage === stage));
}

/** The codes a script's uncaught error keeps (any other error it throws ends the run as `script_error`). */
export const CATCHABLE_CODES: ReadonlySet<string> = new Set(codesWhere((facts) => facts.catchable === true));

function codesWhere(test: (facts: ErrorCodeFacts) => boolean): WorkflowErrorCode[] {
	const entries = Object.entries(ERROR_CODES) as [WorkflowErrorCode, ErrorCodeFacts][];
	return entries.filter(([, facts]) => test(facts)).map(([code]) => code);
}

/** A position in the author's own file; both counted from 1. */
export interface SourceLocation {
	line: number;
	column: number;
}

/** JSON-safe extra facts about an error: the limit and its value, the path of a bad value, the known agent types. */
export type WorkflowErrorDetails = Record<string, unknown>;

export interface WorkflowErrorOptions {
	/** Where in the author's file the error happened. */
	location?: SourceLocation;
	/** JSON-safe facts for programs; people read `message`. */
	details?: WorkflowErrorDetails;
	/** The script's stack, kept out of the message. */
	scriptStack?: string;
	cause?: unknown;
}

/** An error a user can cause (or a limit they hit), with a stable `code` and the position in their file. */
export class WorkflowError extends Error {
	override readonly name = "WorkflowError";
	readonly code: WorkflowErrorCode;
	readonly location?: SourceLocation;
	readonly details?: WorkflowErrorDetails;
	readonly scriptStack?: string;

	constructor(code: WorkflowErrorCode, message: string, options: WorkflowErrorOptions = {}) {
		super(
			withLocation(message, options.location),
			options.cause === undefined ? undefined : { cause: options.cause },
		);
		this.code = code;
		if (options.location) this.location = options.location;
		if (options.details) this.details = options.details;
		if (options.scriptStack) this.scriptStack = options.scriptStack;
	}

	/** The JSON shape used in results and events. */
	toJSON(): SerializedWorkflowError {
		return {
			code: this.code,
			message: this.message,
			...(this.location ? { line: this.location.line, column: this.location.column } : {}),
			...(this.details ? { details: this.details } : {}),
			...(this.scriptStack ? { stack: this.scriptStack } : {}),
		};
	}
}

/** A `WorkflowError` as plain JSON. */
export interface SerializedWorkflowError {
	code: WorkflowErrorCode;
	/**
	 * Where in the run it arose (`WorkflowErrorStage`): set on a run result's error, so readers need not keep code
	 * lists; absent elsewhere (events, and results recorded before it existed).
	 */
	stage?: WorkflowErrorStage;
	message: string;
	line?: number;
	column?: number;
	details?: WorkflowErrorDetails;
	stack?: string;
}

/** A run result's error: the error as JSON with its code's stage beside the code. */
export function runResultError(error: WorkflowError): SerializedWorkflowError {
	const { code, ...rest } = error.toJSON();
	const stage = errorStage(code);
	return { code, ...(stage ? { stage } : {}), ...rest };
}

/** The message of anything thrown: an Error's `message`, else the value as text. Never throws itself. */
export function errorMessage(error: unknown): string {
	try {
		return error instanceof Error ? String(error.message) : String(error);
	} catch {
		// A runner or a host may throw an object whose toString or message getter throws in turn.
		return "a value that cannot be printed";
	}
}

export function isWorkflowError(value: unknown): value is WorkflowError {
	try {
		return value instanceof WorkflowError;
	} catch {
		// A Proxy whose getPrototypeOf trap throws (a host's thrown value) is no WorkflowError.
		return false;
	}
}

/** Appends " (line:column)" the way acorn does, unless the message already ends with it. */
export function withLocation(message: string, location: SourceLocation | undefined): string {
	if (!location) return message;
	const suffix = ` (${location.line}:${location.column})`;
	return message.endsWith(suffix) ? message : `${message}${suffix}`;
}

/** Removes a trailing " (line:column)" so a message can be re-anchored. */
export function stripLocation(message: string): string {
	return message.replace(/ \(\d+:\d+\)$/, "");
}

// ---- Builders for messages that recur, so the wording stays the same everywhere ----

/** A limit was hit: say which, its value, and how to raise it. */
export function limitError(
	code: WorkflowErrorCode,
	what: string,
	limit: number | string,
	howToRaise: string,
	location?: SourceLocation,
): WorkflowError {
	return new WorkflowError(code, `${what} (limit: ${limit}). ${howToRaise}`, {
		location,
		details: { limit },
	});
}

/** A value that cannot cross the sandbox boundary, named by its path. */
export function valueNotJsonError(path: string, found: string): WorkflowError {
	return new WorkflowError(
		"value_not_json",
		`\`${path}\` is ${found}, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
		{
			details: { path, found },
		},
	);
}

/**
 * An agent type nobody defined. `note`: what the host did not read and how to change that (a project's agent files
 * skipped for want of trust), said after the list.
 */
export function unknownAgentTypeError(type: string, available: readonly string[], note?: string): WorkflowError {
	const list = available.length > 0 ? available.join(", ") : "(none)";
	const after = note ? ` ${note}` : "";
	const bare = type.includes(":") ? type.slice(type.lastIndexOf(":") + 1) : undefined;
	if (bare) {
		return new WorkflowError(
			"agent_type_unknown",
			`Unknown agent type \`${type}\`: a plugin's agent type (\`plugin:agent\`, as Claude Code names them), and no agent type \`${bare}\` exists here to stand for it. Add an agent file \`${bare}.md\` to .pi/agents/ or .claude/agents/ (Claude Code's format is read), or use one of: ${list}${after}`,
			{ details: { agentType: type, available: [...available] } },
		);
	}
	return new WorkflowError("agent_type_unknown", `Unknown agent type \`${type}\`. Available: ${list}${after}`, {
		details: { agentType: type, available: [...available] },
	});
}

/**
 * A child asked to start from the session's conversation (`context: "fork"`, by its call or its agent file) where
 * there is none: `where` says which host that is (the command line, a queue worker, a command with no history).
 */
export function forkUnavailableError(asker: string, where: string): WorkflowError {
	return new WorkflowError(
		"fork_unavailable",
		`${asker} asks to start from the session's conversation (\`context: "fork"\`), and there is none here: ${where}. Write \`context: "fork-or-fresh"\` to start fresh where there is no conversation, or \`context: "fresh"\`, or run the workflow from a pi session with the \`workflow\` tool`,
		{ details: { where } },
	);
}

/**
 * The agent type a plugin-scoped name (`plugin:agent`, Claude Code's spelling) stands for: `agent` when a type of
 * that name is available, else undefined (the caller's error says why).
 */
export function namespacedAgentType(type: string, available: readonly string[]): string | undefined {
	const at = type.lastIndexOf(":");
	if (at <= 0 || at === type.length - 1) return undefined;
	const bare = type.slice(at + 1);
	return available.includes(bare) ? bare : undefined;
}

/** The run was cancelled by its caller. */
export function cancelledError(reason?: string): WorkflowError {
	return new WorkflowError(
		"cancelled",
		reason ? `The workflow was cancelled: ${reason}` : "The workflow was cancelled",
	);
}

/**
 * A host cannot put an `ask()` question to anyone (print mode, no terminal): `reason` says why. An ask handler may
 * throw this; the runtime gives the question's `default` instead, or rethrows it naming the question.
 */
export function askUnavailableError(reason: string): WorkflowError {
	return new WorkflowError("ask_unavailable", reason, { details: { reason } });
}

/**
 * A host's tool would not run a `tool()` call (a permission hook or gate said no): `reason` says why. A tool in the
 * `tools` map throws this; the script gets `tool_refused` with the reason, at its call's line:column. `advice`: what
 * to do, when it is not a permission hook's to decide. Default: the session's permission hooks.
 */
export function toolRefusedError(reason: string, advice?: string): WorkflowError {
	return new WorkflowError("tool_refused", reason, { details: { reason, ...(advice ? { advice } : {}) } });
}

/**
 * A dry run (or a replay test) could not make up a value for a schema without a model: `keyword` at `path` (a JSON
 * pointer into the schema) asks for `what`; `advice` says what to change. A real run is not affected.
 */
export function schemaUnsampleableError(keyword: string, path: string, what: string, advice: string): WorkflowError {
	return new WorkflowError(
		"schema_unsampleable",
		`a dry run cannot make up a value for this schema: \`${keyword}\` at ${path} ${what}. A real run is not affected: a child answers it. To dry-run it, ${advice}, or (for \`meta.args\`) give the args`,
		{ details: { keyword, path } },
	);
}

/** Turns anything thrown into a `WorkflowError`, marking our own bugs as `internal`. */
export function toWorkflowError(error: unknown, fallback: WorkflowErrorCode = "internal"): WorkflowError {
	if (error instanceof WorkflowError) return error;
	if (error instanceof Error) return new WorkflowError(fallback, error.message, { cause: error });
	return new WorkflowError(fallback, String(error));
}

/** How a person reads call `index` (0-based in data and events): `#1` for a run's first call. */
export function callNumber(index: number): string {
	return `#${index + 1}`;
}

/** The 0-based call index a person's `#3` or `3` names (as `callNumber` writes it); undefined for anything else. */
export function callIndexOf(text: string): number | undefined {
	const match = /^#?(\d+)$/.exec(text.trim());
	const n = match ? Number(match[1]) : 0;
	return n >= 1 ? n - 1 : undefined;
}
