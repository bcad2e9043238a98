import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runWorkflowScript, type WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

// Journals written by earlier versions are looked up by these keys: the values were taken from the code before the
// key was made cheaper to compute, and must never change.
const SCRIPT = `await agent("Say hello");
await agent("Say hello");
await agent("Summarise", { agent: "explore", model: "anthropic/claude-sonnet-4-5", thinking: "high", tools: ["read", "grep"], label: "sum" });
await agent("Pick one", { schema: { type: "object", required: ["b", "a"], properties: { b: { type: "string" }, a: { type: "integer", minimum: 1 } } } });
await agent("ünïcode \\u2028 \\"quoted\\"", { context: "fresh" });
await agent("Go on", { resume: "sum" });
await workflow("./child.js", { b: [1, 2], a: { y: null, x: true } });
return "ok";`;

const CHILD = `export const meta = { name: "child", description: "A nested workflow" };
await agent("inner " + args.a.x);
return 1;`;

const KEYS = [
	"08cd21be471cc013#0",
	"08cd21be471cc013#1",
	"55a6bc92880f07b5#0",
	"6615b79c2f03dd81#0",
	"43e75ce5cf1edd18#0",
	"8736cf26b220c72e#0",
	"child~bb44ce2897d0903f#0/92a4be50b7a2499b#0",
];

describe("agent() call keys", () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "wf-keys-"));
		writeFileSync(join(dir, "child.js"), CHILD);
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it("keep the values journals were written with", async () => {
		const events: WorkflowProgressEvent[] = [];
		const journal = memoryJournal();
		const fake = createFakeRunner((request) => (request.schema ? { structured: { a: 1, b: "x" } } : "done"));
		const result = await runWorkflowScript(`${HEADER}${SCRIPT}`, {
			agentRunner: fake.runner,
			journal,
			cwd: dir,
			onProgress: (event) => events.push(event),
		});
		expect(result.status).toBe("completed");
		const keys = events.filter((event) => event.type === "agent_queued").map((event) => event.key);
		expect(keys).toEqual(KEYS);
		expect([...journal.entries.keys()].sort()).toEqual([...KEYS].sort());
	});
});
