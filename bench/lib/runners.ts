/**
 * Stand-in runners: instant answers (to measure the runtime around the calls), fixed durations looked up by
 * prompt (to measure scheduling), and calls held until released (to measure runs that are all alive at once).
 */
import type { WorkflowAgentResult, WorkflowAgentRunner } from "../../src/runtime/index.ts";

/** Answers every call at once with "ok". */
export function instantRunner(): WorkflowAgentRunner {
	let next = 0;
	return async (request) => ({ id: `instant-${next++}`, type: request.agentType, status: "completed", result: "ok" });
}

/** Answers each call after the duration its prompt maps to (ms); an unknown prompt is an error. */
export function delayRunner(durations: ReadonlyMap<string, number>): WorkflowAgentRunner {
	let next = 0;
	return (request, { signal }) => {
		const ms = durations.get(request.prompt);
		if (ms === undefined) throw new Error(`No duration for prompt ${JSON.stringify(request.prompt)}`);
		const id = `delay-${next++}`;
		return new Promise<WorkflowAgentResult>((resolve) => {
			const done = (status: "completed" | "stopped") => {
				signal.removeEventListener("abort", stop);
				resolve({ id, type: request.agentType, status, result: "ok" });
			};
			const timer = setTimeout(() => done("completed"), ms);
			const stop = () => {
				clearTimeout(timer);
				done("stopped");
			};
			signal.addEventListener("abort", stop, { once: true });
		});
	};
}

/** A runner whose calls wait until `release()`; `arrived(n)` resolves once n calls are waiting. */
export interface HoldRunner {
	runner: WorkflowAgentRunner;
	arrived(count: number): Promise<void>;
	release(): void;
}

export function holdRunner(): HoldRunner {
	const waiting: Array<() => void> = [];
	let released = false;
	let watcher: { count: number; resolve: () => void } | undefined;
	const check = () => {
		if (watcher && waiting.length >= watcher.count) {
			watcher.resolve();
			watcher = undefined;
		}
	};
	return {
		runner: async (request) => {
			if (!released) {
				await new Promise<void>((resolve) => {
					waiting.push(resolve);
					check();
				});
			}
			return { id: `held-${request.index}`, type: request.agentType, status: "completed", result: "ok" };
		},
		arrived(count) {
			return new Promise((resolve) => {
				watcher = { count, resolve };
				check();
			});
		},
		release() {
			released = true;
			for (const resolve of waiting.splice(0)) resolve();
		},
	};
}
