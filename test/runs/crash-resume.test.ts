/**
 * A crash: a child process running a workflow with a file-backed journal is killed with SIGKILL mid-run; a resume
 * in this process replays every call whose journal line was written — no duplicate, no loss — and runs the rest.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRunStore } from "../../src/runs/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { NODE, RUNS_ENTRY, tempStore } from "./support.ts";

checkSandboxLeaks();

const CALLS = 30;
const BODY = `return await parallel(Array.from({ length: ${CALLS} }, (_, i) => () => agent("item " + i)));`;
const RUNTIME_ENTRY = new URL("../../src/runtime/index.ts", import.meta.url).href;

/** The child: runs the workflow with the record's journal; answers come one by one, slowly, so it is killed midway. */
function childProgram(root: string, cwd: string, runId: string): string {
	return `
import { createRunStore } from ${JSON.stringify(RUNS_ENTRY)};
import { runWorkflowScript } from ${JSON.stringify(RUNTIME_ENTRY)};
const record = await createRunStore({ cwd: ${JSON.stringify(cwd)}, root: ${JSON.stringify(root)} }).open(${JSON.stringify(runId)});
await record.acquire();
const journal = await record.journal();
let n = 0;
await runWorkflowScript(record.info.script, {
	concurrency: 1,
	journal,
	agentRunner: async (request) => {
		await new Promise((resolve) => setTimeout(resolve, 15));
		return { id: "child-" + n++, type: request.agentType, status: "completed", result: "first run: " + request.prompt, usage: { input: 1, output: 1, total: 2 } };
	},
});
`;
}

describe("a run killed with SIGKILL mid-run", () => {
	it("resumes in a new process: every journaled call replays once, the rest run", async () => {
		const { store, root, base } = tempStore();
		const record = await store.create({ script: `${HEADER}${BODY}`, meta: { name: "t", description: "d" } });
		const program = join(base, "child.mts");
		writeFileSync(program, childProgram(root, store.cwd, record.id));
		const child = spawn(NODE, [program], { stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		const exited = new Promise<NodeJS.Signals | null>((resolve) =>
			child.on("exit", (_code, signal) => resolve(signal)),
		);

		// Kill it once a third of the calls are on disk, while it is in the middle of the rest.
		const journalPath = join(record.dir, "journal.jsonl");
		const lines = () => {
			try {
				return readFileSync(journalPath, "utf8").split("\n").filter(Boolean).length;
			} catch {
				return 0;
			}
		};
		const deadline = Date.now() + 20_000;
		while (lines() < CALLS / 3) {
			if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the child did not journal: ${stderr}`);
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		child.kill("SIGKILL");
		expect(await exited).toBe("SIGKILL");

		const reopened = await createRunStore({ cwd: store.cwd, root }).open(record.id);
		const lock = await reopened.acquire(); // the dead child's lock is taken over
		const journal = await reopened.journal();
		const saved = journal.entries();
		expect(saved.length).toBeGreaterThanOrEqual(CALLS / 3);
		expect(saved.length).toBeLessThan(CALLS);
		expect(journal.problems).toEqual([]);

		const fake = createFakeRunner((request) => `second run: ${request.prompt}`);
		const result = await runWorkflowScript(reopened.info.script, { agentRunner: fake.runner, journal });
		await journal.close();
		await lock.release();

		const value = result.value as string[];
		expect(result.status).toBe("completed");
		expect(value).toHaveLength(CALLS);
		const replayed = value.filter((answer) => answer.startsWith("first run: "));
		// Every call on disk replayed, and none ran twice.
		expect(replayed).toHaveLength(saved.length);
		expect(fake.requests).toHaveLength(CALLS - saved.length);
		expect(new Set(fake.requests.map((request) => request.prompt)).size).toBe(fake.requests.length);
		for (const request of fake.requests) expect(value).toContain(`second run: ${request.prompt}`);
		expect(result.counts).toMatchObject({ calls: CALLS, completed: CALLS, failed: 0 });
	});
});
