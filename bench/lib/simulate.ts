/**
 * The ideal makespan of a workload: its plain version run on virtual time against a FIFO queue with the same
 * number of slots, so every agent takes exactly its duration and nothing else costs time (greedy list scheduling
 * in the order the workflow submits its agents).
 */

import type { JsonValue } from "../../src/runtime/core/types.ts";
import type { PlainWorkflow } from "../harness/plain.ts";

interface Timer {
	at: number;
	order: number;
	fire: () => void;
}

/** The makespan, in ms, of `workflow` with these agent durations (by prompt) and `concurrency` slots. */
export async function idealMakespan(
	workflow: PlainWorkflow,
	args: JsonValue,
	durations: ReadonlyMap<string, number>,
	concurrency: number,
): Promise<number> {
	let clock = 0;
	let order = 0;
	let running = 0;
	const timers: Timer[] = [];
	const waiting: Array<() => void> = [];
	const startNext = () => {
		while (running < concurrency && waiting.length > 0) {
			running++;
			waiting.shift()?.();
		}
	};
	const agent = (prompt: string) =>
		new Promise<string | null>((resolve) => {
			const ms = durations.get(prompt);
			if (ms === undefined) throw new Error(`No duration for prompt ${JSON.stringify(prompt)}`);
			waiting.push(() => {
				timers.push({
					at: clock + ms,
					order: order++,
					fire: () => {
						running--;
						// As in p-queue: the next waiting job starts before the finished job's caller continues.
						resolve("ok");
						startNext();
					},
				});
			});
			startNext();
		});
	let done = false;
	const finished = workflow({ agent, phase: (_name, fn) => fn() }, args).then(() => {
		done = true;
	});
	for (;;) {
		// Let every continuation run, and submit its agents, before time moves on.
		await new Promise((resolve) => setImmediate(resolve));
		if (done) break;
		timers.sort((a, b) => a.at - b.at || a.order - b.order);
		const next = timers.shift();
		if (!next) throw new Error("The simulated workflow is waiting for nothing");
		clock = next.at;
		next.fire();
	}
	await finished;
	return clock;
}
