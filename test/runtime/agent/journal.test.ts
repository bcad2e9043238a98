import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkflowProgressTracker, formatWorkflowProgress } from "../../../src/progress/index.ts";
import {
	runWorkflowScript,
	type WorkflowAgentRequest,
	type WorkflowJournal,
	type WorkflowProgressEvent,
	type WorkflowRunOptions,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

/** Runs `body` (after a header) with a scripted runner; returns the result, the events and the runner's requests. */
async function run(
	body: string,
	answer?: (request: WorkflowAgentRequest) => FakeAnswer,
	options: Partial<WorkflowRunOptions> = {},
) {
	const fake = createFakeRunner(answer);
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event) => events.push(event),
		...options,
	});
	const finished = events.filter((event) => event.type === "agent_finished");
	return { result, events, finished, prompts: fake.requests.map((request) => request.prompt) };
}

describe("runWorkflowScript({ journal })", () => {
	it("after a script error in the last phase: a resume replays every agent, with zero runner calls", async () => {
		const broken = `phase("gather");
const notes = await parallel(["a", "b", "c"].map((x) => () => agent("note " + x)));
const summary = await agent("summarise " + notes.join(" | "));
phase("report");
return notes.lenght.toFixed() + summary;`;
		const journal = memoryJournal();
		const first = await run(broken, undefined, { journal });
		expect(first.result.error?.code).toBe("script_error");
		expect(first.prompts).toHaveLength(4);
		expect(journal.entries.size).toBe(4);

		const fixed = broken.replace("notes.lenght.toFixed() + summary", "{ notes, summary }");
		const second = await run(fixed, undefined, { journal });
		expect(second.prompts).toEqual([]);
		expect(second.result).toMatchObject({
			status: "completed",
			value: {
				notes: ["done: note a", "done: note b", "done: note c"],
				summary: "done: summarise done: note a | done: note b | done: note c",
			},
			counts: { calls: 4, started: 4, completed: 4, failed: 0, skipped: 0, replayed: 4 },
			usage: first.result.usage,
		});
		expect(second.finished.map((event) => event.type === "agent_finished" && event.cached)).toEqual([
			true,
			true,
			true,
			true,
		]);
	});

	it("a resume that replays 4 calls and runs 2: the counts and the summary say which is which", async () => {
		const body = `const notes = await parallel(["a", "b", "c", "d"].map((x) => () => agent("note " + x)));
const checks = await parallel(["x", "y"].map((x) => () => agent("check " + x + " against " + notes.length)));
return checks;`;
		const journal = memoryJournal();
		const first = await run(body, (request) => (request.prompt.startsWith("check") ? { fail: "down" } : "n"), {
			journal,
		});
		expect(first.result.counts).not.toHaveProperty("replayed");
		const tracker = createWorkflowProgressTracker();
		const second = await run(body, undefined, {
			journal,
			onProgress: (event) => tracker.updateFromProgressEvent(event),
		});
		expect(second.prompts).toEqual(["check x against 4", "check y against 4"]);
		expect(second.result.counts).toEqual({ calls: 6, started: 6, completed: 6, failed: 0, skipped: 0, replayed: 4 });
		const { envelope, summary } = tracker.complete(second.result);
		expect(envelope.totals.replayed).toBe(4);
		expect(summary).toMatch(
			/^Workflow t completed in \d+ms: 6 agents: 4 replayed from the journal, 2 ran \(2 completed\), \d+ tokens$/,
		);
		expect(formatWorkflowProgress(envelope).split("\n")[1]).toMatch(
			/^Agents: 6 \(4 replayed from the journal, 2 ran \(2 completed\)\) · \d+ tokens$/,
		);
	});

	it.each([1, 16])(
		"fan-out of 40 with 7 failures (concurrency %i): a resume runs exactly those 7, in any completion order",
		async (concurrency) => {
			const failing = new Set([3, 8, 13, 21, 22, 30, 39]);
			const body = `return await parallel(Array.from({ length: 40 }, (_, i) => () => agent("item " + i)));`;
			// Children finish in an order unrelated to their index.
			const delay = (prompt: string) => (Number(prompt.slice(5)) * 7) % 11;
			const journal = memoryJournal();
			const first = await run(
				body,
				(request) => {
					const index = Number(request.prompt.slice(5));
					return failing.has(index)
						? { fail: "provider down", delayMs: delay(request.prompt) }
						: {
								text: `ok ${index}`,
								delayMs: delay(request.prompt),
							};
				},
				{ journal, concurrency },
			);
			expect(first.result.counts.failed).toBe(7);
			expect(journal.entries.size).toBe(33);

			const second = await run(
				body,
				(request) => ({ text: `ok ${request.prompt.slice(5)}`, delayMs: 10 - delay(request.prompt) }),
				{ journal, concurrency },
			);
			expect([...second.prompts].sort()).toEqual([...failing].map((i) => `item ${i}`).sort());
			expect(second.result.status).toBe("completed");
			expect(second.result.value).toEqual(Array.from({ length: 40 }, (_, i) => `ok ${i}`));
			expect(second.finished.filter((event) => event.type === "agent_finished" && event.cached)).toHaveLength(33);
		},
	);

	it("after an edit that adds lines at the top and changes one prompt: only that call and the calls fed by it run", async () => {
		const original = `const facts = await agent("list facts");
const angle = await agent("pick an angle");
const draft = await agent("draft from " + angle);
return { facts, draft };`;
		const journal = memoryJournal();
		await run(original, undefined, { journal });

		const edited = `// Reviewed: pick a sharper angle.
log("starting");

${original.replace("pick an angle", "pick a sharp angle")}`;
		const second = await run(edited, undefined, { journal });
		expect(second.prompts).toEqual(["pick a sharp angle", "draft from done: pick a sharp angle"]);
		expect(second.result.value).toEqual({
			facts: "done: list facts",
			draft: "done: draft from done: pick a sharp angle",
		});
	});

	it("moving calls to other lines keeps every replay (the call site is not part of the key)", async () => {
		const journal = memoryJournal();
		await run(`const a = await agent("one"); const b = await agent("two"); return [a, b];`, undefined, { journal });
		const second = await run(
			`\n\n\nconst b = agent("two");\n\n  const a = agent("one");\nreturn [await a, await b];`,
			undefined,
			{ journal },
		);
		expect(second.prompts).toEqual([]);
		expect(second.result.value).toEqual(["done: one", "done: two"]);
	});

	it("timing options are not part of the key: adding stallMs or timeoutMs keeps every replay", async () => {
		const journal = memoryJournal();
		await run(`return [await agent("one"), await agent("two")];`, undefined, { journal });
		const second = await run(
			`return [await agent("one", { stallMs: 60000 }), await agent("two", { timeoutMs: 5000, stallMs: 0 })];`,
			undefined,
			{ journal },
		);
		expect(second.prompts).toEqual([]);
		expect(second.result.value).toEqual(["done: one", "done: two"]);
	});

	it("identical prompts are separate calls: three keys, each replayed once", async () => {
		let n = 0;
		const body = `return await parallel(Array.from({ length: 3 }, () => () => agent("same prompt")));`;
		const journal = memoryJournal();
		const first = await run(body, () => `answer ${n++}`, { journal });
		expect(new Set(first.finished.map((event) => event.key)).size).toBe(3);
		expect(journal.entries.size).toBe(3);
		const second = await run(body, undefined, { journal });
		expect(second.prompts).toEqual([]);
		expect([...(second.result.value as string[])].sort()).toEqual(["answer 0", "answer 1", "answer 2"]);
	});

	it("moves the budget as the original run did: calls used and tokens spent", async () => {
		const body = `await agent("a"); await agent("b");
return { used: budget.agentCalls.used, spent: budget.tokens.spent() };`;
		const journal = memoryJournal();
		const first = await run(body, () => ({ text: "x", tokens: 40 }), { journal });
		const second = await run(body, undefined, { journal });
		expect(first.result.value).toEqual({ used: 2, spent: 80 });
		expect(second.result.value).toEqual({ used: 2, spent: 80 });
		expect(second.prompts).toEqual([]);
	});

	it("with a schema: replays the validated object", async () => {
		const body = `return await agent("rate it", { schema: { type: "object", properties: { score: { type: "number" } }, required: ["score"] } });`;
		const journal = memoryJournal();
		await run(body, () => ({ structured: { score: 7 } }), { journal });
		const second = await run(body, undefined, { journal });
		expect(second.prompts).toEqual([]);
		expect(second.result.value).toEqual({ score: 7 });
	});

	it("with a schema: a recorded answer that breaks it is not replayed; the call runs again, warned what broke", async () => {
		const schema = `{ type: "object", properties: { severity: { enum: ["low", "high"] }, notes: { type: "array", items: { type: "string" } } }, required: ["severity"] }`;
		const body = `return await agent("triage it", { label: "triage", schema: ${schema} });`;
		const journal = memoryJournal();
		await run(body, () => ({ structured: { severity: "low", notes: [] } }), { journal });
		for (const entry of journal.entries.values()) entry.value = { severity: "urgent", notes: [3] };
		const second = await run(body, () => ({ structured: { severity: "high" } }), { journal });
		expect(second.prompts).toEqual(["triage it"]);
		expect(second.result.value).toEqual({ severity: "high" });
		const warnings = second.events.flatMap((e) => (e.type === "log" && e.level === "warn" ? [e.message] : []));
		expect(warnings).toEqual([
			'Resume: `triage` (#1) runs again instead of replaying: its recorded answer breaks its schema: `output.severity` must be equal to one of the allowed values: ["low","high"]; `output.notes[0]` must be string, found number',
		]);
	});

	it("ignores entries a hand-edited journal made unusable, and runs those calls", async () => {
		const body = `return [await agent("text"), await agent("obj", { schema: { type: "object" } })];`;
		const journal = memoryJournal();
		await run(body, (request) => (request.schema ? { structured: { ok: true } } : "fine"), { journal });
		for (const entry of journal.entries.values()) {
			// A text where an object is due, and a value that is not JSON data.
			entry.value = entry.value === "fine" ? (undefined as never) : "not an object";
		}
		const second = await run(body, (request) => (request.schema ? { structured: { ok: 2 } } : "again"), {
			journal,
		});
		expect(second.prompts).toEqual(["text", "obj"]);
		expect(second.result.value).toEqual(["again", { ok: 2 }]);
	});

	it("gives the script a value only once its journal record resolved", async () => {
		const order: string[] = [];
		const journal = memoryJournal();
		const record = journal.record;
		journal.record = async (entry) => {
			order.push("record started");
			await new Promise((resolve) => setTimeout(resolve, 30));
			await record(entry);
			order.push("record done");
		};
		await run(`const a = await agent("a"); log("script saw " + a);`, undefined, {
			journal,
			onProgress: (event) => {
				if (event.type === "log") order.push(event.message);
			},
		});
		expect(order).toEqual(["record started", "record done", "script saw done: a"]);
	});

	it("when the journal cannot write: the run goes on with the answer and warns that a resume will re-run it", async () => {
		const journal: WorkflowJournal = {
			lookup: () => undefined,
			record: async () => {
				throw new Error("disk full");
			},
		};
		const { result, events } = await run(`return await agent("a", { label: "first" });`, undefined, { journal });
		expect(result).toMatchObject({ status: "completed", value: "done: a" });
		expect(events).toContainEqual(
			expect.objectContaining({
				type: "log",
				level: "warn",
				message: "Could not journal the answer of `first` (disk full); a resume will run this call again",
			}),
		);
	});

	it("an entry whose every read throws (a Proxy) replays nothing: the agent, the tool and the question run again", async () => {
		const entry = new Proxy(
			{},
			{
				get() {
					throw new Error("trap boom");
				},
			},
		);
		const journal: WorkflowJournal = { lookup: () => entry as never, record: async () => {} };
		const { result, prompts } = await run(
			`return [await agent("p"), (await tool("step", {})).output, await ask("Go?")];`,
			undefined,
			{ journal, tools: { step: async () => ({ output: "ran" }) }, ask: () => "asked" },
		);
		expect(result.error).toBeUndefined();
		expect(result.value).toEqual(["done: p", "ran", "asked"]);
		expect(prompts).toEqual(["p"]);
	});

	it("does not journal failed calls", async () => {
		const journal = memoryJournal();
		await run(
			`return [await agent("ok"), await agent("bad")];`,
			(request) => (request.prompt === "bad" ? { fail: "x" } : "y"),
			{
				journal,
			},
		);
		expect([...journal.entries.values()].map((entry) => entry.value)).toEqual(["y"]);
	});

	it("throws a TypeError for a journal without lookup and record", async () => {
		const fake = createFakeRunner();
		await expect(
			runWorkflowScript(`${HEADER}return 1;`, { agentRunner: fake.runner, journal: {} as WorkflowJournal }),
		).rejects.toThrow(
			"Expected `options.journal` to be a WorkflowJournal (`lookup` and `record` functions), got object",
		);
	});
});

describe("runWorkflowScript({ journal }) with nested workflows", () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "pw-journal-"));
		writeFileSync(
			join(dir, "child.js"),
			`export const meta = { name: "child", description: "d" };\nreturn await agent("same prompt " + args.n);`,
		);
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it("journals each nested call under its own scope, and a resume replays them all", async () => {
		const body = `const a = await workflow("child.js", { n: 1 });
const b = await workflow("child.js", { n: 1 });
const c = await workflow("child.js", { n: 2 });
const own = await agent("same prompt 1");
return [a, b, c, own];`;
		let n = 0;
		const journal = memoryJournal();
		const first = await run(body, () => `answer ${n++}`, { journal, cwd: dir });
		expect(first.result.value).toEqual(["answer 0", "answer 1", "answer 2", "answer 3"]);
		expect(journal.entries.size).toBe(4);
		const second = await run(body, undefined, { journal, cwd: dir });
		expect(second.prompts).toEqual([]);
		expect(second.result.value).toEqual(first.result.value);
	});
});

describe("a run where every agent failed", () => {
	it("still returns the script's value beside the error and the census", async () => {
		const { result } = await run(
			`const r = await parallel([() => agent("a"), () => agent("b")]);
return { tried: r.length, got: r.filter(Boolean).length };`,
			() => ({ fail: "provider down" }),
		);
		expect(result).toMatchObject({
			status: "failed",
			error: { code: "agents_failed" },
			value: { tried: 2, got: 0 },
		});
		expect(result.failures).toHaveLength(2);
	});
});
