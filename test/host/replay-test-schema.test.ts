/**
 * A replay test against a cassette whose schema'd answer no `agent()` could have returned (edited by hand, or
 * committed so): the answer is checked against the call's schema, and the test fails with a divergence that says
 * what in the answer broke which part of the schema. A cassette whose answers fit passes as before.
 */
import { describe, expect, it } from "vitest";
import type { ReplayCassette } from "../../src/host/cassette.ts";
import { testWorkflowAgainstRun } from "../../src/host/replay-test.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { memoryJournal } from "../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const SCRIPT = `${HEADER}const SEVERITY = { type: "object", properties: { severity: { enum: ["low", "high"] } }, required: ["severity"] };
const first = await agent("Triage the parser bug", { label: "triage parser", schema: SEVERITY });
const second = await agent("Triage the lexer bug", { label: "triage lexer", schema: SEVERITY });
return [first.severity, second.severity];
`;

/** A cassette of one real run of SCRIPT (answers from a scripted runner), its journal as the run recorded it. */
async function recorded(): Promise<ReplayCassette> {
	const journal = memoryJournal();
	const result = await runWorkflowScript(SCRIPT, {
		agentRunner: createFakeRunner(() => ({ structured: { severity: "low" } })).runner,
		journal,
	});
	expect(result.status).toBe("completed");
	return {
		version: 1,
		runId: "wf-20261204-120000-abcdef",
		status: "completed",
		value: result.value ?? null,
		journal: [...journal.entries.values()],
	};
}

describe("testWorkflowAgainstRun with a schema'd answer", () => {
	it("that fits: ok", async () => {
		const report = await testWorkflowAgainstRun({ source: SCRIPT, cassette: await recorded(), cwd: process.cwd() });
		expect(report).toMatchObject({ ok: true, matched: 2, divergences: [] });
	});

	it("that breaks its schema: a divergence naming what broke, not 0 divergences", async () => {
		const cassette = await recorded();
		const edited = cassette.journal[1];
		if (!edited) throw new Error("no second entry");
		edited.value = { severity: "urgent", extra: 1 };
		const report = await testWorkflowAgainstRun({ source: SCRIPT, cassette, cwd: process.cwd() });
		expect(report.ok).toBe(false);
		expect(report.matched).toBe(1);
		expect(report.unusedRecorded).toEqual([]);
		expect(report.divergences).toEqual([
			{
				kind: "agent",
				// 0-based in the JSON, as every index of the API; the words count from #1.
				index: 1,
				label: "triage lexer",
				key: edited.key,
				nearest: { key: edited.key, label: "triage lexer", index: 1 },
				differences: [
					'its recorded answer breaks its schema: `output.severity` must be equal to one of the allowed values: ["low","high"]',
				],
				explanation:
					'agent() #2 `triage lexer` has no usable recorded answer: its recorded answer breaks its schema: `output.severity` must be equal to one of the allowed values: ["low","high"]. It was answered as in a dry run.',
			},
		]);
	});

	it("that is not an object at all: a divergence saying so, not a new call", async () => {
		const cassette = await recorded();
		const edited = cassette.journal[0];
		if (!edited) throw new Error("no first entry");
		edited.value = "low";
		const report = await testWorkflowAgainstRun({ source: SCRIPT, cassette, cwd: process.cwd() });
		expect(report.ok).toBe(false);
		expect(report.divergences.map((d) => d.explanation)).toEqual([
			"agent() #1 `triage parser` has no usable recorded answer: its recorded answer is not one agent() could return here (a schema call's answer is an object, within the answer size limit). It was answered as in a dry run.",
		]);
		expect(report.unusedRecorded).toEqual([]);
	});
});
