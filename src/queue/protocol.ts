/**
 * What the host and the workers agree on: the queue's name, a job's id, what a job carries (the request and the
 * child's plan the host made), what comes back (progress, the result), and the control channel (stop, steer, pause,
 * skip, restart). Pi-free: the host half of the queue lives beside the runtime.
 */
import type { RunProvenance } from "../children/frame.ts";
import type { SerializedWorkflowError } from "../errors.ts";
import type { WorkflowPlacement } from "../runtime/core/placement.ts";
import type {
	JsonValue,
	WorkflowAgentChild,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowTraceContext,
} from "../runtime/core/types.ts";
import type { RemoteWorkspaceResult } from "../worktree/index.ts";

/** The BullMQ queue children go through unless `queueName` says otherwise. */
export const DEFAULT_QUEUE_NAME = "pi-workflows";

/** Version of the job's shape: a worker refuses a job of another version with that cause. */
export const JOB_VERSION = 1;

/**
 * What the host decided for the child before it is queued: its resolved agent type (the agent file as data: system
 * prompt, tools, model, thinking, `max_turns`, `stall_ms`, …) and the session's defaults. The worker resolves the
 * model names against its own pi (its auth and models).
 */
export interface QueueChildPlan {
	/** The agent type's config, as `src/pi/agents` reads it (JSON). */
	agentType: { name: string } & Record<string, JsonValue | undefined>;
	/** `provider/id` the child runs on when neither the type nor the call names one (the host's default). */
	defaultModel?: string;
	/** Thinking level when neither the type nor the call names one. */
	defaultThinking?: string;
	/** The host's stall watchdog default, in ms. */
	stallMs?: number;
	/** Things the host wants in the child's result (e.g. the parent session's tools it cannot lend). */
	warnings?: string[];
	/** The host trusts the run's project: the child may load its pi resources (skills, `.pi/SYSTEM.md`). Absent: no. */
	projectTrusted?: boolean;
	/** Who the run's children speak for, as the host knows it: the worker frames the child with it. Absent: no frame. */
	provenance?: RunProvenance;
	/** The agent file's `placement:`; the call's own `placement` wins field by field. Absent: none. */
	placement?: WorkflowPlacement;
}

/** One job: one attempt of one `agent()` call. */
export interface QueueJobData {
	version: number;
	runId: string;
	request: WorkflowAgentRequest;
	plan: QueueChildPlan;
	/** Who queued it (host name and pid), for people reading the queue. */
	host: string;
	/** The run's commit and where its directory is in the repository: a worker with `--repo` makes a worktree of it. */
	workspace?: { commit: string; subdir: string };
	/**
	 * The host's attempt span as W3C trace context, when the run is traced: the worker's spans for the child are its
	 * children, so the run is one trace across machines (a job moved to another worker keeps it).
	 */
	trace?: WorkflowTraceContext;
	/** The labels a worker must have to run it (the job's queue says the same): a worker without them gives it back. */
	placement?: { labels: string[]; prefer: string[] };
}

/** What a worker returns for a job: the child's result, or the author error the runner threw. */
export interface QueueJobReturn {
	result?: WorkflowAgentResult;
	thrown?: SerializedWorkflowError;
	/** The worker that ran it (its `--name`, else host and pid). */
	worker: string;
	/** The worker has `--repo` (so what the run's commit warns of concerns it). */
	repo?: boolean;
	/** What the worker says of every child it runs (no `--repo`): the host warns once per run. */
	notes?: string[];
	/** A child that worked in a worktree (`--repo`): what became of it, for the host to fetch its branch. */
	workspace?: { result: RemoteWorkspaceResult; base: string; path: string };
}

/** What a control message may ask of a child. */
export const CONTROL_ACTIONS = ["stop", "steer", "pause", "skip", "restart"] as const;

/** A message on the control channel, for the worker running `jobId`. */
export interface QueueControlMessage {
	jobId: string;
	action: (typeof CONTROL_ACTIONS)[number];
	text?: string;
}

/**
 * A message off the control channel, checked: the message, or what is wrong with it. Anyone who can publish on the
 * channel reaches every worker, and a newer host may send actions this worker does not know.
 */
export function readControlMessage(text: string): QueueControlMessage | { problem: string } {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { problem: "it is not JSON" };
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "it is not an object" };
	const { jobId, action, text: said } = value as Record<string, unknown>;
	if (typeof jobId !== "string") return { problem: "its jobId is not a string" };
	if (typeof action !== "string" || !(CONTROL_ACTIONS as readonly string[]).includes(action)) {
		const shown = typeof action === "string" ? JSON.stringify(action.slice(0, 40)) : typeof action;
		return { problem: `its action ${shown} is not one of ${CONTROL_ACTIONS.join(", ")}` };
	}
	if (said !== undefined && typeof said !== "string") return { problem: "its text is not a string" };
	return { jobId, action: action as QueueControlMessage["action"], ...(said !== undefined ? { text: said } : {}) };
}

/** The job of attempt `attempt` of call `key` in run `runId`: the same on a resumed host, so it finds the job. */
export function jobIdOf(runId: string, key: string, attempt: number): string {
	// BullMQ refuses `:` in custom ids (its key separator).
	return `${runId}.${key}.${attempt}`.replaceAll(":", "_");
}

/** The pub/sub channel workers watch for stop and the per-child controls. */
export function controlChannel(queueName: string): string {
	return `pwf:${queueName}:control`;
}

/** A key set when a job is to stop: a worker that takes the job after the message went out still sees it. */
export function stopKey(queueName: string, jobId: string): string {
	return `pwf:${queueName}:stop:${jobId}`;
}

/**
 * Where a running job's child keeps a copy of its conversation (pi's session file) after each turn: the job's next
 * worker, when this one dies, goes on from it.
 */
export function conversationKey(queueName: string, jobId: string): string {
	return `pwf:${queueName}:conversation:${jobId}`;
}

/** How long a stop key lives, in seconds: longer than any job waits in the queue after its run stopped. */
export const STOP_KEY_TTL_S = 24 * 3600;

/** The progress a worker sends: the child as the local runner reports it. */
export type QueueJobProgress = WorkflowAgentChild;
