/**
 * `pi-workflows blame`: a failed and a passing run recorded with real pi children on the faux provider, then blamed
 * through the command line in-process: the decisive call named in words and in --json, exit 0; a cassette file as
 * --with; what is missing from the command line said, exit 2; no child starts during blame.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRunCassette } from "../../src/index.ts";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { GRADER, recordTrialRun, WORKFLOW } from "../eval/blame-fixture.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

let faux: FauxHarness;
let dirs: AgentDirs;
let badDraft = false;
let failed: string;
let passing: string;

beforeAll(async () => {
	faux = await createFauxHarness();
	dirs = createAgentDirs();
	const many = <T>(make: () => T) => Array.from({ length: 20 }, make);
	faux.route(
		/^research /,
		many(() => (request) => fauxAssistantMessage(`notes on ${request.task.slice(9)}`)),
	);
	faux.route(
		/^draft /,
		many(() => () => fauxAssistantMessage(badDraft ? "BAD draft" : "a good draft")),
	);
	faux.route(
		/^check /,
		many(() => fauxAssistantMessage("ok")),
	);
	dirs.write("write.js", WORKFLOW);
	dirs.write("grade.js", GRADER);
	badDraft = true;
	failed = await record();
	badDraft = false;
	passing = await record();
});
afterAll(() => {
	faux.dispose();
	dirs.dispose();
});

async function record(): Promise<string> {
	const script = { source: WORKFLOW, filename: join(dirs.cwd, "write.js") };
	return (await recordTrialRun(dirs, faux, script, "parsers", "c")).runId;
}

function cli(argv: string[]) {
	return cliInProcess(argv, dirs);
}

describe("pi-workflows blame", () => {
	it("names the decisive call in words, one line a call, exit 0, with no child started", async () => {
		const requests = faux.requests.length;
		const { code, stdout } = await cli(["blame", failed, "--with", passing, "--grader", "grade.js"]);
		expect(stdout).toBe(
			[
				`Run ${failed} against passing run ${passing}: failed because of \`draft\`: swapping its answer passes; \`research\`, \`check\` did not matter`,
				"  · #1 research: not decisive, matched by key, answer 0% changed. the same answer in both runs",
				"  ✗ #2 draft: decisive, matched by key, answer 43% changed. swapping its answer passes (good)",
				"  · #3 check: not decisive, matched by key, answer 0% changed. the same answer in both runs",
				"No child started and no tool ran.",
				"",
			].join("\n"),
		);
		expect(code).toBe(0);
		expect(faux.requests.length).toBe(requests);
	});

	it("--report writes the failed run's report saying what decided it, the decisive call marked", async () => {
		const out = join(dirs.cwd, "failed.html");
		const { code, stderr } = await cli(["blame", failed, "--with", passing, "--grader", "grade.js", "--report", out]);
		expect(code).toBe(0);
		expect(stderr).toBe(`Report: ${out}\n`);
		const page = readFileSync(out, "utf8");
		expect(page).toContain(
			'<h2>What decided it</h2><p class="sub">failed because of `draft`: swapping its answer passes; `research`, `check` did not matter</p>',
		);
		expect([...page.matchAll(/<tr class="decisive" data-c="\d+"><td>#(\d+) (\w+)<\/td>/g)].map((m) => m[2])).toEqual([
			"draft",
		]);
	});

	it("prints the report as JSON, and takes a cassette file as --with", async () => {
		const cassette = join(dirs.cwd, "passing.cassette.json");
		writeFileSync(
			cassette,
			JSON.stringify(
				await loadRunCassette({ cwd: dirs.cwd, runId: passing, runsRoot: join(dirs.agentDir, "workflow-runs") }),
			),
		);
		const { code, stdout } = await cli([
			"blame",
			failed,
			"--with",
			"passing.cassette.json",
			"--grader",
			"grade.js",
			"--json",
		]);
		expect(code).toBe(0);
		const report = JSON.parse(stdout);
		expect(report).toMatchObject({
			failedRunId: failed,
			passingRunId: passing,
			failedGrade: { pass: false },
			passingGrade: { pass: true },
		});
		expect(report.calls.map((call: { label: string; effect: string }) => `${call.label} ${call.effect}`)).toEqual([
			"research not decisive",
			"draft decisive",
			"check not decisive",
		]);
	});

	it("without --with, answers each call with a dry-run answer and says that shows only whether its shape matters", async () => {
		const requests = faux.requests.length;
		const { code, stdout } = await cli(["blame", failed, "--grader", "grade.js"]);
		expect(stdout.split("\n")[0]).toBe(
			`Run ${failed} with a dry-run answer for each call (no passing run: this shows only whether a call's shape matters; --with a passing run says more): a dry-run answer in place of \`draft\` passes; \`research\`, \`check\` did not matter`,
		);
		expect(stdout).toContain("  ✗ #2 draft: decisive. a dry-run answer in its place passes (good)");
		expect(code).toBe(0);
		expect(faux.requests.length).toBe(requests);
	});

	it("--case gives the grader the eval case's fields (its expect), merged over { id, args }", async () => {
		dirs.write(
			"expect.js",
			`export const meta = { name: "expect", description: "the draft the case expects" };\nreturn { pass: args.output?.draft === args.case.expect, reason: args.case.id + " " + JSON.stringify(args.case.args) };\n`,
		);
		const { code, stdout } = await cli([
			"blame",
			failed,
			"--with",
			passing,
			"--grader",
			"expect.js",
			"--case",
			'{"expect":"a good draft"}',
		]);
		expect(stdout).toContain(
			`✗ #2 draft: decisive, matched by key, answer 43% changed. swapping its answer passes (${failed} {"topic":"parsers"})`,
		);
		expect(code).toBe(0);
		const bad = await cli(["blame", failed, "--with", passing, "--grader", "expect.js", "--case", "{expect"]);
		expect(bad.code).toBe(2);
		expect(bad.stderr).toContain("--case");
	});

	it("a grader that asks a model is told blame gives it none (exit 1), and no child starts", async () => {
		dirs.write(
			"rubric.js",
			`export const meta = { name: "rubric", description: "a model judges" };\nconst verdict = await agent("judge " + JSON.stringify(args.output));\nreturn { pass: verdict === "yes" };\n`,
		);
		const requests = faux.requests.length;
		const { code, stdout } = await cli(["blame", failed, "--with", passing, "--grader", "rubric.js"]);
		expect(code).toBe(1);
		expect(stdout.split("\n")[0]).toBe(
			`Run ${failed} against passing run ${passing}: nothing blamed: the grader could not grade run ${failed} replayed: the grader failed: The only \`agent()\` call failed: runner error: blame gives its grader no model, so that it costs nothing: grade with a code grader (the host API's blameRun takes a graderRunner for a model-graded one) (2:28)`,
		);
		expect(faux.requests.length).toBe(requests);
	});

	it("says what is missing: the grader (exit 2); refuses one run as both", async () => {
		const noGrader = await cli(["blame", failed, "--with", passing]);
		expect(noGrader.code).toBe(2);
		expect(noGrader.stderr).toContain("--grader <grade.js> is needed");
		const same = await cli(["blame", failed, "--with", failed, "--grader", "grade.js"]);
		expect(same.code).toBe(2);
		expect(same.stderr).toContain(`Run ${failed} was given as both the failed and the passing run`);
	});
});
