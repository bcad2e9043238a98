import { describe, expect, it } from "vitest";
import { createWorkflowQueue } from "../../src/runtime/queue.ts";

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
