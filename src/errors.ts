/**
 * The one error class every layer throws, its stable codes, and the builders for messages that recur.
 * A leaf module: it imports nothing, so sandbox, runtime, progress and tool can all depend on it.
 */

/** Stable error codes. Callers match on these; message wording may improve over time. */
export type WorkflowErrorCode =
	| "meta_invalid"
	| "syntax_error"
	| "name_undeclared"
	| "not_awaited"
	| "never_called"
	| "args_invalid"
	| "agent_type_unknown"
	| "agent_options_invalid"
	| "schema_invalid"
	| "schema_unmet"
	| "agent_cap_reached"
	| "budget_exhausted"
	| "phase_options_invalid"
	| "fanout_declined"
	| "limit_memory"
	| "limit_cpu"
	| "limit_stack"
	| "limit_items"
	| "limit_value_size"
	| "script_too_large"
	| "value_not_json"
	| "determinism"
	| "unsettled"
	| "cancelled"
	| "timed_out"
	| "provider_limit"
	| "workflow_not_found"
	| "workflow_exists"
	| "workflow_nesting"
	| "limit_workflows"
	| "ask_options_invalid"
	| "ask_answer_invalid"
	| "ask_timeout"
	| "ask_unavailable"
	| "question_not_found"
	| "tool_options_invalid"
	| "tool_unavailable"
	| "tool_unknown"
	| "tool_refused"
	| "tool_failed"
	| "tool_timeout"
	| "limit_tool_calls"
	| "limit_ask_calls"
	| "agents_failed"
	| "script_error"
	| "run_id_invalid"
	| "run_not_found"
	| "run_busy"
	| "run_not_resumable"
	| "run_store"
	| "child_not_found"
	| "child_not_running"
	| "steer_message_empty"
	| "sandbox_corrupt"
	| "worktree_git_missing"
	| "worktree_not_a_repo"
	| "worktree_no_commit"
	| "worktree_branch_exists"
	| "worktree_locked"
	| "worktree_failed"
	| "worktree_remote_failed"
	| "worktree_commit_missing"
	| "cli_usage"
	| "queue_unreachable"
	| "queue_job_failed"
	| "internal";

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
	message: string;
	line?: number;
	column?: number;
	details?: WorkflowErrorDetails;
	stack?: string;
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

/** An agent type nobody defined. */
export function unknownAgentTypeError(type: string, available: readonly string[]): WorkflowError {
	const list = available.length > 0 ? available.join(", ") : "(none)";
	const bare = type.includes(":") ? type.slice(type.lastIndexOf(":") + 1) : undefined;
	if (bare) {
		return new WorkflowError(
			"agent_type_unknown",
			`Unknown agent type \`${type}\`: a plugin's agent type (\`plugin:agent\`, as Claude Code names them), and no agent type \`${bare}\` exists here to stand for it. Add an agent file \`${bare}.md\` to .pi/agents/ or .claude/agents/ (Claude Code's format is read), or use one of: ${list}`,
			{ details: { agentType: type, available: [...available] } },
		);
	}
	return new WorkflowError("agent_type_unknown", `Unknown agent type \`${type}\`. Available: ${list}`, {
		details: { agentType: type, available: [...available] },
	});
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
 * `tools` map throws this; the script gets `tool_refused` with the reason, at its call's line:column.
 */
export function toolRefusedError(reason: string): WorkflowError {
	return new WorkflowError("tool_refused", reason, { details: { reason } });
}

/** Turns anything thrown into a `WorkflowError`, marking our own bugs as `internal`. */
export function toWorkflowError(error: unknown, fallback: WorkflowErrorCode = "internal"): WorkflowError {
	if (error instanceof WorkflowError) return error;
	if (error instanceof Error) return new WorkflowError(fallback, error.message, { cause: error });
	return new WorkflowError(fallback, String(error));
}
