import { describe, expect, it } from "vitest";
import { callLabelled, callsLabelled, phasesStarted, type Route, runExample } from "./harness.ts";

const FILE = "test-triage.js";

const failure = (test: string, file: string) => ({ test, file, error: `${test} failed\n  at line 3` });
const RUN: Route = {
	when: { label: "run tests" },
	answer: {
		structured: {
			failures: [
				failure("adds", "test/math.test.ts"),
				failure("divides", "test/math.test.ts"),
				failure("fetches", "test/net.test.ts"),
				failure("reads", "test/io.test.ts"),
				failure("writes", "test/io.test.ts"),
			],
		},
	},
};
const cause = (category: string, suspectFile: string, text: string) => ({
	structured: { category, suspectFile, cause: text },
});
const CLASSIFY: Route[] = [
	{ when: { label: "classify adds" }, answer: cause("product-bug", "src/math.ts", "sum() drops the last item") },
	{ when: { label: "classify divides" }, answer: cause("product-bug", "src/math.ts", "same loop bug") },
	{ when: { label: "classify fetches" }, answer: cause("flaky", "src/net.ts", "times out on slow CI") },
	{ when: { label: "classify reads" }, answer: cause("test-bug", "test/io.test.ts", "fixture path is wrong") },
	{ when: { label: "classify writes" }, answer: { fail: "classifier timed out" } },
];
const FIX: Route = { when: { label: /^fix / }, answer: (r) => ({ structured: { summary: `changed for ${r.label}` } }) };
const CONFIRM: Route = { when: { label: "confirm" }, answer: { structured: { stillFailing: ["reads"] } } };
const ROUTES = [RUN, ...CLASSIFY, FIX, CONFIRM];

describe("test-triage.js", () => {
	it("runs the suite once, then one read-only classifier per failing test with its error in the prompt", async () => {
		const run = await runExample(FILE, { args: { command: "npx vitest run" }, routes: ROUTES });
		expect(run.runner.unmatched).toEqual([]);
		expect(phasesStarted(run)).toEqual(["run", "classify", "group", "fix", "confirm"]);
		expect(callLabelled(run, "run tests")).toMatchObject({ phase: "run", tools: ["bash", "read"] });
		expect(callLabelled(run, "run tests").prompt).toContain("Run `npx vitest run`");
		const classifiers = callsLabelled(run, /^classify /);
		expect(classifiers).toHaveLength(5);
		expect(classifiers.every((c) => c.phase === "classify" && !c.tools?.includes("edit"))).toBe(true);
		expect(callLabelled(run, "classify reads").prompt).toContain(
			'Test "reads" in test/io.test.ts fails with:\nreads failed\n  at line 3',
		);
	});

	it("groups failures by category and suspect file and makes one fix attempt per fixable group", async () => {
		const run = await runExample(FILE, { routes: ROUTES });
		const fixers = callsLabelled(run, /^fix /);
		expect(fixers.map((f) => f.label)).toEqual(["fix product-bug:src/math.ts", "fix test-bug:test/io.test.ts"]);
		expect(fixers.every((f) => f.phase === "fix")).toBe(true);
		const math = callLabelled(run, "fix product-bug:src/math.ts").prompt;
		expect(math).toContain("Fix this product-bug in src/math.ts: sum() drops the last item");
		expect(math).toContain(
			"- adds (test/math.test.ts): adds failed\n- divides (test/math.test.ts): divides failed\n",
		);
		expect(math).toContain("The tests are right; fix the code.");
		expect(callLabelled(run, "fix test-bug:test/io.test.ts").prompt).toContain("The code is right; fix the test.");
	});

	it("re-runs only the tests it tried to fix and reports each group's outcome; the failed classifier's test is unclassified", async () => {
		const run = await runExample(FILE, { routes: ROUTES });
		expect(callLabelled(run, "confirm").prompt).toContain(
			"Run only these tests with `npm test` and list the ones that still fail:\nadds\ndivides\nreads",
		);
		expect(run.result.value).toEqual({
			command: "npm test",
			status: "triaged",
			unclassified: ["writes"],
			groups: [
				{
					key: "product-bug:src/math.ts",
					cause: "sum() drops the last item",
					tests: ["adds", "divides"],
					outcome: "fixed",
					fix: "changed for fix product-bug:src/math.ts",
				},
				{
					key: "flaky:src/net.ts",
					cause: "times out on slow CI",
					tests: ["fetches"],
					outcome: "not attempted",
					fix: null,
				},
				{
					key: "test-bug:test/io.test.ts",
					cause: "fixture path is wrong",
					tests: ["reads"],
					outcome: "still failing",
					fix: "changed for fix test-bug:test/io.test.ts",
				},
			],
		});
		expect(run.result.failures).toEqual([expect.objectContaining({ label: "classify writes", phase: "classify" })]);
	});

	it("stops at maxGroups fix attempts, largest group first, and marks a failed fixer", async () => {
		const routes = [{ when: { label: /^fix / }, answer: { fail: "model refused" } }, ...ROUTES];
		const run = await runExample(FILE, { args: { maxGroups: 1 }, routes });
		expect(callsLabelled(run, /^fix /).map((f) => f.label)).toEqual(["fix product-bug:src/math.ts"]);
		expect(callLabelled(run, "confirm").prompt).toMatch(/still fail:\nadds\ndivides$/);
		const groups = (run.result.value as { groups: Array<{ key: string; outcome: string }> }).groups;
		expect(groups.map((g) => g.outcome)).toEqual(["fixer failed", "not attempted", "not attempted"]);
	});

	it("on a green suite: stops after the first run", async () => {
		const run = await runExample(FILE, {
			routes: [{ when: { label: "run tests" }, answer: { structured: { failures: [] } } }],
		});
		expect(run.calls).toHaveLength(1);
		expect(run.result.value).toEqual({ command: "npm test", status: "green", groups: [] });
	});
});
