import { describe, expect, it } from "vitest";
import { createWorkflowQueue } from "../../../src/runtime/core/queue.ts";

/** A job that runs until `finish()` is called. */
function gate() {
	let finish: () => void = () => {};
	const done = new Promise<void>((resolve) => {
		finish = resolve;
	});
	return { finish, task: () => done.then(() => "done") };
}

describe("createWorkflowQueue().run()", () => {
	it("a job whose signal fires while it waits never starts, rejects with the reason, and stops counting as waiting", async () => {
		const queue = createWorkflowQueue({ concurrency: 1 });
		const first = gate();
		const running = queue.run(first.task);
		const controller = new AbortController();
		let started = false;
		const waiting = queue.run(async () => {
			started = true;
			return "late";
		}, controller.signal);
		expect(queue.waiting).toBe(1);
		controller.abort(new Error("stop"));
		await expect(waiting).rejects.toThrow("stop");
		expect(queue.waiting).toBe(0);
		first.finish();
		expect(await running).toBe("done");
		await new Promise((resolve) => setTimeout(resolve, 10));
		expect(started).toBe(false);
		expect(queue.running).toBe(0);
	});

	it("a job that started keeps running when its signal fires: stopping is the task's job", async () => {
		const queue = createWorkflowQueue({ concurrency: 1 });
		const job = gate();
		const controller = new AbortController();
		const running = queue.run(job.task, controller.signal);
		await new Promise((resolve) => setTimeout(resolve, 0));
		controller.abort(new Error("stop"));
		job.finish();
		expect(await running).toBe("done");
	});

	it("rejects at once for a signal that already fired", async () => {
		const controller = new AbortController();
		controller.abort(new Error("gone"));
		await expect(createWorkflowQueue().run(async () => 1, controller.signal)).rejects.toThrow("gone");
	});

	it("runs jobs sharing one signal in order, at most `concurrency` at once", async () => {
		const queue = createWorkflowQueue({ concurrency: 2 });
		const signal = new AbortController().signal;
		let now = 0;
		let most = 0;
		const order: number[] = [];
		await Promise.all(
			Array.from({ length: 6 }, (_, i) =>
				queue.run(async () => {
					most = Math.max(most, ++now);
					order.push(i);
					await new Promise((resolve) => setTimeout(resolve, 1));
					now--;
				}, signal),
			),
		);
		expect(order).toEqual([0, 1, 2, 3, 4, 5]);
		expect(most).toBe(2);
	});
});

describe("createWorkflowQueue() provider waits", () => {
	const RATE = { kind: "rate_limit" as const, message: "429 rate limit exceeded" };

	it(".providerLimit() - no job starts until the wait is over; waiters and listeners hear when it ends", async () => {
		const queue = createWorkflowQueue({ concurrency: 2, providerBackoff: { baseMs: 20, maxMs: 20 } });
		const order: string[] = [];
		queue.onProviderPause((pause) => order.push(pause ? `paused ${pause.until - pause.since}` : "over"));
		const pause = queue.providerLimit(RATE);
		expect(pause).toMatchObject({ kind: "rate_limit", streak: 1 });
		const job = queue.run(async () => order.push("job"));
		const ready = queue.whenProviderReady().then(() => order.push("ready"));
		await Promise.all([job, ready]);
		expect(order.slice(0, 2)).toEqual(["paused 20", "over"]);
		expect(order.slice(2).sort()).toEqual(["job", "ready"]);
		expect(queue.providerPause).toBeUndefined();
	});

	it(".providerLimit() - waits in a row double up to the cap; `providerOk()` starts them from the base again", async () => {
		const queue = createWorkflowQueue({ providerBackoff: { baseMs: 1, maxMs: 3 } });
		const lengths: number[] = [];
		for (const ok of [false, false, false, true, false]) {
			const pause = queue.providerLimit(RATE);
			lengths.push(pause.until - pause.since);
			await queue.whenProviderReady();
			if (ok) queue.providerOk();
		}
		expect(lengths).toEqual([1, 2, 3, 3, 1]);
	});

	it(".providerLimit() - the provider's time is followed; from the third wait in a row the backoff is its floor", async () => {
		const queue = createWorkflowQueue({ providerBackoff: { baseMs: 4, maxMs: 4 } });
		const lengths: number[] = [];
		for (let i = 0; i < 3; i++) {
			const pause = queue.providerLimit({ ...RATE, retryAfterMs: 0 });
			lengths.push(pause.until - pause.since);
			await queue.whenProviderReady();
		}
		expect(lengths).toEqual([0, 0, 4]);
	});

	it(".providerLimit() - a limit during a wait joins it, lengthening it only for a later retry-after", () => {
		const queue = createWorkflowQueue({ providerBackoff: { baseMs: 60_000, maxMs: 60_000 } });
		const heard: number[] = [];
		queue.onProviderPause((pause) => heard.push(pause?.streak ?? 0));
		const first = queue.providerLimit(RATE, "a");
		expect(queue.providerLimit(RATE, "b")).toBe(first);
		expect(queue.providerLimit({ ...RATE, retryAfterMs: 1000 }, "c")).toBe(first);
		const longer = queue.providerLimit({ ...RATE, retryAfterMs: 120_000 }, "d");
		expect(longer.until).toBeGreaterThan(first.until);
		expect(longer).toMatchObject({ since: first.since, streak: 1, origin: "d", retryAfterMs: 120_000 });
		expect(heard).toEqual([1, 1]);
		queue.providerOk();
	});

	it(".whenProviderReady() - rejects with the signal's reason when it fires during the wait", async () => {
		const queue = createWorkflowQueue({ providerBackoff: { baseMs: 60_000, maxMs: 60_000 } });
		queue.providerLimit(RATE);
		const controller = new AbortController();
		const ready = queue.whenProviderReady(controller.signal);
		controller.abort(new Error("cancelled"));
		await expect(ready).rejects.toThrow("cancelled");
	});

	it(".whenProviderReady() - a wait that no job waits for any more ends at once: the next run asks the provider again", async () => {
		const queue = createWorkflowQueue({ concurrency: 1, providerBackoff: { baseMs: 60_000, maxMs: 60_000 } });
		const heard: string[] = [];
		queue.onProviderPause((pause) => heard.push(pause ? "paused" : "over"));
		queue.providerLimit(RATE);
		const controller = new AbortController();
		const ready = queue.whenProviderReady(controller.signal);
		const queued = queue.run(async () => "late", controller.signal);
		controller.abort(new Error("the run ended"));
		await expect(ready).rejects.toThrow("the run ended");
		await expect(queued).rejects.toThrow("the run ended");
		expect(heard).toEqual(["paused", "over"]);
		expect(queue.providerPause).toBeUndefined();
		expect(await queue.run(async () => "next run")).toBe("next run");
	});

	it("refuses a backoff that is not a number of milliseconds above 0 (0 would let a limit spin the queue)", () => {
		expect(() => createWorkflowQueue({ providerBackoff: { baseMs: 0 } })).toThrow(
			"Expected `providerBackoff.baseMs` to be a number of milliseconds above 0, got `0` (number)",
		);
		expect(() => createWorkflowQueue({ providerBackoff: { maxMs: Number.NaN } })).toThrow(
			"Expected `providerBackoff.maxMs` to be a number of milliseconds above 0, got `NaN` (number)",
		);
	});
});
