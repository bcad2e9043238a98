/**
 * examples/evals/summary-focus.eval.json: an A/B of map-reduce-summary's `focus`, graded by grade-summary.js.
 * `pi-workflows eval <file> --dry-run` accepts it and plans every arm on every case (no model, nothing recorded), the
 * grader grades a run's output as the docs say, and docs/evaluating-workflows.md names the example.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { keylessEnv, ROOT } from "../helpers/package.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { runCommand } from "../helpers/spawn.ts";

checkSandboxLeaks();

const MAIN = join(ROOT, "src", "cli", "main.ts");
const EVAL = join(ROOT, "examples", "evals", "summary-focus.eval.json");
const GRADER = readFileSync(join(ROOT, "examples", "evals", "grade-summary.js"), "utf8");

const agentDir = mkdtempSync(join(tmpdir(), "wf-eval-example-"));
afterAll(() => rmSync(agentDir, { recursive: true, force: true }));

describe("examples/evals/summary-focus.eval.json", () => {
	it("`pi-workflows eval … --dry-run` plans both arms on every case and its grader, starting nothing", async () => {
		const result = await runCommand(process.execPath, [MAIN, "eval", EVAL, "--dry-run", "--json"], {
			cwd: ROOT,
			env: keylessEnv(agentDir),
			timeoutMs: 240_000,
		});
		expect(result.code, result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout);
		// Three cases × two arms × three trials; per trial, a mapper per document and a reducer where there are two or more.
		expect(plan.total).toMatchObject({ runs: 18, calls: 48 });
		expect(plan.arms.default).toMatchObject({ runs: 9, calls: 24 });
		expect(plan.arms.decisions).toMatchObject({ runs: 9, calls: 24 });
		expect(plan.grading).toMatchObject({ runs: 18, calls: 0 });
	}, 300_000);

	it("its grader passes a summary that names every expected word and fails one that misses any, or a failed run", async () => {
		const grade = async (output: unknown, status = "completed") =>
			(
				await runWorkflowScript(GRADER, {
					filename: "grade-summary.js",
					agentRunner: async () => {
						throw new Error("the grader calls no agent");
					},
					args: {
						case: { id: "release", expect: ["resume", "cap"] },
						output: output as never,
						status,
						error: null,
						costUsd: 0,
						durationMs: 1,
						runId: "wf-20261204-000000-aaaaaa",
					},
				})
			).value;
		const summary = (text: string) => ({ summary: text, keyPoints: [], levels: 1, unread: [], unmerged: [] });
		expect(await grade(summary("A run can Resume after its cost Cap"))).toEqual({
			pass: true,
			score: 1,
			reason: "names every expected word",
		});
		expect(await grade(summary("A run can resume"))).toEqual({
			pass: false,
			score: 0.5,
			reason: "does not name cap",
		});
		expect(await grade(null, "failed")).toEqual({ pass: false, score: 0, reason: "the run failed" });
	});

	it("is named in docs/evaluating-workflows.md", () => {
		const docs = readFileSync(join(ROOT, "docs", "evaluating-workflows.md"), "utf8");
		expect(docs).toContain("examples/evals/summary-focus.eval.json");
	});
});
