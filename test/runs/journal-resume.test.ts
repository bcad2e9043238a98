/**
 * A resume from a journal with lines it cannot read, composed as the tool and the CLI compose a run (`DurableRun`
 * over the real store, real QuickJS, a scripted runner): the skipped lines are said once with where and why, only
 * their calls run again, and a miss is never blamed on another recorded call.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DurableRun, type DurableSource } from "../../src/host/durable-run.ts";
import type { RunStore } from "../../src/runs/index.ts";
import { runWorkflowScript, type WorkflowProgressEvent } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { tempStore } from "./support.ts";

checkSandboxLeaks();

// Prompts alike enough that a miss of the second would, by similarity, be put on the third (not asked yet).
const SOURCE: DurableSource = {
	script: `${HEADER}const out = [];
for (const fruit of ["apples", "bananas", "cherries"]) out.push(await agent("Note on " + fruit, { label: "note " + fruit }));
return out;`,
	filename: "notes.js",
};

/** One session of the run; its prompts run, its warnings (from the events and from the run's event log). */
async function session(durable: DurableRun) {
	const fake = createFakeRunner();
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(durable.original?.script ?? SOURCE.script, {
		agentRunner: fake.runner,
		filename: SOURCE.filename,
		journal: durable.journal,
		onProgress: (event) => {
			events.push(event);
			durable.progress(event, SOURCE);
		},
	});
	const outcome = await durable.finish(result);
	const warnings = events.flatMap((event) => (event.type === "log" && event.level === "warn" ? [event.message] : []));
	return { result, outcome, warnings, prompts: fake.requests.map((request) => request.prompt) };
}

/** A finished first run of the three notes; its journal's path and lines. */
async function firstRun(store: RunStore) {
	const first = await session(DurableRun.fresh(store, SOURCE));
	expect(first.result.status).toBe("completed");
	const runId = first.outcome.runId as string;
	const path = join((await store.open(runId)).dir, "journal.jsonl");
	const lines = readFileSync(path, "utf8").split("\n").slice(0, -1);
	expect(lines).toHaveLength(3);
	return { runId, path, lines };
}

async function eventLogWarnings(store: RunStore, runId: string): Promise<string[]> {
	const read = await (await store.open(runId)).readEventLog();
	return read.events.flatMap((event) =>
		event.type === "log" && event.level === "warn" && event.session === 2 ? [String(event.message)] : [],
	);
}

describe("a resume whose journal has lines it cannot read", () => {
	it("a garbage line 2: only that call runs again, the warning names path:2 and why, and blames no other call", async () => {
		const { store } = tempStore();
		const { runId, path, lines } = await firstRun(store);
		writeFileSync(path, `${[lines[0], "this is not json", lines[2]].join("\n")}\n`);

		const resumed = await session(await DurableRun.resume(store, runId));
		expect(resumed.result.status).toBe("completed");
		expect(resumed.result.value).toEqual(["done: Note on apples", "done: Note on bananas", "done: Note on cherries"]);
		expect(resumed.prompts).toEqual(["Note on bananas"]);
		expect(resumed.warnings).toEqual([
			expect.stringMatching(
				new RegExp(
					`^Resume: 1 journal line could not be read: ${literal(path)}:2: not JSON \\(.+\\)\\. The call it recorded runs again and is recorded anew`,
				),
			),
			`Resume: \`note bananas\` (#2) runs again instead of replaying: 1 journal line could not be read (${path}:2); this call may have been that line.`,
		]);
		for (const warning of resumed.warnings) expect(warning).not.toMatch(/cherries/);
		// Where a person looks back at the run (/workflows, the report): its event log has them too.
		expect(await eventLogWarnings(store, runId)).toEqual(resumed.warnings);
	});

	it("a mangled line whose key can still be read: the miss names that line as the call's own", async () => {
		const { store } = tempStore();
		const { runId, path, lines } = await firstRun(store);
		const mangled = (lines[1] as string).replace('"value":', '"value":,');
		writeFileSync(path, `${[lines[0], mangled, lines[2]].join("\n")}\n`);

		const resumed = await session(await DurableRun.resume(store, runId));
		expect(resumed.prompts).toEqual(["Note on bananas"]);
		expect(resumed.warnings[1]).toMatch(
			new RegExp(
				`^Resume: \`note bananas\` \\(#2\\) runs again instead of replaying: its journal line, ${literal(path)}:2, could not be read \\(not JSON \\(.+\\)\\)\\.$`,
			),
		);
	});

	it("a complete last entry with no trailing newline (a hand edit): kept on disk and replayed, no child runs", async () => {
		const { store } = tempStore();
		const { runId, path, lines } = await firstRun(store);
		writeFileSync(path, lines.join("\n"));

		const resumed = await session(await DurableRun.resume(store, runId));
		expect(resumed.prompts).toEqual([]);
		expect(resumed.warnings).toEqual([]);
		expect(resumed.result.value).toEqual(["done: Note on apples", "done: Note on bananas", "done: Note on cherries"]);
		expect(readFileSync(path, "utf8")).toBe(`${lines.join("\n")}\n`);
	});

	it("a torn last line (half an entry): cut and its call runs again, the warning naming the line", async () => {
		const { store } = tempStore();
		const { runId, path, lines } = await firstRun(store);
		const last = lines[2] as string;
		writeFileSync(path, `${lines[0]}\n${lines[1]}\n${last.slice(0, Math.floor(last.length / 2))}`);

		const resumed = await session(await DurableRun.resume(store, runId));
		expect(resumed.prompts).toEqual(["Note on cherries"]);
		expect(resumed.warnings[0]).toMatch(
			new RegExp(
				`^Resume: 1 journal line could not be read: ${literal(path)}:3: a torn last line: the run stopped while writing it; cut from the file\\. The call it recorded runs again`,
			),
		);
		expect(resumed.warnings[1]).toMatch(
			new RegExp(
				`^Resume: \`note cherries\` \\(#3\\) runs again instead of replaying: its journal line, ${literal(path)}:3, could not be read \\(a torn last line: the run stopped while writing it; cut from the file\\)\\.$`,
			),
		);
		// Cut, then recorded anew on a line of its own.
		expect(
			readFileSync(path, "utf8")
				.split("\n")
				.slice(0, -1)
				.map((line) => JSON.parse(line).key),
		).toEqual(lines.map((line) => JSON.parse(line).key));
	});
});

/** `text` as a regular expression that matches it only. */
function literal(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
