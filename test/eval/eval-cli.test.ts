/**
 * `pi-workflows eval` end to end, from `src/cli/main.ts`, children as pi sessions on the faux provider (`-e`
 * test/fixtures/faux-provider-extension.ts): its child answers `echo w` with "child answered W" and anything else
 * with "child answered: <task>", so an arm that asks `echo` for a case passes the grader and one that asks `say`
 * fails it. Every trial is a real run recorded in the run store; the tests count those records to see what started.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";
import { keylessEnv, ROOT } from "../helpers/package.ts";
import { runCommand, type SpawnResult } from "../helpers/spawn.ts";

const MAIN = join(ROOT, "src", "cli", "main.ts");
const FAUX = join(ROOT, "test", "fixtures", "faux-provider-extension.ts");
const PI = ["-e", FAUX, "--model", "faux/faux-1"];

let project: string;
let agentDir: string;
const repos: TempRepo[] = [];

/** Passes the cases whose `n` is a multiple of 4 (it asks `echo` for them), fails the others. */
const WEAK = `export const meta = { name: "weak", description: "right on one case in four" };
return await agent((args.n % 4 === 0 ? "echo " : "say ") + args.word);`;
const STRONG = `export const meta = { name: "strong", description: "right on every case" };
return await agent("echo " + args.word);`;
const GRADE = `export const meta = { name: "grade", description: "the answer names the word in capitals" };
const text = String(args.output ?? "");
return { pass: args.status === "completed" && text.includes(args.case.expect), reason: text.slice(0, 40) };`;
/** A model-graded rubric: its own child repeats the expected word, and the output must carry it too. */
const RUBRIC = `export const meta = { name: "rubric", description: "a model checks the answer" };
const verdict = await agent("echo " + args.case.expect);
return { pass: String(verdict).includes(args.case.expect) && String(args.output).includes(args.case.expect) };`;
const LENIENT = `export const meta = { name: "grade", description: "any completed run passes" };
return { pass: args.status === "completed" };`;

beforeAll(() => {
	project = mkdtempSync(join(tmpdir(), "wf-eval-project-"));
	agentDir = mkdtempSync(join(tmpdir(), "wf-eval-agent-"));
	write("weak.js", WEAK);
	write("strong.js", STRONG);
	write("grade.js", GRADE);
	write("lenient.js", LENIENT);
	write("rubric.js", RUBRIC);
});
afterAll(() => {
	rmSync(project, { recursive: true, force: true });
	rmSync(agentDir, { recursive: true, force: true });
	for (const repo of repos.splice(0)) repo.dispose();
});

function write(name: string, text: string, dir = project): string {
	writeFileSync(join(dir, name), `${text}\n`);
	return join(dir, name);
}

/** `count` cases `{ n, word }`, each expecting the word in capitals. */
function cases(count: number) {
	return Array.from({ length: count }, (_, n) => ({ id: `c${n}`, args: { n, word: `w${n}` }, expect: `W${n}` }));
}

function evalFile(name: string, spec: Record<string, unknown>, dir = project): string {
	return write(name, JSON.stringify(spec, null, 1), dir);
}

function env(): NodeJS.ProcessEnv {
	return keylessEnv(agentDir);
}

function cli(args: string[], cwd = project): Promise<SpawnResult> {
	return runCommand(process.execPath, [MAIN, "eval", ...args], { cwd, env: env(), timeoutMs: 240_000 });
}

/** Run records in the store, all projects: one per run started. */
function recordedRuns(): number {
	const root = join(agentDir, "workflow-runs");
	let count = 0;
	for (const folder of safeList(root))
		count += safeList(join(root, folder)).filter((name) => name.startsWith("wf-")).length;
	return count;
}

function safeList(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}

function json(result: SpawnResult) {
	try {
		return JSON.parse(result.stdout);
	} catch {
		throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
	}
}

describe("pi-workflows eval", () => {
	it("an arm whose children succeed far more often than the baseline's is better, exit 0; --require better holds", async () => {
		const file = evalFile("ab.eval.json", {
			cases: cases(12),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
			baseline: "A",
			grader: "grade.js",
			concurrency: 3,
		});
		const before = recordedRuns();
		const result = await cli([file, ...PI, "--json", "--require", "better"]);
		expect(result.code, result.stderr).toBe(0);
		const card = json(result);
		expect(recordedRuns() - before).toBe(72);
		expect(card.finished).toBe(72);
		expect(card.arms.A.passRate).toBe(0.25);
		expect(card.arms.B.passRate).toBe(1);
		expect(card.comparisons).toEqual([expect.objectContaining({ arm: "B", baseline: "A", verdict: "better" })]);
		// Each trial kept its recorded run, graded.
		expect(new Set(card.trials.map((trial: { runId: string }) => trial.runId)).size).toBe(72);
		expect(card.trials[0]).toMatchObject({ caseId: "c0", arm: "A", trial: 1, status: "completed" });
		expect(card.trials[0].grade).toMatchObject({ pass: true, costUsd: 0 });
	}, 300_000);

	it("an arm worse than the baseline is exit 1, its verdict says so", async () => {
		const file = evalFile("worse.eval.json", {
			cases: cases(12),
			arms: { now: { workflow: "strong.js" }, edit: { workflow: "weak.js" } },
			trials: 1,
			grader: "grade.js",
			concurrency: 3,
		});
		const result = await cli([file, ...PI]);
		expect(result.code, result.stderr).toBe(1);
		expect(result.stdout).toMatch(/^edit is worse: −75 points \(95 %: /m);
	}, 300_000);

	it("a failing trial is blamed against a passing one of its case (another arm of the same workflow): the scorecard names its decisive call", async () => {
		const answer = (verb: string) =>
			`export const meta = { name: "answer", description: "one answer" };\nreturn await agent("${verb} " + args.word, { label: "answer" });`;
		write("answer-say.js", answer("say"));
		write("answer-echo.js", answer("echo"));
		const file = evalFile("blame.eval.json", {
			cases: cases(2),
			arms: { A: { workflow: "answer-say.js" }, B: { workflow: "answer-echo.js" } },
			trials: 1,
			grader: "grade.js",
		});
		const before = recordedRuns();
		const text = await cli([file, ...PI]);
		expect(recordedRuns() - before).toBe(4);
		expect(text.stdout).toContain("Blame, arm A: `answer` decided 2 of 2 failing trials");
		expect(text.stdout).toContain("  A c0 #1: failed because of `answer`: swapping its answer passes (against B #1)");
		const evalId = /ev-[\w-]+/.exec(text.stderr)?.[0] ?? "";
		const card = json(await cli(["--regrade", evalId, "--json"]));
		expect(card.blame.arms).toEqual({ A: { failing: 2, blamed: 2, decisive: { answer: 2 } } });
		expect(card.blame.trials[1]).toMatchObject({
			caseId: "c1",
			arm: "A",
			against: { arm: "B", trial: 1 },
			decisive: ["answer"],
		});
		// --report: a failing trial's run report says what decided it and marks the call; a passing one's says nothing.
		const html = join(project, "blame.html");
		expect((await cli(["--regrade", evalId, "--report", html])).stderr).toContain(`Scorecard: ${html}\n`);
		const reportOf = (runId: string) =>
			readFileSync(
				fileURLToPath(
					new RegExp(`<a href="(file:[^"]+/${runId}/report.html)"`).exec(readFileSync(html, "utf8"))?.[1] ?? "",
				),
				"utf8",
			);
		const failing = reportOf(card.blame.trials[1].runId);
		const against = card.blame.trials[1].against.runId;
		expect(failing).toContain(
			`<h2>What decided it</h2><p class="sub">failed because of \`answer\`: swapping its answer passes (against run ${against}: arm B, trial #1)</p>`,
		);
		expect(failing).toMatch(/<tr class="decisive" data-c="\d+"><td>#1 answer<\/td>/);
		expect(failing).toContain('"decided":"decisive: with the passing run');
		expect(reportOf(against)).not.toContain("What decided it");
	}, 300_000);

	it("a pairwise grader compares the two arms' outputs of each case and trial, in a random order it records", async () => {
		write(
			"judge.js",
			`export const meta = { name: "judge", description: "the output naming the word in capitals wins" };
const good = (side) => String(side.output ?? "").includes(args.case.expect);
const [a, b] = [good(args.a), good(args.b)];
return { winner: a === b ? "tie" : a ? "a" : "b", reason: a === b ? "both alike" : "one names the word" };`,
		);
		const file = evalFile("pairwise.eval.json", {
			cases: cases(12),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
			trials: 2,
			grader: "judge.js",
			pairwise: true,
			concurrency: 3,
		});
		const result = await cli([file, ...PI, "--json"]);
		expect(result.code, result.stderr).toBe(0);
		const card = json(result);
		expect(card.ungraded).toEqual([]);
		expect(card.comparisons).toEqual([expect.objectContaining({ arm: "B", verdict: "better" })]);
		type Graded = {
			caseId: string;
			arm: string;
			grade: { pass: boolean; pairwise: { first: string; winner: string } };
		};
		const trials = card.trials as Graded[];
		// Cases A gets right are ties: neither arm wins; on the others B wins.
		expect(
			trials.filter((t) => t.caseId === "c4").map((t) => [t.arm, t.grade.pass, t.grade.pairwise.winner]),
		).toEqual([
			["A", false, "tie"],
			["B", false, "tie"],
			["A", false, "tie"],
			["B", false, "tie"],
		]);
		expect(
			trials.filter((t) => t.caseId === "c1").map((t) => [t.arm, t.grade.pass, t.grade.pairwise.winner]),
		).toEqual([
			["A", false, "B"],
			["B", true, "B"],
			["A", false, "B"],
			["B", true, "B"],
		]);
		// The order the judge saw each pair in is recorded, and both orders occur.
		const firsts = new Set(trials.filter((t) => t.arm === "A").map((t) => t.grade.pairwise.first));
		expect(firsts).toEqual(new Set(["A", "B"]));
		// Regraded with a judge that sees no difference: every pair a tie, no run started.
		const runs = recordedRuns();
		write(
			"judge.js",
			`export const meta = { name: "judge", description: "sees no difference" };\nreturn { winner: "tie" };`,
		);
		const regraded = json(await cli(["--regrade", card.evalId, ...PI, "--json"]));
		expect(recordedRuns()).toBe(runs);
		expect(new Set((regraded.trials as Graded[]).map((t) => t.grade.pairwise.winner))).toEqual(new Set(["tie"]));
		expect(regraded.comparisons[0].verdict).toBe("no detectable difference");
	}, 300_000);

	it("the same workflow as both arms: no detectable difference, exit 0; the terminal scorecard has a row per arm", async () => {
		const file = evalFile("aa.eval.json", {
			cases: cases(8),
			arms: { A: { workflow: "weak.js" }, "A-again": { workflow: "weak.js" } },
			trials: 2,
			grader: "grade.js",
			concurrency: 3,
		});
		const result = await cli([file, ...PI]);
		expect(result.code, result.stderr).toBe(0);
		const lines = result.stdout.split("\n");
		expect(lines.find((line) => line.startsWith("A (baseline)"))).toMatch(/^A \(baseline\)\s+25 % \(/);
		expect(lines.find((line) => line.startsWith("A-again"))).toMatch(/^A-again\s+25 % \(/);
		expect(result.stdout).toContain("no detectable difference");
		expect(result.stdout).toMatch(/Spent: arms \$0\.0000, grading \$0\.0000/);
	}, 300_000);

	it("--dry-run counts cases × arms × trials and starts no run", async () => {
		const file = evalFile("dry.eval.json", {
			cases: cases(12),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
			grader: "grade.js",
		});
		const before = recordedRuns();
		const text = await cli([file, ...PI, "--dry-run"]);
		expect(text.code, text.stderr).toBe(0);
		expect(text.stdout).toContain("12 cases × 2 arms × 3 trials = 72 runs (dry run: nothing started)");
		expect(text.stdout).toMatch(/ {2}A: 36 runs, 36 agent calls, estimated/);
		const data = json(await cli([file, ...PI, "--dry-run", "--json", "--trials", "2", "--cases", "c1,c2"]));
		expect(data.total).toMatchObject({ runs: 8, calls: 8 });
		expect(data.arms.B).toMatchObject({ runs: 4, calls: 4 });
		expect(data.grading).toMatchObject({ runs: 8, calls: 0 });
		// A model-graded grader's calls are counted apart: one per trial it grades.
		const paid = evalFile("dry-paid.eval.json", {
			cases: cases(3),
			arms: { A: { workflow: "strong.js" } },
			trials: 2,
			grader: "rubric.js",
		});
		const priced = await cli([paid, ...PI, "--dry-run"]);
		expect(priced.stdout).toContain("3 cases × 1 arms × 2 trials = 6 runs (dry run: nothing started)");
		expect(priced.stdout).toMatch(/^ {2}grading \(rubric\.js\): 6 grades, 6 agent calls, estimated /m);
		expect(priced.stdout).toMatch(/^ {2}in all: 6 runs, 12 agent calls, estimated /m);
		expect(recordedRuns()).toBe(before);
	}, 120_000);

	it("--regrade with a changed grader starts no run and changes the verdict", async () => {
		const file = evalFile("regrade.eval.json", {
			cases: cases(12),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
			trials: 1,
			grader: "lenient.js",
			concurrency: 3,
		});
		const first = json(await cli([file, ...PI, "--json"]));
		expect(first.comparisons[0].verdict).toBe("no detectable difference");
		const runs = recordedRuns();
		evalFile("regrade.eval.json", {
			cases: cases(12),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
			trials: 1,
			grader: "grade.js",
		});
		// A code grader needs no model: regrading sets no pi up for it (a --model pi does not know goes unused).
		const again = await cli(["--regrade", first.evalId, "--model", "nowhere/none", "--json"]);
		expect(again.code, again.stderr).toBe(0);
		const card = json(again);
		expect(recordedRuns()).toBe(runs);
		expect(card.evalId).toBe(first.evalId);
		expect(card.comparisons[0].verdict).toBe("better");
		expect(card.trials.map((trial: { runId: string }) => trial.runId)).toEqual(
			first.trials.map((trial: { runId: string }) => trial.runId),
		);
		const listed = await cli(["--list"]);
		expect(listed.stdout).toContain(`${first.evalId}  regrade  24/24 trials`);
		// --report: the scorecard as HTML, each trial's mark linking to its run's report, written beside the run.
		const html = join(project, "regrade.html");
		const reported = await cli(["--regrade", first.evalId, ...PI, "--report", html]);
		expect(reported.stderr).toContain(`Scorecard: ${html}\n`);
		const page = readFileSync(html, "utf8");
		const links = [...page.matchAll(/<a href="(file:[^"]+)"/g)].map((m) => fileURLToPath(m[1] as string));
		expect(links).toHaveLength(24);
		for (const link of links) expect(readFileSync(link, "utf8")).toMatch(/^<!doctype html>/i);
		expect(recordedRuns()).toBe(runs);
	}, 300_000);

	it("a model-graded grader's cost is shown apart from the arms'; the dollar cap holds across the eval and its resume", async () => {
		const file = evalFile("paid.eval.json", {
			cases: cases(4),
			arms: { A: { workflow: "strong.js" } },
			trials: 1,
			grader: "rubric.js",
			concurrency: 1,
		});
		const priced = ["-e", FAUX, "--model", "faux/faux-priced"];
		// One trial and its grading cost about $0.015: at $0.02 the second trial is the last to start.
		const capped = await cli([file, ...priced, "--max-cost", "0.02", "--json"]);
		expect(capped.code, capped.stderr).toBe(1);
		const first = json(capped);
		expect(first).toMatchObject({ planned: 4, finished: 2, unfinished: "the eval's cap of $0.02 is spent" });
		expect(first.armsCostUsd).toBeGreaterThan(0);
		expect(first.gradingCostUsd).toBeGreaterThan(0);
		expect(first.gradingCostUsd).toBe(first.trials[0].grade.costUsd + first.trials[1].grade.costUsd);
		expect(first.armsCostUsd).toBe(first.trials[0].costUsd + first.trials[1].costUsd);
		const resumed = await cli(["--resume", first.evalId, ...priced, "--max-cost", "1"]);
		expect(resumed.code, resumed.stderr).toBe(0);
		expect(resumed.stderr.match(/^\[\d+\/4\]/gm)).toEqual(["[3/4]", "[4/4]"]);
		expect(resumed.stdout).toMatch(/Spent: arms \$0\.0\d+, grading \$0\.0\d+/);
		expect(resumed.stdout).not.toContain("grading $0.0000");
	}, 300_000);

	it("a run that fails is graded too: without a grader it fails; a grader sees its status and error", async () => {
		write(
			"odd-fails.js",
			`export const meta = { name: "odd-fails", description: "throws on odd cases" };
if (args.n % 2 === 1) throw new Error("odd case " + args.n);
return await agent("echo " + args.word);`,
		);
		write(
			"sees-errors.js",
			`export const meta = { name: "sees-errors", description: "passes the failures it expects" };
return { pass: args.status === "failed" && args.error.message.includes("odd case"), reason: args.error?.message ?? "none" };`,
		);
		const spec = { cases: cases(4), arms: { A: { workflow: "odd-fails.js" } }, trials: 1 };
		const file = evalFile("fails.eval.json", spec);
		const card = json(await cli([file, ...PI, "--json"]));
		expect(
			card.trials.map((t: { status: string; grade: { pass: boolean; reason: string } }) => [
				t.status,
				t.grade.pass,
				t.grade.reason,
			]),
		).toEqual([
			["completed", true, "completed"],
			["failed", false, "the run failed"],
			["completed", true, "completed"],
			["failed", false, "the run failed"],
		]);
		expect(card.trials[1].error.message).toContain("odd case 1");
		evalFile("fails.eval.json", { ...spec, grader: "sees-errors.js" });
		const regraded = json(await cli(["--regrade", card.evalId, ...PI, "--json"]));
		expect(regraded.trials.map((t: { grade: { pass: boolean } }) => t.grade.pass)).toEqual([
			false,
			true,
			false,
			true,
		]);
		expect(regraded.trials[1].grade.reason).toMatch(/odd case 1/);
	}, 120_000);

	it("a wrong command line, eval file or arm script: exit 2, one line saying what to change, nothing run", async () => {
		const before = recordedRuns();
		const usage = await cli([]);
		expect([usage.code, usage.stderr]).toEqual([
			2,
			"pi-workflows: `eval` takes one of: an eval file, --resume <evalId>, --regrade <evalId> or --list. See `pi-workflows eval --help`\n",
		]);
		const require = await cli([join(project, "ab.eval.json"), "--require", "maybe"]);
		expect([require.code, require.stderr]).toEqual([
			2,
			'pi-workflows: --require takes better or not-worse, got "maybe"\n',
		]);
		const empty = evalFile("empty.eval.json", { cases: [], arms: { A: { workflow: "weak.js" } } });
		const noCases = await cli([empty, ...PI]);
		expect([noCases.code, noCases.stderr]).toEqual([
			2,
			`pi-workflows: ${empty}: there are no cases. Add at least one case to run the arms on\n`,
		]);
		write("broken.js", `export const meta = { name: "broken", description: "does not parse" };\nconst x = ;`);
		const broken = await cli([
			evalFile("broken.eval.json", { cases: cases(1), arms: { A: { workflow: "broken.js" } } }),
			...PI,
		]);
		expect(broken.code).toBe(2);
		expect(broken.stderr).toMatch(new RegExp(`^pi-workflows: ${join(project, "broken.js")}:2:11: `));
		const narrowed = await cli(["--resume", "ev-20261204-203000-zzzzzz", "--cases", "c1", "--trials", "1"]);
		expect([narrowed.code, narrowed.stderr]).toEqual([
			2,
			"pi-workflows: --cases, --trials shape a new eval, and --resume takes a past one as it was planned: give the eval file instead (pi-workflows eval <file> --cases …)\n",
		]);
		const unknown = await cli(["--resume", "ev-20261204-203000-zzzzzz"]);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toContain("No eval ev-20261204-203000-zzzzzz");
		expect(recordedRuns()).toBe(before);
	}, 120_000);

	it("what pi warns about while setting up each trial is said once for the whole eval", async () => {
		const dir = mkdtempSync(join(tmpdir(), "wf-eval-warn-"));
		try {
			mkdirSync(join(dir, ".pi", "agents"), { recursive: true });
			write(".pi/agents/odd.md", "---\nname: odd\ndescription: an odd one\nflavour: sour\n---\nYou are odd.", dir);
			write("strong.js", STRONG, dir);
			const file = evalFile(
				"w.eval.json",
				{ cases: cases(2), arms: { A: { workflow: "strong.js" }, B: { workflow: "strong.js" } }, trials: 1 },
				dir,
			);
			const result = await cli([file, ...PI, "-a"], dir);
			expect(result.code, result.stderr).toBe(0);
			expect(result.stderr.match(/^Warning: .*`flavour`$/gm)).toHaveLength(1);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 120_000);

	it("what a trial cut at the cap spent still counts against the cap when the eval resumes", async () => {
		write(
			"three.js",
			`export const meta = { name: "three", description: "three calls in a row" };
await agent("echo " + args.word);
await agent("echo " + args.word);
return await agent("echo " + args.word);`,
		);
		const file = evalFile("cut.eval.json", {
			cases: cases(1),
			arms: { A: { workflow: "three.js" } },
			trials: 1,
			maxCostUsd: 0.01,
		});
		const priced = ["-e", FAUX, "--model", "faux/faux-priced"];
		const before = recordedRuns();
		// Two calls at about $0.008 each go past $0.01: the run stops at the cap, and the trial is not kept.
		const cut = json(await cli([file, ...priced, "--json"]));
		expect(cut).toMatchObject({ finished: 0, unfinished: "the eval's cap of $0.01 is spent" });
		expect(recordedRuns() - before).toBe(1);
		const resumed = await cli(["--resume", cut.evalId, ...priced, "--json"]);
		expect(resumed.code).toBe(1);
		const card = json(resumed);
		expect(card).toMatchObject({ finished: 0, unfinished: "the eval's cap of $0.01 is spent", armsCostUsd: 0 });
		expect(card.discardedCostUsd).toBeGreaterThan(0.01);
		expect(recordedRuns() - before).toBe(1);
	}, 120_000);

	it("an eval killed halfway resumes without running its finished trials again", async () => {
		const file = evalFile("killed.eval.json", {
			cases: cases(6),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
			trials: 1,
			grader: "grade.js",
			concurrency: 1,
		});
		// Killed once 4 trials are saved (a 5th may land before the signal does: it counts as finished too).
		const { evalId, finished } = await signalAfter(file, 4, "SIGKILL");
		expect(finished.length).toBeGreaterThanOrEqual(4);
		expect(finished.length).toBeLessThan(12);
		const resumed = await cli(["--resume", evalId, ...PI, "--json"]);
		expect(resumed.code, resumed.stderr).toBe(0);
		expect(resumed.stderr).toContain(`Resuming eval ${evalId}: ${finished.length} trials finished before`);
		// Only the unfinished trials ran this time.
		expect(resumed.stderr.match(/^\[\d+\/12\]/gm)).toHaveLength(12 - finished.length);
		const card = json(resumed);
		expect(card.finished).toBe(12);
		const runIds = card.trials.map((trial: { runId: string }) => trial.runId);
		for (const runId of finished) expect(runIds).toContain(runId);
	}, 300_000);

	it("one process at a time: a resume of an eval still running is refused; once its process died, it resumes", async () => {
		// Arm B's child waits until it is stopped: the eval is surely still running while the resume is tried.
		write(
			"blocks.js",
			`export const meta = { name: "blocks", description: "waits until stopped" };
return await agent("wait " + args.word);`,
		);
		const file = evalFile("locked.eval.json", {
			cases: cases(2),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "blocks.js" } },
			trials: 1,
			concurrency: 1,
		});
		let refused: SpawnResult | undefined;
		const { evalId } = await killAfter(["eval", file, ...PI], /^\[1\/4\]/m, async (stderr) => {
			refused = await cli(["--resume", evalIdOf(stderr), ...PI]);
		});
		expect(refused?.code).toBe(2);
		expect(refused?.stderr).toMatch(
			new RegExp(
				`^pi-workflows: Eval ${evalId} is running in process \\d+ on \\S+: one process at a time runs, resumes or regrades an eval\\. Wait until it ends, or stop it first\\n$`,
			),
		);
		// Its process killed, the lock it left is taken over: the resume starts (and is stopped once it has).
		const resumed = await killAfter(["eval", "--resume", evalId, ...PI], /^Resuming eval /m);
		expect(resumed.stderr).toContain(`Resuming eval ${evalId}: 1 trials finished before`);
	}, 180_000);

	it("Ctrl-C stops the eval: the running trial is not kept, the scorecard says how to resume, exit 1", async () => {
		const file = evalFile("stopped.eval.json", {
			cases: cases(6),
			arms: { A: { workflow: "weak.js" }, B: { workflow: "strong.js" } },
			trials: 1,
			concurrency: 1,
		});
		const { evalId, finished, code, stdout } = await signalAfter(file, 2, "SIGINT");
		expect(code).toBe(1);
		expect(stdout).toContain(`Unfinished: the eval was stopped. Resume it: pi-workflows eval --resume ${evalId}`);
		const listed = await cli(["--list", "--json"]);
		const saved = json(listed).find((found: { id: string }) => found.id === evalId);
		expect(saved.finished).toBe(finished.length);
		expect(saved.planned).toBe(12);
	}, 120_000);

	it("an arm at a git rev runs the script as that commit has it", async () => {
		const repo = createTempRepo();
		repos.push(repo);
		repo.write("review.js", `${WEAK}\n`);
		repo.git(["add", "review.js"]);
		repo.git(["commit", "--quiet", "-m", "weak review"]);
		repo.write("review.js", `${STRONG}\n`);
		repo.git(["commit", "--quiet", "-am", "strong review"]);
		write("grade.js", GRADE, repo.dir);
		const file = evalFile(
			"rev.eval.json",
			{
				cases: cases(4),
				arms: { before: { workflow: "review.js", rev: "HEAD~1" }, now: { workflow: "review.js" } },
				trials: 1,
				grader: "grade.js",
			},
			repo.dir,
		);
		const result = await cli([file, ...PI, "--json"], repo.dir);
		expect(result.code, result.stderr).toBe(0);
		const card = json(result);
		expect(card.arms.before.passRate).toBe(0.25);
		expect(card.arms.now.passRate).toBe(1);
		const wrong = await cli([
			evalFile(
				"bad-rev.eval.json",
				{ cases: cases(1), arms: { A: { workflow: "review.js", rev: "nope" } } },
				repo.dir,
			),
			...PI,
		]);
		expect(wrong.code).toBe(2);
		expect(wrong.stderr).toContain(
			`pi-workflows: ${join(repo.dir, "bad-rev.eval.json")}: arm A: cannot read ${join(repo.dir, "review.js")} at revision "nope" (`,
		);
	}, 300_000);
});

/** The eval's id in its first stderr line. */
function evalIdOf(stderr: string): string {
	return /^Eval (ev-\S+):/m.exec(stderr)?.[1] ?? "";
}

/** The run ids of the trials saved so far, from the progress lines. */
function savedRuns(stderr: string): string[] {
	return [...stderr.matchAll(/^\[\d+\/\d+\] .*\((wf-[^)]+)\)$/gm)].map((m) => m[1] as string);
}

/**
 * Runs `pi-workflows <args>` until stderr matches `when`, then (after `meanwhile`, while it runs on) kills it with
 * SIGKILL; resolves with what it printed.
 */
function killAfter(
	args: string[],
	when: RegExp,
	meanwhile?: (stderr: string) => Promise<void>,
): Promise<{ evalId: string; stderr: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [MAIN, ...args], {
			cwd: project,
			env: env(),
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stderr = "";
		let sent = false;
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
			if (sent || !when.test(stderr)) return;
			sent = true;
			(meanwhile?.(stderr) ?? Promise.resolve()).then(
				() => child.kill("SIGKILL"),
				(error: unknown) => {
					child.kill("SIGKILL");
					reject(error);
				},
			);
		});
		child.on("error", reject);
		child.on("close", () => resolve({ evalId: evalIdOf(stderr), stderr }));
	});
}

/** Starts the eval and sends `signal` once `count` trials are saved; how it ended, what it saved. */
function signalAfter(
	file: string,
	count: number,
	signal: NodeJS.Signals,
): Promise<{ evalId: string; finished: string[]; code: number | null; stdout: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [MAIN, "eval", file, ...PI], {
			cwd: project,
			env: env(),
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stderr = "";
		let stdout = "";
		let sent = false;
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
			if (!sent && savedRuns(stderr).length >= count) {
				sent = true;
				child.kill(signal);
			}
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ evalId: evalIdOf(stderr), finished: savedRuns(stderr), code, stdout }));
	});
}
