import { describe, expect, it } from "vitest";
import { callLabelled, callsLabelled, phasesStarted, type Route, runExample } from "./harness.ts";

const FILE = "review-and-fix.js";

const finding = (file: string, line: number, severity: string, title: string) => ({
	file,
	line,
	severity,
	title,
	detail: `details of ${title}`,
});

/** Reviewers that overlap: correctness and tests both see the off-by-one in math.ts (lines 10 and 11). */
const REVIEWS: Route[] = [
	{
		when: { label: "review:correctness" },
		answer: {
			structured: {
				findings: [
					finding("src/math.ts", 10, "medium", "Off-by-one in range"),
					finding("src/math.ts", 40, "high", "Division by zero"),
				],
			},
		},
	},
	{
		when: { label: "review:security" },
		answer: { structured: { findings: [finding("src/io.ts", 3, "high", "Path traversal in readUser")] } },
	},
	{
		when: { label: "review:tests" },
		answer: {
			structured: {
				findings: [
					finding("src/math.ts", 11, "high", "off by one in range()"),
					finding("src/math.ts", 90, "low", "Unused helper"),
				],
			},
		},
	},
];

const FIXED: Route = {
	when: { label: /^fix:/ },
	answer: (request) => ({ structured: { status: "fixed", summary: `fixed ${request.label}` } }),
};
const VERIFIED: Route = { when: { label: "verify" }, answer: { structured: { ok: true, problems: [] } } };

describe("review-and-fix.js", () => {
	it("runs one read-only reviewer per focus, merges their duplicates, and gives each kept finding one fixer", async () => {
		const run = await runExample(FILE, { args: { target: "src" }, routes: [...REVIEWS, FIXED, VERIFIED] });
		expect(run.result.status).toBe("completed");
		expect(run.runner.unmatched).toEqual([]);
		expect(phasesStarted(run)).toEqual(["review", "dedupe", "fix", "verify"]);

		const reviewers = callsLabelled(run, /^review:/);
		expect(reviewers.map((r) => r.label)).toEqual(["review:correctness", "review:security", "review:tests"]);
		for (const reviewer of reviewers) {
			expect(reviewer.phase).toBe("review");
			expect(reviewer.prompt).toContain("Review src for");
			expect(reviewer.schema).toMatchObject({ required: ["findings"] });
			expect(reviewer.tools).not.toContain("edit");
			expect(reviewer.tools).not.toContain("write");
		}

		// The two off-by-one reports became one finding, raised to the higher severity; the low one was dropped.
		const value = run.result.value as {
			findings: Array<{ id: string; title: string; severity: string; line: number }>;
		};
		expect(value.findings.map((f) => [f.id, f.title, f.severity])).toEqual([
			["F1", "Off-by-one in range", "high"],
			["F2", "Division by zero", "high"],
			["F3", "Path traversal in readUser", "high"],
		]);

		const fixers = callsLabelled(run, /^fix:/);
		expect(fixers.map((f) => f.label).sort()).toEqual(["fix:F1", "fix:F2", "fix:F3"]);
		expect(fixers.every((f) => f.phase === "fix" && f.schema !== undefined)).toBe(true);
		expect(callLabelled(run, "fix:F3").prompt).toContain(
			"Fix one finding in src/io.ts near line 3: Path traversal in readUser",
		);
	});

	it("runs the fixers of one file one after another, and those of different files side by side", async () => {
		// F1 (src/math.ts) answers only once F3 (src/io.ts) has started: if files took turns, the run could not finish.
		let f3Started: () => void = () => {};
		const gate = new Promise<void>((resolve) => {
			f3Started = resolve;
		});
		const routes: Route[] = [
			...REVIEWS,
			{
				when: { label: "fix:F1" },
				answer: { structured: { status: "fixed", summary: "one" } },
				waitFor: () => gate,
			},
			{
				when: { label: "fix:F3" },
				answer: () => {
					f3Started();
					return { structured: { status: "fixed", summary: "three" } };
				},
			},
			FIXED,
			VERIFIED,
		];
		const run = await runExample(FILE, { args: { target: "src" }, routes });
		const order = run.events.flatMap((e) =>
			(e.type === "agent_started" || e.type === "agent_finished") && e.label.startsWith("fix:")
				? [`${e.type}:${e.label}`]
				: [],
		);
		// F1 and F2 both touch src/math.ts: F2 starts only after F1 finished. F3 (src/io.ts) starts alongside F1.
		expect(order.indexOf("agent_started:fix:F2")).toBeGreaterThan(order.indexOf("agent_finished:fix:F1"));
		expect(order.indexOf("agent_started:fix:F3")).toBeLessThan(order.indexOf("agent_finished:fix:F1"));
	});

	it("hands the verifier only what was fixed, with the fixers' own summaries", async () => {
		const routes: Route[] = [
			...REVIEWS,
			{
				when: { label: "fix:F3" },
				answer: { structured: { status: "not-a-bug", summary: "input is sanitised upstream" } },
			},
			FIXED,
			VERIFIED,
		];
		const run = await runExample(FILE, { args: { target: "src" }, routes });
		const verify = callLabelled(run, "verify");
		expect(verify.phase).toBe("verify");
		expect(verify.prompt).toContain("- F1 src/math.ts: fixed fix:F1\n- F2 src/math.ts: fixed fix:F2\n");
		expect(verify.prompt).not.toContain("F3");
		expect(run.result.value).toMatchObject({ verification: { ok: true } });
	});

	it("reports a failed reviewer as unreviewed and a failed fixer as failed, without stopping the others", async () => {
		const routes: Route[] = [
			{ when: { label: "review:security" }, answer: { fail: "provider overloaded" } },
			{ when: { label: "fix:F2" }, answer: { fail: "ran out of turns" } },
			...REVIEWS,
			FIXED,
			VERIFIED,
		];
		const run = await runExample(FILE, { args: { target: "src" }, routes });
		expect(run.result.status).toBe("completed");
		const value = run.result.value as { unreviewed: string[]; fixes: Array<{ id: string; status: string }> };
		expect(value.unreviewed).toEqual(["security"]);
		expect(value.fixes).toEqual([
			expect.objectContaining({ id: "F1", status: "fixed" }),
			expect.objectContaining({ id: "F2", status: "failed" }),
		]);
		expect(run.result.failures).toEqual([
			expect.objectContaining({
				kind: "agent",
				label: "review:security",
				phase: "review",
				cause: "provider overloaded",
			}),
			expect.objectContaining({ kind: "agent", label: "fix:F2", phase: "fix", cause: "ran out of turns" }),
		]);
		expect(run.logs.map((l) => l.message)).toContain("some reviewers failed; their areas are unreviewed");
	});

	it("fixes at most maxFixes findings, most severe first, and lists the rest as deferred", async () => {
		const run = await runExample(FILE, {
			args: { target: "src", maxFixes: 1 },
			routes: [...REVIEWS, FIXED, VERIFIED],
		});
		expect(callsLabelled(run, /^fix:/).map((f) => f.label)).toEqual(["fix:F1"]);
		expect(run.result.value).toMatchObject({ deferred: ["F2", "F3"] });
	});

	it("with nothing to fix: runs neither fixers nor the verifier", async () => {
		const clean: Route = { when: { label: /^review:/ }, answer: { structured: { findings: [] } } };
		const run = await runExample(FILE, { args: { target: "src/math.ts" }, routes: [clean] });
		expect(run.calls).toHaveLength(3);
		expect(run.result.value).toMatchObject({ findings: [], fixes: [], verification: null });
	});

	it("rejects args outside its schema before any agent runs", async () => {
		const run = await runExample(FILE, { args: { target: "src", focus: [] }, routes: [] });
		expect(run.result.error?.code).toBe("args_invalid");
		expect(run.calls).toHaveLength(0);
	});
});
