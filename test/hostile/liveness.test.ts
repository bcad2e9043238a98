/**
 * Hostile liveness: promises nothing can settle, agent() calls left running at return, rejections nobody
 * handles, and cancellation at every phase of a run. A run always ends, says why, and leaves no child running.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowProgressEvent } from "../../src/runtime/index.ts";
import {
	beside,
	checkCase,
	expectOutcome,
	guardHost,
	type HostileCase,
	type HostileOptions,
	runHostile,
} from "./support.ts";

guardHost();

const UNSETTLED = "waiting for a promise that nothing can settle";
const ORPHANED = "still running when the script returned";

const STUCK: HostileCase[] = [
	[
		"a promise whose resolve is kept but never called",
		"let keep;\nawait new Promise((resolve) => { keep = resolve; });",
		{ code: "unsettled", message: UNSETTLED },
	],
	["a thenable that never calls back", "await { then() {} };", { code: "unsettled", message: UNSETTLED }],
	[
		"phase(name, fn) whose fn never settles",
		`await phase("p", () => new Promise(() => {}));`,
		{ code: "unsettled", message: UNSETTLED },
	],
	[
		"a parallel() slot that never settles",
		"await parallel([() => new Promise(() => {})]);",
		{ code: "unsettled", message: UNSETTLED },
	],
	[
		"a pipeline() stage that never settles",
		"await pipeline([1, 2], () => new Promise(() => {}));",
		{ code: "unsettled", message: UNSETTLED },
	],
	[
		"a stuck promise while a sleep() is still pending (reported once the sleep is over)",
		"sleep(50);\nawait new Promise(() => {});",
		{ code: "unsettled", message: UNSETTLED },
	],
];

const FORGOTTEN: HostileCase[] = [
	["a rejected promise nobody handles", `Promise.reject(new Error("ignored"));\nreturn 1;`, { value: 1 }],
	[
		"an async function that throws, never awaited",
		// Started through a helper the static pass does not follow (it refuses a dropped `(async () => …)()`), so the
		// run meets the lost rejection.
		`const start = (fn) => fn();\nstart(async () => { throw new Error("lost"); });\nawait sleep(5);\nreturn "after";`,
		{ value: "after" },
	],
	[
		"an agent() call refused for a bad option, never awaited",
		// Options read from text, which the static pass cannot judge: the run meets the refusal.
		`agent("x", JSON.parse('{"bogus": 1}'));\nreturn 1;`,
		{ value: 1 },
	],
	[
		"an agent() call left running beside an awaited one",
		`agent("left");\nreturn await agent("kept");`,
		{
			code: "not_awaited",
			message: "still running, so their results were lost: agent `left` (2:6). Await every call",
		},
		{ answer: (request) => (request.prompt === "left" ? { hang: true } : "ok") },
	],
	[
		"five agent() calls left running as the only agents",
		`for (let i = 0; i < 5; i++) agent("h" + i);\nreturn 1;`,
		// Not "every agent failed": the script dropped them, and says where.
		{ code: "not_awaited", message: "returned while 5 call(s) it started were still running" },
		{ answer: () => ({ hang: true }) },
	],
];

describe("promises nothing can settle", () => {
	it.each(STUCK)("%s: fails at once with unsettled", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});

	it("a stuck script beside a normal workflow leaves it unaffected", async () => {
		await beside(() => checkCase("await new Promise(() => {});", { code: "unsettled", message: UNSETTLED }));
	});
});

describe("work the script forgot", () => {
	it.each(FORGOTTEN)("%s", async (_name, script, expectation, options) => {
		const run = await checkCase(script, expectation, options);
		for (const failure of run.result.failures) expect(failure.cause).toBe(ORPHANED);
		const { calls, completed, failed, skipped } = run.result.counts;
		expect(calls).toBe(completed + failed + skipped);
	});
});

describe("a stretch stuck in native code", () => {
	// How soon after the stuck call the run ends is a reaction time: bench row 1b measures it.
	it("JSON.stringify of a 200,000-deep value (never polls the interrupt handler): limit_cpu, and the host stays responsive", async () => {
		let logged = false;
		await beside(() =>
			checkCase(
				`const v = [];\nlet d = v;\nfor (let i = 0; i < 200000; i++) { d = d[0] = []; if (i % 5000 === 0) await sleep(0); }\nlog("stuck next");\nJSON.stringify(v);`,
				{ code: "limit_cpu", message: "(limit: 1000 ms)" },
				{
					limits: { syncSliceMs: 1000 },
					onProgress: (event) => {
						if (event.type === "log") logged = true;
					},
				},
			),
		);
		expect(logged, "the script got as far as the stuck call").toBe(true);
	});
});

/** A script that passes through every phase of a run: boot, a phase, a log, a sleep, parallel agents, schema retries. */
const JOURNEY = `phase("one");
log("before sleep");
await sleep(20);
const all = await parallel([1, 2, 3].map((i) => () => agent("slow " + i)));
const shaped = await agent("shape", { schema: { type: "object", required: ["n"] } });
return { all, shaped };`;

/** Answers: "slow" calls take a while (and stop on abort); the schema call misses its schema twice. */
function journeyAnswer(): HostileOptions["answer"] {
	let shapeAttempts = 0;
	return (request) => {
		if (request.prompt.startsWith("slow")) return { text: `did ${request.prompt}`, delayMs: 30 };
		shapeAttempts++;
		return shapeAttempts < 3 ? { structured: { wrong: true } } : { structured: { n: 1 } };
	};
}

/** Where to cancel: the first event matching `at`. */
const CANCEL_POINTS: [name: string, at: (event: WorkflowProgressEvent) => boolean][] = [
	["at run_start, before the sandbox boots", (e) => e.type === "run_start"],
	["at phase_start", (e) => e.type === "phase_start"],
	["at a log entry, before sleep()", (e) => e.type === "log"],
	["while agents are queued", (e) => e.type === "agent_queued" && e.label === "slow 3"],
	["while agents run", (e) => e.type === "agent_started" && e.label === "slow 2"],
	["when one parallel agent has finished", (e) => e.type === "agent_finished"],
	["during a schema retry", (e) => e.type === "agent_retry"],
];

describe("cancellation at every phase of a run", () => {
	it("the journey completes when nobody cancels", async () => {
		await checkCase(
			JOURNEY,
			{ value: { all: ["did slow 1", "did slow 2", "did slow 3"], shaped: { n: 1 } } },
			{ answer: journeyAnswer(), concurrency: 2 },
		);
	});

	it.each(CANCEL_POINTS)("%s: stops, reports cancelled, and leaves no child running", async (_name, at) => {
		const controller = new AbortController();
		const run = await runHostile(JOURNEY, {
			answer: journeyAnswer(),
			concurrency: 2,
			signal: controller.signal,
			onProgress: (event) => {
				if (at(event)) controller.abort("the user pressed Esc");
			},
		});
		expectOutcome(run, { code: "cancelled", message: "The workflow was cancelled: the user pressed Esc" });
		const { counts } = run.result;
		expect(counts.calls).toBe(counts.completed + counts.failed + counts.skipped);
	});

	it("during an endless loop: stops the script through the interrupt handler", async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 100);
		await checkCase(
			"for (;;) {}",
			{ code: "cancelled", message: "The workflow was cancelled" },
			{ signal: controller.signal },
		);
	});

	it("during a nested workflow: stops the child run too", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "wf-cancel-"));
		try {
			writeFileSync(
				join(cwd, "child.js"),
				`export const meta = { name: "child", description: "c" };\nawait agent("in child");\nfor (;;) {}`,
			);
			const controller = new AbortController();
			const run = await runHostile(`return await workflow("./child.js");`, {
				cwd,
				signal: controller.signal,
				answer: () => ({ hang: true }),
				onProgress: (event) => {
					if (event.type === "agent_started") controller.abort();
				},
			});
			expectOutcome(run, { code: "cancelled", message: "The workflow was cancelled" });
			expect(run.fake.aborted).toBe(1);
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});

	it("past the run's deadline during an endless loop: fails with timed_out naming the limit", async () => {
		await checkCase(
			"for (;;) {}",
			{ code: "timed_out", message: "The workflow ran past its deadline (limit: 150 ms). Raise `timeoutMs`" },
			{ timeoutMs: 150 },
		);
	});

	it("a cancel after the run ended changes nothing", async () => {
		const controller = new AbortController();
		const run = await checkCase("return await agent('x');", { value: "done: x" }, { signal: controller.signal });
		controller.abort();
		expect(run.events.filter((event) => event.type === "run_end")).toHaveLength(1);
	});
});

describe("runs side by side", () => {
	let cwd: string;
	beforeAll(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-side-"));
	});
	afterAll(() => rmSync(cwd, { recursive: true, force: true }));

	it("cancelling one run leaves a concurrent run to finish", async () => {
		const controller = new AbortController();
		await beside(async () => {
			const run = await runHostile(`await agent("forever");`, {
				cwd,
				signal: controller.signal,
				answer: () => ({ hang: true }),
				onProgress: (event) => {
					if (event.type === "agent_started") controller.abort();
				},
			});
			expectOutcome(run, { code: "cancelled", message: "cancelled" });
		});
	});
});
