import { describe, expect, it } from "vitest";
import type { FakeAnswer } from "../helpers/fake-runner.ts";
import { callLabelled, callsLabelled, phasesStarted, type Route, runExample } from "./harness.ts";

const FILE = "research-brief.js";
const QUESTION = "Should we move the build from webpack to esbuild?";

const ANGLES: Route = {
	when: { label: "split" },
	answer: {
		structured: {
			angles: [
				{ title: "speed", question: "How much faster is esbuild on projects like ours?" },
				{ title: "plugins", question: "Which of our webpack plugins have esbuild equivalents?" },
				{ title: "risk", question: "What broke for teams that migrated?" },
				{ title: "extra", question: "An angle past the limit" },
			],
		},
	},
};
const RESEARCH: Route[] = [
	{
		when: { label: "research:speed" },
		answer: {
			structured: {
				claims: [
					{ claim: "esbuild builds 10-100x faster", source: "https://esbuild.github.io/faq/" },
					{ claim: "Cold builds drop under a second", source: "bench/build.md:12" },
				],
			},
		},
	},
	{ when: { label: "research:plugins" }, answer: { fail: "search tool unavailable" } },
	{
		when: { label: "research:risk" },
		answer: {
			structured: {
				claims: [
					{ claim: "CSS modules need a plugin", source: "https://esbuild.github.io/faq/" },
					{ claim: "Type errors are no longer reported", source: "docs/ci.md:4" },
				],
			},
		},
	},
];

const vote = (verdict: string): FakeAnswer => ({ structured: { verdict, reason: `${verdict} by the source` } });
const FAILED: FakeAnswer = { fail: "skeptic crashed" };
/** Votes by claim, skeptic 1..3. */
const BALLOTS: Record<string, FakeAnswer[]> = {
	C1: [vote("supported"), vote("supported"), vote("refuted")],
	C2: [vote("supported"), FAILED, vote("refuted")],
	C3: [vote("supported"), FAILED, FAILED],
	C4: [FAILED, FAILED, vote("unsure")],
};
const SKEPTICS: Route = {
	when: { label: /^skeptic / },
	answer: (request) => {
		const [, k, id] = /^skeptic (\d):(C\d)$/.exec(request.label) ?? [];
		return BALLOTS[id as string]?.[Number(k) - 1] ?? { fail: `unexpected ${request.label}` };
	},
};
const WRITER: Route = { when: { label: "write" }, answer: "The brief [1][2]." };
const ROUTES = [ANGLES, ...RESEARCH, SKEPTICS, WRITER];

describe("research-brief.js", () => {
	it("researches each angle up to the limit, in its own phase, with the larger question in every prompt", async () => {
		const run = await runExample(FILE, { args: { question: QUESTION, angles: 3 }, routes: ROUTES });
		expect(run.runner.unmatched).toEqual([]);
		expect(phasesStarted(run)).toEqual(["split", "research", "cross-check", "write"]);
		expect(callLabelled(run, "split").prompt).toContain(`at most 3 independent research angles`);
		const researchers = callsLabelled(run, /^research:/);
		expect(researchers.map((r) => r.label)).toEqual(["research:speed", "research:plugins", "research:risk"]);
		for (const researcher of researchers) {
			expect(researcher).toMatchObject({ phase: "research", schema: { required: ["claims"] } });
			expect(researcher.prompt).toContain(`(Part of the larger question: ${QUESTION})`);
		}
	});

	it("asks independent skeptics per claim and counts a majority of the votes cast, failed skeptics abstaining", async () => {
		const run = await runExample(FILE, { args: { question: QUESTION, angles: 3 }, routes: ROUTES });
		const skeptics = callsLabelled(run, /^skeptic /);
		expect(skeptics).toHaveLength(12);
		expect(skeptics.every((s) => s.phase === "cross-check")).toBe(true);
		expect(callLabelled(run, "skeptic 2:C3").prompt).toContain("You are skeptic 2 of 3, working alone.");
		expect(callLabelled(run, "skeptic 2:C3").prompt).toContain(
			"Claim: CSS modules need a plugin\nSource: https://esbuild.github.io/faq/",
		);

		const value = run.result.value as {
			claims: Array<{ id: string; status: string; votes: unknown }>;
			unresearched: string[];
		};
		expect(value.claims.map((c) => [c.id, c.status, c.votes])).toEqual([
			["C1", "supported", { yes: 2, no: 1, abstained: 0 }],
			["C2", "contested", { yes: 1, no: 1, abstained: 1 }],
			["C3", "supported", { yes: 1, no: 0, abstained: 2 }],
			["C4", "unchecked", { yes: 0, no: 0, abstained: 3 }],
		]);
		expect(value.unresearched).toEqual(["plugins"]);
		// One census entry per failed child: the researcher and six skeptics.
		const failed = [
			"research:plugins",
			"skeptic 2:C2",
			"skeptic 2:C3",
			"skeptic 3:C3",
			"skeptic 1:C4",
			"skeptic 2:C4",
		];
		expect(run.result.failures.map((f) => f.label).sort()).toEqual(failed.sort());
	});

	it("writes the brief from the supported claims only, numbered by source, and names the unresearched angle", async () => {
		const run = await runExample(FILE, { args: { question: QUESTION, angles: 3 }, routes: ROUTES });
		const writer = callLabelled(run, "write");
		expect(writer.phase).toBe("write");
		expect(writer.prompt).toContain(
			'- esbuild builds 10-100x faster [1]\n- CSS modules need a plugin [1]\n\nEnd with this "Sources" list:\n[1] https://esbuild.github.io/faq/',
		);
		expect(writer.prompt).not.toContain("Cold builds");
		expect(writer.prompt).toContain("could not be researched: plugins.");
		expect(run.result.value).toMatchObject({
			brief: "The brief [1][2].",
			sources: ["https://esbuild.github.io/faq/"],
		});
	});

	it("when no claim survives: writes nothing and returns a null brief", async () => {
		const doubt: Route = { when: { label: /^skeptic / }, answer: vote("refuted") };
		const run = await runExample(FILE, {
			args: { question: QUESTION, angles: 3 },
			routes: [ANGLES, ...RESEARCH, doubt],
		});
		expect(callsLabelled(run, "write")).toEqual([]);
		expect(run.result.value).toMatchObject({ brief: null, sources: [] });
	});

	it("when the planner fails: fails the run with a message that points at the census", async () => {
		const run = await runExample(FILE, {
			args: { question: QUESTION },
			routes: [{ when: { label: "split" }, answer: FAILED }],
		});
		expect(run.result.status).toBe("failed");
		expect(run.result.error?.message).toContain("The planner failed");
		expect(run.result.failures).toEqual([expect.objectContaining({ label: "split", cause: "skeptic crashed" })]);
	});
});
