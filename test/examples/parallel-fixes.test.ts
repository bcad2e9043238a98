import { describe, expect, it } from "vitest";
import { callLabelled, callsLabelled, phasesStarted, type Route, runExample } from "./harness.ts";

const FILE = "parallel-fixes.js";

const FIXES = [
	{ title: "add() subtracts", detail: "add(a, b) returns a - b", files: ["src/math.js"] },
	{ title: "README typo", detail: "'teh' in the intro" },
	{ title: "Flaky clock test", detail: "depends on the time of day" },
];

/** Resolves for everyone once `count` have arrived: proves they were all running at once, without timing. */
function barrier(count: number): () => Promise<void> {
	let arrived = 0;
	let open!: () => void;
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	return () => {
		if (++arrived === count) open();
		return opened;
	};
}

/** Fixers answer with the branch their label would get; the third gives up. */
const FIXERS: Route = {
	when: { label: /^fix \d/ },
	answer: (request) =>
		request.label.startsWith("fix 3")
			? { structured: { status: "gave-up", summary: "needs a fake clock", branch: "none" } }
			: { structured: { status: "fixed", summary: `fixed ${request.label}`, branch: `wf/${request.index}` } },
};

describe("parallel-fixes.js", () => {
	it("runs one isolated fixer per problem at once, then one merger given only the kept branches", async () => {
		const merger: Route = {
			when: { label: "merge" },
			answer: {
				structured: { merged: ["wf/0"], conflicts: [{ branch: "wf/1", files: ["README.md"] }], missing: [] },
			},
		};
		const run = await runExample(FILE, {
			args: { fixes: FIXES },
			routes: [{ ...FIXERS, waitFor: barrier(FIXES.length) }, merger],
		});
		expect(run.result.status).toBe("completed");
		expect(run.runner.unmatched).toEqual([]);
		expect(phasesStarted(run)).toEqual(["fix", "merge"]);

		const fixers = callsLabelled(run, /^fix \d/);
		expect(fixers.map((f) => f.label)).toEqual([
			"fix 1: add() subtracts",
			"fix 2: README typo",
			"fix 3: Flaky clock test",
		]);
		for (const fixer of fixers) {
			expect(fixer.isolation).toBe("worktree");
			expect(fixer.schema?.required).toEqual(["status", "summary", "branch"]);
		}
		expect(fixers[0]?.prompt).toContain("Start with: src/math.js");
		// All fixers at once (each waited until all three had started): worktrees keep their edits apart.

		const merge = callLabelled(run, "merge");
		expect(merge.isolation).toBeUndefined();
		expect(merge.tools).toEqual(["bash", "read"]);
		expect(merge.prompt).toContain("- wf/0: add() subtracts (fixed fix 1: add() subtracts)");
		expect(merge.prompt).toContain("- wf/1: README typo");
		expect(merge.prompt).not.toContain("Flaky");
		expect(merge.prompt).toContain("git merge --abort");
		expect(run.result.value).toEqual({
			fixes: [
				{ title: "add() subtracts", status: "fixed", summary: "fixed fix 1: add() subtracts", branch: "wf/0" },
				{ title: "README typo", status: "fixed", summary: "fixed fix 2: README typo", branch: "wf/1" },
				{ title: "Flaky clock test", status: "gave-up", summary: "needs a fake clock", branch: null },
			],
			merged: ["wf/0"],
			conflicts: [{ branch: "wf/1", files: ["README.md"] }],
			missing: [],
			unmerged: ["wf/1"],
		});
		expect(run.logs.map((l) => l.message)).toContain("some branches conflict");
	});

	it("a failed fixer is reported as failed; with merge: false nothing is merged and every kept branch is listed", async () => {
		const failing: Route = { when: { label: /^fix 2/ }, answer: { fail: "provider down" } };
		const run = await runExample(FILE, { args: { fixes: FIXES, merge: false }, routes: [failing, FIXERS] });
		expect(callsLabelled(run, "merge")).toEqual([]);
		expect(run.result.value).toMatchObject({
			fixes: [{ status: "fixed" }, { status: "failed", summary: null, branch: null }, { status: "gave-up" }],
			merged: [],
			unmerged: ["wf/0"],
		});
		expect(run.result.failures).toEqual([
			expect.objectContaining({ label: "fix 2: README typo", cause: "provider down" }),
		]);
	});

	it("no fixer kept anything: no merger runs", async () => {
		const nothing: Route = {
			when: { label: /^fix \d/ },
			answer: { structured: { status: "not-a-bug", summary: "works as intended", branch: "none" } },
		};
		const run = await runExample(FILE, { args: { fixes: FIXES.slice(0, 2) }, routes: [nothing] });
		expect(callsLabelled(run, "merge")).toEqual([]);
		expect(run.result.value).toMatchObject({ merged: [], unmerged: [] });
	});
});
