/**
 * `agent(prompt, { resume: "label" })` through real pi sessions on the faux provider: the continued child's model
 * sees the earlier prompt and answer; in a recorded run, a resume replays both calls when nothing changed, runs only
 * the continuation when its prompt changed (reopening the earlier call's kept conversation file), and says which
 * file is missing when it is gone.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableRun } from "../../src/host/durable-run.ts";
import { runReportText } from "../../src/report/index.ts";
import { createRunStore, type RunStore } from "../../src/runs/index.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import type { WorkflowRunResult } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { type FauxRequest, fauxAssistantMessage } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

const HEADER = 'export const meta = { name: "fixer", description: "review, then continue the reviewer" };\n';
const script = (fix: string) =>
	`${HEADER}const found = await agent("Review the parser", { label: "reviewer" });
const fixed = await agent(${JSON.stringify(fix)}, { resume: "reviewer" });
return { found, fixed };`;

/** Every conversation message the model was sent (not the system prompt), in order, as `role: text`. */
function transcript(request: FauxRequest): string[] {
	return request.messages
		.filter((message) => (message.role as string) !== "system")
		.map((message) => {
			const content = message.content;
			const text =
				typeof content === "string" ? content : content.map((part) => ("text" in part ? part.text : "")).join("");
			return `${message.role}: ${text}`;
		});
}

/** Replies for the last user message that starts with `start`, each naming what it saw. */
function answerTo(fx: RunnerFixture, start: string, answer: string, times = 1): void {
	fx.faux.route(
		(request) => request.last.role === "user" && request.last.text.startsWith(start),
		Array.from({ length: times }, () => fauxAssistantMessage(answer)),
	);
}

let fx: RunnerFixture;
let root: string;
let store: RunStore;
beforeAll(async () => {
	fx = await createRunnerFixture();
	root = mkdtempSync(join(tmpdir(), "wf-continue-"));
	store = createRunStore({ cwd: fx.dirs.cwd, root });
});
afterAll(() => {
	fx.teardown();
	rmSync(root, { recursive: true, force: true });
});

/** One session of a recorded run of `source`, as the tool composes it. */
async function recorded(durable: DurableRun, source: string): Promise<WorkflowRunResult> {
	const runner = fx.runner({ runFolder: () => durable.runFolder() });
	const result = await runWorkflowScript(durable.original?.script ?? source, {
		agentRunner: runner,
		filename: "fixer.js",
		cwd: fx.dirs.cwd,
		journal: durable.journal,
		onProgress: (event) => durable.progress(event, { script: source, filename: "fixer.js" }),
	});
	await durable.finish(result);
	return result;
}

describe("continuing a child with resume:", () => {
	it("the continued child sees its earlier prompt and answer, on the same agent type; the chain goes on", async () => {
		answerTo(fx, "Review the parser", "two bugs: a and b");
		answerTo(fx, "Now fix them", "fixed a and b");
		answerTo(fx, "Run the tests", "tests pass");
		const events: WorkflowProgressEvent[] = [];
		const source = `${HEADER}await agent("Review the parser", { label: "reviewer" });
await agent("Now fix them", { resume: "reviewer" });
return await agent("Run the tests", { resume: "reviewer" });`;
		const before = fx.faux.requests.length;
		const result = await runWorkflowScript(source, {
			agentRunner: fx.runner(),
			cwd: fx.dirs.cwd,
			onProgress: (event) => events.push(event),
		});
		expect(result).toMatchObject({ status: "completed", value: "tests pass" });
		const [, fix, tests] = fx.faux.requests.slice(before);
		expect(transcript(fix as FauxRequest)).toEqual([
			"user: Review the parser",
			"assistant: two bugs: a and b",
			"user: Now fix them",
		]);
		expect(transcript(tests as FauxRequest)).toEqual([
			"user: Review the parser",
			"assistant: two bugs: a and b",
			"user: Now fix them",
			"assistant: fixed a and b",
			"user: Run the tests",
		]);
		const queued = events.filter((event) => event.type === "agent_queued");
		expect(queued.map((event) => [event.label, event.continues])).toEqual([
			["reviewer", undefined],
			["reviewer", { index: 0, label: "reviewer" }],
			["reviewer", { index: 1, label: "reviewer" }],
		]);
	});

	it("a recorded run: a resume replays both; an edited continuation runs alone from the kept file; a gone file is named", async () => {
		answerTo(fx, "Review the parser", "one bug: c");
		answerTo(fx, "Now fix it", "fixed c");
		const first = DurableRun.fresh(store, { script: script("Now fix it"), filename: "fixer.js" });
		expect(await recorded(first, script("Now fix it"))).toMatchObject({
			status: "completed",
			value: { found: "one bug: c", fixed: "fixed c" },
		});
		const runId = (await first.recorded) as string;
		const record = await store.open(runId);
		// The report's timeline shows the chain.
		const report = (await runReportText(store, runId)).split("\n");
		expect(report.filter((line) => line.includes("#2 reviewer"))).toEqual([
			expect.stringMatching(/#2 reviewer .*completed · continues #1 reviewer/),
		]);

		// Nothing changed: both replay, no model request.
		const before = fx.faux.requests.length;
		const same = await recorded(await DurableRun.resume(store, runId), script("Now fix it"));
		expect(same).toMatchObject({ status: "completed", value: { found: "one bug: c", fixed: "fixed c" } });
		expect(fx.faux.requests.length).toBe(before);

		// The continuation's prompt changed: only it runs, from the reviewer's kept conversation.
		writeFileSync(join(record.dir, "script.js"), script("Now fix it, with a test"));
		answerTo(fx, "Now fix it, with a test", "fixed c, test added");
		const edited = await recorded(await DurableRun.resume(store, runId), script("Now fix it, with a test"));
		expect(edited).toMatchObject({
			status: "completed",
			value: { found: "one bug: c", fixed: "fixed c, test added" },
		});
		const asked = fx.faux.requests.slice(before);
		expect(asked.map(transcript)).toEqual([
			["user: Review the parser", "assistant: one bug: c", "user: Now fix it, with a test"],
		]);

		// The reviewer's file gone: the continuation says which file, and nothing is asked.
		unlinkSync(join(record.dir, "children", "000-reviewer-1.jsonl"));
		writeFileSync(join(record.dir, "script.js"), script("Now fix it, and say why"));
		const gone = await recorded(await DurableRun.resume(store, runId), script("Now fix it, and say why"));
		expect(gone.status).toBe("failed");
		expect(gone.error?.code).toBe("resume_unavailable");
		expect(gone.error?.message).toContain(
			`the conversation of call #1 \`reviewer\` was kept in ${join(record.dir, "children", "000-reviewer-1.jsonl")}, which is gone or empty`,
		);
		expect(fx.faux.requests.length).toBe(before + 1);
	});

	it("a kept file replaced by a link out of children/, or corrupted: the continuation fails naming it; nothing reaches the provider", async () => {
		answerTo(fx, "Review the parser", "one bug: d");
		answerTo(fx, "Now fix it", "fixed d");
		const first = DurableRun.fresh(store, { script: script("Now fix it"), filename: "fixer.js" });
		expect(await recorded(first, script("Now fix it"))).toMatchObject({ status: "completed" });
		const runId = (await first.recorded) as string;
		const record = await store.open(runId);
		const kept = join(record.dir, "children", "000-reviewer-1.jsonl");
		const original = readFileSync(kept, "utf8");
		const before = fx.faux.requests.length;
		const resumeWith = async (fix: string) => {
			writeFileSync(join(record.dir, "script.js"), script(fix));
			return recorded(await DurableRun.resume(store, runId), script(fix));
		};

		// A file outside the run, in pi's session format, holding what must not reach a provider.
		const outside = join(root, "elsewhere.jsonl");
		const secret = { role: "user", content: [{ type: "text", text: "SECRET from outside the run" }], timestamp: 1 };
		const header = original.split("\n")[0];
		writeFileSync(
			outside,
			`${header}\n${JSON.stringify({ type: "message", id: "x1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: secret })}\n`,
		);
		unlinkSync(kept);
		symlinkSync(outside, kept);
		const linked = await resumeWith("Now fix it, linked");
		expect(linked.status).toBe("failed");
		expect(linked.error?.code).toBe("resume_unavailable");
		expect(linked.error?.message).toBe(
			`\`agent()\` option \`resume: "reviewer"\`: the conversation of call #1 \`reviewer\` was kept in ${kept}, which is now a link (to ${outside}): a continued child reads only the files the run kept in its children/ folder, so the link was not followed. Put the kept file back in its place, or start the run afresh rather than resuming it (3:26)`,
		);
		expect(fx.faux.requests.length).toBe(before);

		// A corrupt file: which line, and nothing is asked either.
		unlinkSync(kept);
		const lines = original.split("\n");
		writeFileSync(kept, [lines[0], lines[1], "{not json", ...lines.slice(2)].join("\n"));
		const corrupt = await resumeWith("Now fix it, corrupt");
		expect(corrupt.status).toBe("failed");
		expect(corrupt.error?.code).toBe("resume_unavailable");
		const message = corrupt.error?.message ?? "";
		const json = /line 3 is not JSON \((.+)\)\. Restore/.exec(message)?.[1];
		expect(json).toBeDefined();
		expect(message).toBe(
			`\`agent()\` option \`resume: "reviewer"\`: the conversation of call #1 \`reviewer\` was kept in ${kept}, which cannot be read as a conversation: line 3 is not JSON (${json}). Restore the file, or start the run afresh rather than resuming it (3:26)`,
		);
		expect(fx.faux.requests.length).toBe(before);

		// Restored: the continuation runs from it.
		writeFileSync(kept, original);
		answerTo(fx, "Now fix it, restored", "fixed d again");
		expect(await resumeWith("Now fix it, restored")).toMatchObject({
			status: "completed",
			value: { found: "one bug: d", fixed: "fixed d again" },
		});
	});

	it("a continued child's tokens are its own replies': the earlier call's are counted once, in that call", async () => {
		answerTo(fx, "Count the words", "forty two words");
		answerTo(fx, "Count them again", "forty two words");
		const events: WorkflowProgressEvent[] = [];
		const source = `${HEADER}await agent("Count the words", { label: "counter" });
return await agent("Count them again", { resume: "counter" });`;
		const result = await runWorkflowScript(source, {
			agentRunner: fx.runner(),
			cwd: fx.dirs.cwd,
			onProgress: (event) => events.push(event),
		});
		expect(result.status).toBe("completed");
		const outputs = events.flatMap((event) => (event.type === "agent_finished" ? [event.usage?.output] : []));
		// The same answer twice: the same output tokens, not the first answer's again in the second call's.
		expect(outputs).toHaveLength(2);
		expect(outputs[0]).toBeGreaterThan(0);
		expect(outputs[1]).toBe(outputs[0]);
		expect(result.usage.output).toBe((outputs[0] ?? 0) * 2);
	});
});
