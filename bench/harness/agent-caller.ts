/**
 * The `agent()` of the two baseline harnesses (node:vm and plain JS): queue, runner, and the runtime's progress
 * events, so a tracker sees the same stream from all three engines and only the runtime around it differs.
 */
import { setMaxListeners } from "node:events";
import type { WorkflowAgentCallRef, WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import type {
	JsonValue,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowAgentRunner,
	WorkflowMeta,
} from "../../src/runtime/core/types.ts";

/** What a baseline run needs. */
export interface BaselineRunOptions {
	runner: WorkflowAgentRunner;
	/** Agents running at once. */
	concurrency: number;
	args?: JsonValue;
	onProgress?: (event: WorkflowProgressEvent) => void;
	cwd?: string;
}

/** Options of one baseline `agent()` call (the subset the workloads use). */
export interface BaselineAgentOptions {
	label?: string;
	agent?: string;
}

/** Runs `task` when a queue slot is free. */
export type Enqueue = <T>(task: () => Promise<T>) => Promise<T>;

/** Emits events for one run and makes its `agent()` function. */
export class BaselineRun {
	readonly controller = new AbortController();
	private readonly options: BaselineRunOptions;
	private readonly enqueue: Enqueue;
	private readonly started = Date.now();
	private nextIndex = 0;
	private completed = 0;
	private failed = 0;
	/** The phase `agent()` calls belong to. */
	phase: string | undefined;

	constructor(options: BaselineRunOptions, enqueue: Enqueue) {
		this.options = options;
		this.enqueue = enqueue;
		// Every call's runner listens on the run's signal.
		setMaxListeners(0, this.controller.signal);
	}

	/** Emits one event, stamped now. */
	emit(event: DistributiveOmit<WorkflowProgressEvent, "time">): void {
		this.options.onProgress?.({ ...event, time: Date.now() } as WorkflowProgressEvent);
	}

	start(meta: WorkflowMeta): void {
		this.emit({ type: "run_start", meta, cwd: this.options.cwd ?? process.cwd() });
	}

	end(value: unknown): void {
		const calls = this.nextIndex;
		this.emit({
			type: "run_end",
			status: "completed",
			result: (value ?? null) as JsonValue,
			failures: [],
			counts: { calls, started: calls, completed: this.completed, failed: this.failed, skipped: 0 },
			usage: { input: 0, output: 0, total: 0 },
			cost: { usd: 0 },
			durationMs: Date.now() - this.started,
		});
	}

	/** One `agent(prompt, opts)` call: its text, or null when the child failed. */
	readonly agent = async (prompt: string, opts: BaselineAgentOptions = {}): Promise<string | null> => {
		const index = this.nextIndex++;
		const ref: WorkflowAgentCallRef = {
			key: `call-${index}`,
			index,
			label: opts.label ?? prompt.slice(0, 60),
			agentType: opts.agent ?? "general-purpose",
			...(this.phase ? { phase: this.phase } : {}),
		};
		this.emit({ type: "agent_queued", ...ref, promptPreview: prompt.slice(0, 200), hasSchema: false });
		return this.enqueue(async () => {
			const started = Date.now();
			this.emit({ type: "agent_started", ...ref, attempt: 1 });
			const request: WorkflowAgentRequest = {
				key: ref.key,
				index,
				attempt: 1,
				prompt,
				agentType: ref.agentType,
				label: ref.label,
				description: ref.label,
				cwd: this.options.cwd ?? process.cwd(),
				...(ref.phase ? { phase: ref.phase } : {}),
			};
			let result: WorkflowAgentResult | undefined;
			try {
				result = await this.options.runner(request, {
					signal: this.controller.signal,
					reportChild: (child) => this.emit({ type: "agent_child", ...ref, child }),
				});
			} catch {
				result = undefined;
			}
			const durationMs = Date.now() - started;
			if (result?.status === "completed" && result.result) {
				this.completed++;
				this.emit({
					type: "agent_finished",
					...ref,
					agentId: result.id,
					resultPreview: result.result.slice(0, 200),
					durationMs,
					attempts: 1,
				});
				return result.result;
			}
			this.failed++;
			const error = result?.error ?? "runner error";
			this.emit({ type: "agent_failed", ...ref, error, thrown: false, skipped: false, durationMs });
			return null;
		});
	};
}

/** `Omit` applied to each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
