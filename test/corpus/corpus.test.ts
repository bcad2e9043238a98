/**
 * Public workflow scripts (Claude Code's `.claude/workflows/*.js` and the pi peers' bundled workflows) through
 * `pi-workflows check` and a run with plausible answers: each does what its manifest entry says a user would accept.
 */
import { afterAll, describe, expect, it } from "vitest";
import { shutdownSchemaWorker } from "../../src/runtime/index.ts";
import { sandboxStats } from "../../src/sandbox/index.ts";
import { type CorpusEntry, corpusEntries, outcomeLine, runCorpusEntry } from "./harness.ts";

const entries = corpusEntries();

afterAll(async () => {
	await shutdownSchemaWorker();
});

describe("the corpus", () => {
	it("holds at least 30 scripts, 20 of them Claude Code's, each with its source and licence", () => {
		expect(entries.length).toBeGreaterThanOrEqual(30);
		expect(entries.filter((e) => e.origin === "claude-code").length).toBeGreaterThanOrEqual(20);
		for (const entry of entries) {
			expect(entry.source.repo).toMatch(/^[\w.-]+\/[\w.-]+$/);
			expect(entry.source.path.length).toBeGreaterThan(0);
			expect(entry.licence.length).toBeGreaterThan(0);
			expect(entry.constructs.length).toBeGreaterThan(0);
		}
	});

	it("expects every Claude Code script to pass the check", () => {
		expect(entries.filter((e) => e.origin === "claude-code" && e.expected.outcome === "refused")).toEqual([]);
	});
});

describe.each(entries.map((entry) => [entry.file, entry] as [string, CorpusEntry]))("%s", (_file, entry) => {
	it(expectation(entry), async () => {
		const outcome = await runCorpusEntry(entry);
		const shown = outcomeLine(entry, outcome);
		const expected = entry.expected;
		const warned = entry.warnings ?? [];
		expect(outcome.checkWarnings.length, shown).toBe(warned.length);
		for (const text of warned) expect(outcome.checkWarnings.join("\n"), shown).toContain(text);
		if (expected.outcome === "refused") {
			expect(outcome.checkCode, shown).toBe(1);
			expect(outcome.checkErrors.join("\n"), shown).toContain(expected.message);
			expect(outcome.run.status, shown).toBe("failed");
			expect(outcome.run.error?.message, shown).toContain(expected.message);
			expect(outcome.calls, shown).toBe(0);
			return;
		}
		expect(outcome.checkErrors, shown).toEqual([]);
		expect(outcome.checkCode, shown).toBe(0);
		if (expected.outcome === "completes") {
			expect(outcome.run.status, shown).toBe("completed");
			expect(outcome.calls, shown).toBeGreaterThan(0);
		} else {
			expect(outcome.run.status, shown).toBe("failed");
			expect(outcome.run.error?.message, shown).toContain(expected.message);
		}
		const { liveSandboxes, activeRuns } = sandboxStats();
		expect({ liveSandboxes, activeRuns }).toEqual({ liveSandboxes: 0, activeRuns: 0 });
	});
});

function expectation(entry: CorpusEntry): string {
	const expected = entry.expected;
	if (expected.outcome === "completes") return "passes the check and completes";
	if (expected.outcome === "fails") return `passes the check and fails as its code says: ${expected.reason}`;
	return `is refused for ${expected.construct}, and the message says so`;
}
