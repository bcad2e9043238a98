/**
 * A resume whose edited calls miss the journal says so as it happens: a warning in the run's log naming the nearest
 * recorded call nothing matched and what differs. Real QuickJS, a scripted runner, a journal in memory that can
 * list its entries (as the run store's does).
 */
import { describe, expect, it } from "vitest";
import { MISS_LIMITS } from "../../../src/runtime/agent/replay-miss.ts";
import { runWorkflowScript, type WorkflowProgressEvent, type WorkflowRunOptions } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

/** Runs `body` (after a header) with a scripted runner; returns the result, the warnings and the prompts run. */
async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	const fake = createFakeRunner();
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event) => events.push(event),
		...options,
	});
	const warnings = events.flatMap((event) =>
		event.type === "log" && event.level === "warn" && event.message.startsWith("Resume:") ? [event.message] : [],
	);
	return { result, warnings, prompts: fake.requests.map((request) => request.prompt) };
}

const TAIL =
	"A call replays only when its prompt, agent type, schema, model, thinking, tools and isolation are byte for byte the recorded ones.";

const ORIGINAL = `phase("gather");
const notes = await parallel(["a", "b", "c"].map((x) => () => agent("Note on " + x, { label: "note " + x })));
phase("report");
const summary = await agent("Summarize the three notes for the release: " + notes.join(" | "), { label: "summarize" });
return summary.x.y;`;

describe("a resume whose calls miss the journal", () => {
	it("a prompt rewritten from memory: one warning naming the recorded call and where its prompt differs", async () => {
		const journal = memoryJournal({ listed: true });
		const first = await run(ORIGINAL, { journal });
		expect(first.result.error?.code).toBe("script_error");
		// Each line keeps what its key was made of.
		expect(journal.entries.get([...journal.entries.keys()][3] ?? "")?.identity).toMatchObject({
			promptHead: "Summarize the three notes for the release: done: Note on a | done: Note on b | done: Note on c",
			promptChars: 94,
			agentType: "general-purpose",
			index: 3,
		});

		const fixed = ORIGINAL.replace("Summarize the three notes", "Summarise the 3 notes").replace(
			"return summary.x.y;",
			"return summary;",
		);
		const second = await run(fixed, { journal });
		expect(second.prompts).toEqual([
			"Summarise the 3 notes for the release: done: Note on a | done: Note on b | done: Note on c",
		]);
		expect(second.warnings).toEqual([
			`Resume: \`summarize\` (#4) runs again instead of replaying: the nearest recorded call not matched so far, \`summarize\` (#4 then), has another prompt from character 8: recorded "Summarize the three notes for the rel…", now "Summarise the 3 notes for the release…" (94 characters then, 90 now). ${TAIL}`,
		]);
		expect(second.result.status).toBe("completed");
	});

	it.each([
		["a schema added", `await agent("rate it", { schema: { type: "object" } })`, "it had no schema and has one"],
		[
			"a model named",
			`await agent("rate it", { model: "openai/gpt-5" })`,
			"its model was not set and is `openai/gpt-5`",
		],
		[
			"another agent type",
			`await agent("rate it", { agentType: "reviewer" })`,
			"its agent type was `general-purpose` and is `reviewer`",
		],
		["tools named", `await agent("rate it", { tools: ["read"] })`, "its tools differ"],
	])("%s, same prompt: the warning says what changed", async (_name, edited, why) => {
		const journal = memoryJournal({ listed: true });
		await run(`return await agent("rate it");`, { journal });
		const second = await run(`return ${edited};`, {
			journal,
			agentTypes: ["general-purpose", "reviewer"],
		});
		expect(second.warnings).toEqual([
			`Resume: \`rate it\` (#1) runs again instead of replaying: the nearest recorded call not matched so far, \`rate it\` (#1 then), ${why}. ${TAIL}`,
		]);
	});

	it("another schema, same prompt: the warning says which of its properties and requirements changed", async () => {
		const journal = memoryJournal({ listed: true });
		await run(
			`return await agent("rate it", { schema: { type: "object", properties: { score: { type: "number" }, why: { type: "string" } }, required: ["score"] } });`,
			{ journal, agentRunner: createFakeRunner(() => ({ structured: { score: 1 } })).runner },
		);
		const second = await run(
			`return await agent("rate it", { schema: { type: "object", properties: { score: { type: "integer" }, tags: { type: "array" } }, required: ["score", "tags"] } });`,
			{ journal },
		);
		expect(second.warnings).toEqual([
			`Resume: \`rate it\` (#1) runs again instead of replaying: the nearest recorded call not matched so far, \`rate it\` (#1 then), its schema differs: properties \`tags\` added, \`why\` removed, \`score\` changed; \`required\` was [score] and is [score, tags]. ${TAIL}`,
		]);
	});

	it("a journal written before calls recorded their identity: the warning names the label only", async () => {
		const journal = memoryJournal({ listed: true });
		await run(`return await agent("Write the report", { label: "report" });`, { journal });
		for (const entry of journal.entries.values()) delete entry.identity;
		const second = await run(`return await agent("Write the short report", { label: "report" });`, { journal });
		expect(second.warnings).toEqual([
			`Resume: \`report\` (#1) runs again instead of replaying: the nearest recorded call not matched so far, \`report\`, the journal is from an older version that did not record what a call was made of, so what differs is unknown. ${TAIL}`,
		]);
		expect(second.result.value).toBe("done: Write the short report");
	});

	it("without a label in common: the most similar prompt of the same agent type, not an unrelated call", async () => {
		const journal = memoryJournal({ listed: true });
		await run(`return [await agent("Check acorn for updates"), await agent("Write the report")];`, { journal });
		const second = await run(
			`return [await agent("Check acorn for updates and breaking changes"), await agent("Write the report"), await agent("Something new")];`,
			{ journal },
		);
		expect(second.prompts).toEqual(["Check acorn for updates and breaking changes", "Something new"]);
		expect(second.warnings).toEqual([
			`Resume: \`Check acorn for updates and breaking changes\` (#1) runs again instead of replaying: the nearest recorded call not matched so far, \`Check acorn for updates\` (#1 then), has another prompt from character 24: recorded "Check acorn for updates", now "Check acorn for updates and breaking changes" (23 characters then, 44 now). ${TAIL}`,
		]);
	});

	it(`many edited calls: one warning each, at most ${MISS_LIMITS.warnings}, the last saying so`, async () => {
		const body = (word: string) =>
			`return await parallel(Array.from({ length: 15 }, (_, i) => () => agent("${word} item " + i, { label: "item " + i })));`;
		const journal = memoryJournal({ listed: true });
		await run(body("Fix"), { journal });
		const second = await run(body("Repair"), { journal });
		expect(second.prompts).toHaveLength(15);
		expect(second.warnings).toHaveLength(MISS_LIMITS.warnings);
		expect(second.warnings.map((warning) => /^Resume: `(item \d+)`/.exec(warning)?.[1])).toEqual(
			Array.from({ length: MISS_LIMITS.warnings }, (_, i) => `item ${i}`),
		);
		expect(second.warnings.at(-1)).toContain(`Further misses are not listed (at most ${MISS_LIMITS.warnings}).`);
	});

	it("nothing to say: a fresh run, a journal that cannot list, and a resume where every call replays", async () => {
		const fresh = await run(`return await agent("a");`, { journal: memoryJournal({ listed: true }) });
		expect(fresh.warnings).toEqual([]);

		const unlisted = memoryJournal({ listed: false });
		await run(`return await agent("a", { label: "x" });`, { journal: unlisted });
		expect((await run(`return await agent("b", { label: "x" });`, { journal: unlisted })).warnings).toEqual([]);

		const journal = memoryJournal({ listed: true });
		await run(`return [await agent("a"), await agent("b")];`, { journal });
		const again = await run(`return [await agent("b"), await agent("a"), await agent("c")];`, { journal });
		expect(again.prompts).toEqual(["c"]);
		expect(again.warnings).toEqual([]);
	});

	it("unreadable lines: said once at the start; one that names another call's key leaves a miss explained as before", async () => {
		const journal = memoryJournal({ listed: true });
		await run(`return [await agent("Check acorn"), await agent("Write the report")];`, { journal });
		const [acorn] = journal.entries.keys();
		const skipped = [
			// Recorded again further down the file: its call replays, so it is not said.
			{ where: "runs/j.jsonl:1", reason: "`value` is missing", key: acorn as string },
			{ where: "runs/j.jsonl:4", reason: "not an object", key: "some-other-call#0" },
		];
		const second = await run(`return [await agent("Check acorn"), await agent("Write the short report")];`, {
			journal: { ...journal, skipped: () => skipped },
		});
		expect(second.prompts).toEqual(["Write the short report"]);
		expect(second.warnings).toEqual([
			"Resume: 1 journal line could not be read: runs/j.jsonl:4: not an object. The call it recorded runs again and is recorded anew; a bad line still in the file can be fixed or deleted by hand.",
			expect.stringMatching(
				/^Resume: `Write the short report` \(#2\) runs again instead of replaying: the nearest recorded call not matched so far, `Write the report` \(#2 then\)/,
			),
		]);
	});
});
