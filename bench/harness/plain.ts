/**
 * The floor: a workflow written as plain JavaScript functions over p-queue, with no runtime around it. Only the
 * queue, the runner and the progress events the other engines emit too.
 */
import PQueue from "p-queue";
import type { JsonValue } from "../../src/runtime/core/types.ts";
import { type BaselineAgentOptions, BaselineRun, type BaselineRunOptions } from "./agent-caller.ts";

/** What a plain workflow gets: an `agent()` over the queue, and the current phase to set. */
export interface PlainApi {
	agent(prompt: string, opts?: BaselineAgentOptions): Promise<string | null>;
	/** Runs `fn` as a named phase. */
	phase<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** A workflow as a plain function. */
export type PlainWorkflow = (api: PlainApi, args: JsonValue | undefined) => Promise<unknown>;

/** Runs a plain workflow; resolves to what it returns. */
export async function runPlainWorkflow(workflow: PlainWorkflow, options: BaselineRunOptions): Promise<unknown> {
	const queue = new PQueue({ concurrency: options.concurrency });
	const run = new BaselineRun(options, (task) => queue.add(task));
	run.start({ name: "plain", description: "plain JavaScript" });
	const api: PlainApi = {
		agent: run.agent,
		async phase(name, fn) {
			run.emit({ type: "phase_start", phase: name });
			run.phase = name;
			try {
				return await fn();
			} finally {
				run.emit({ type: "phase_end", phase: name });
				run.phase = undefined;
			}
		},
	};
	const value = await workflow(api, options.args);
	run.end(value);
	return value;
}
