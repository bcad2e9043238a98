import { describe, expect, it } from "vitest";
import type { FakeAnswer } from "../helpers/fake-runner.ts";
import { callLabelled, callsLabelled, phasesStarted, type Route, runExample } from "./harness.ts";

const FILE = "map-reduce-summary.js";
const DOCS = ["d1.md", "d2.md", "d3.md", "d4.md", "d5.md", "d6.md"];

/** A summary whose text (no key points) is exactly `chars` long. */
const summary = (name: string, chars: number): FakeAnswer => ({
	structured: { summary: name.padEnd(chars, "."), keyPoints: [] },
});
/** Mapper summaries of 401, 401, 151, 151 and 151 characters; d6 cannot be read. */
const SIZES: Record<string, number> = { "d1.md": 401, "d2.md": 401, "d3.md": 151, "d4.md": 151, "d5.md": 151 };
const MAP: Route = {
	when: { label: /^map / },
	answer: (request) => {
		const doc = request.label.slice(4);
		return SIZES[doc] ? summary(`summary of ${doc}`, SIZES[doc]) : { fail: "file not found" };
	},
};
const REDUCE: Route = { when: { label: /^reduce / }, answer: (request) => summary(`merged ${request.label}`, 301) };

describe("map-reduce-summary.js", () => {
	it("maps every document with its own read-only agent and lists the unread one", async () => {
		const run = await runExample(FILE, { args: { documents: DOCS, batchChars: 1000 }, routes: [MAP, REDUCE] });
		expect(run.runner.unmatched).toEqual([]);
		expect(phasesStarted(run)).toEqual(["map", "reduce"]);
		const mappers = callsLabelled(run, /^map /);
		expect(mappers.map((m) => m.label)).toEqual(DOCS.map((d) => `map ${d}`));
		expect(mappers.every((m) => m.phase === "map" && m.schema !== undefined && !m.tools?.includes("edit"))).toBe(
			true,
		);
		expect(callLabelled(run, "map d2.md").prompt).toContain(
			"Read d2.md and summarise it for this purpose: the main points",
		);
		expect(run.result.value).toMatchObject({ unread: ["d6.md"] });
		expect(run.result.failures).toEqual([expect.objectContaining({ label: "map d6.md", cause: "file not found" })]);
	});

	it("packs summaries into batches by total characters and reduces level by level to one summary", async () => {
		const run = await runExample(FILE, { args: { documents: DOCS, batchChars: 1000 }, routes: [MAP, REDUCE] });
		// Level 1: 401 + 401 + 151 = 953 fits under 1000, the fourth would not; the rest make a second batch.
		expect(run.logs.filter((l) => l.phase === "reduce").map((l) => [l.message, l.data])).toEqual([
			["level 1: 5 summaries in 2 batches", { chars: [953, 302] }],
			["level 2: 2 summaries in 1 batches", { chars: [602] }],
		]);
		expect(callsLabelled(run, /^reduce /).map((r) => [r.label, r.phase])).toEqual([
			["reduce L1 #1", "reduce"],
			["reduce L1 #2", "reduce"],
			["reduce L2 #1", "reduce"],
		]);
		const first = callLabelled(run, "reduce L1 #1").prompt;
		expect(first).toContain("Merge these 3 summaries into one");
		expect(first).toMatch(
			/## Part 1\nsummary of d1\.md\.+\n\n## Part 2\nsummary of d2\.md\.+\n\n## Part 3\nsummary of d3\.md/,
		);
		const top = callLabelled(run, "reduce L2 #1").prompt;
		expect(top).toMatch(/## Part 1\nmerged reduce L1 #1\.+\n\n## Part 2\nmerged reduce L1 #2/);
		expect(run.result.value).toMatchObject({
			levels: 2,
			summary: expect.stringMatching(/^merged reduce L2 #1\.+$/),
			unmerged: [],
		});
	});

	it("when no two summaries fit in a batch: pairs them so that every level still shrinks", async () => {
		const big: Route = { when: { label: /^map / }, answer: (r) => summary(`summary of ${r.label.slice(4)}`, 600) };
		const small: Route = { when: { label: /^reduce / }, answer: (r) => summary(`merged ${r.label}`, 100) };
		const docs = ["a", "b", "c", "d"];
		const run = await runExample(FILE, { args: { documents: docs, batchChars: 500 }, routes: [big, small] });
		expect(callsLabelled(run, /^reduce L1/).map((r) => r.prompt.split("\n")[0])).toEqual([
			expect.stringContaining("Merge these 2 summaries"),
			expect.stringContaining("Merge these 2 summaries"),
		]);
		expect(run.result.value).toMatchObject({ levels: 2, unmerged: [] });
	});

	it("when a reducer fails: sends its inputs up a level unmerged instead of losing them", async () => {
		const routes = [{ when: { label: "reduce L1 #2" }, answer: { fail: "overloaded" } }, MAP, REDUCE];
		const run = await runExample(FILE, { args: { documents: DOCS, batchChars: 1000 }, routes });
		const top = callLabelled(run, "reduce L2 #1").prompt;
		expect(top).toContain("Merge these 3 summaries");
		expect(top).toMatch(/merged reduce L1 #1[\s\S]*summary of d4\.md[\s\S]*summary of d5\.md/);
		expect(run.result.value).toMatchObject({ levels: 2, summary: expect.stringMatching(/^merged reduce L2 #1/) });
	});

	it("past maxLevels: returns the summaries it could not merge, with their sources, and says how to go on", async () => {
		const run = await runExample(FILE, {
			args: { documents: DOCS, batchChars: 1000, maxLevels: 1 },
			routes: [MAP, REDUCE],
		});
		expect(run.result.value).toMatchObject({
			summary: null,
			levels: 1,
			unmerged: [
				{ sources: ["d1.md", "d2.md", "d3.md"], summary: expect.stringMatching(/^merged reduce L1 #1/) },
				{ sources: ["d4.md", "d5.md"], summary: expect.stringMatching(/^merged reduce L1 #2/) },
			],
		});
		expect(run.logs.at(-1)?.message).toBe("stopped after 1 levels with 2 summaries; raise maxLevels or batchChars");
	});
});
