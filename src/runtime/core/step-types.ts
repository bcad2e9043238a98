/**
 * The types of `tool()` steps: what a host lends (`WorkflowTool`), what it gives back, what the script gets and how
 * a run's steps went. Re-exported by runtime/types.ts, the runtime's public vocabulary.
 */
import type { JsonValue } from "./json.ts";

/** What a host's tool gives back for one `tool()` call. */
export interface WorkflowToolOutput {
	/** The tool's text (cut at `MAX_TOOL_OUTPUT_CHARS` before the script sees it). */
	output: string;
	/** The tool ran and reported a failure (a command's non-zero exit). Default: false. */
	isError?: boolean;
	/** Structured data the tool gives (JSON; dropped when it is not JSON or larger than 64 KiB). */
	details?: unknown;
}

/**
 * One tool a host lends to `tool()`: the `tools` option of `runWorkflowScript`. `signal` fires when the call is no
 * longer wanted (its `timeoutMs`, the script's end, a cancelled run). Throw `toolRefusedError(reason)` for a call a
 * permission check refuses; any other throw is `tool_failed`.
 */
export type WorkflowTool = (params: JsonValue, signal: AbortSignal) => Promise<WorkflowToolOutput>;

/** What `tool()` resolves to in the script: plain data. */
export interface WorkflowToolResult {
	output: string;
	isError: boolean;
	details?: JsonValue;
}

/** How a run's `tool()` steps went. */
export interface WorkflowToolCounts {
	/** Calls the script made (replayed ones included). */
	calls: number;
	/** Calls whose result came from the run record. */
	replayed: number;
	/** Calls whose tool reported an error (`isError: true`, e.g. a non-zero exit). */
	errors: number;
	/** Calls that threw (unknown, refused, failed, timed out, over the limit). */
	failed: number;
}
