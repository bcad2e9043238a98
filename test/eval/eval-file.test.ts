/**
 * The eval file: defaults filled in, cases inline or from JSONL, and every mistake an `eval_file_invalid` error
 * naming the file (and line, where there is one), the field and what to write; narrowing by `--cases`/`--arms`/
 * `--trials`; the trials' interleaved order; a past eval that is not there (`eval_not_found`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findEvalFile, narrowSpec, openEval, planTrials, readArmScripts, readEvalFile } from "../../src/eval/index.ts";

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "wf-eval-file-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
	writeFileSync(join(dir, name), text);
	return join(dir, name);
}

const ARMS = { A: { workflow: "a.js" }, B: { workflow: "b.js", model: "faux/faux-1", args: { strict: true } } };

function thrown(run: () => unknown): { code?: string; message?: string } {
	try {
		run();
	} catch (error) {
		return error as { code: string; message: string };
	}
	throw new Error("it did not throw");
}

describe("readEvalFile", () => {
	it("fills in the defaults: the name from the file, the first arm as baseline, 3 trials, 2 at once, no grader or cap", () => {
		const path = file("review-ab.eval.json", JSON.stringify({ cases: [{ id: "c1", args: { n: 1 } }], arms: ARMS }));
		expect(readEvalFile("review-ab.eval.json", dir)).toEqual({
			name: "review-ab",
			file: path,
			cases: [{ id: "c1", args: { n: 1 } }],
			arms: ARMS,
			baseline: "A",
			trials: 3,
			concurrency: 2,
		});
	});

	it("reads cases from a JSONL file beside it (numbers as ids, blank lines skipped)", () => {
		file("cases.jsonl", '{"id":1,"args":{"n":1},"expect":"X","cluster":"repo-a"}\n\n{"id":"two"}\n');
		const spec = readEvalFile(
			file("e.eval.json", JSON.stringify({ cases: "cases.jsonl", arms: ARMS, baseline: "B" })),
			dir,
		);
		expect(spec.cases).toEqual([{ id: "1", args: { n: 1 }, expect: "X", cluster: "repo-a" }, { id: "two" }]);
		expect(spec.baseline).toBe("B");
	});

	it.each([
		[
			"a JSON syntax error, at its line and column",
			'{\n  "cases": [],\n  "arms": {,}\n}',
			":3:12: not valid JSON (Expected property name or '}'). Fix the file there",
		],
		[
			"an unknown field",
			JSON.stringify({ cases: [{ id: "a" }], arms: ARMS, trails: 3 }),
			': unknown field "trails". The fields here are "name", "cases", "arms", "baseline", "trials", "grader", "pairwise", "maxCostUsd", "concurrency"',
		],
		[
			"no arms",
			JSON.stringify({ cases: [{ id: "a" }], arms: {} }),
			': "arms" is empty. Name at least one arm: { "A": { "workflow": "review.js" } }',
		],
		[
			"an arm without a workflow",
			JSON.stringify({ cases: [{ id: "a" }], arms: { A: { model: "x/y" } } }),
			': "arms.A" has no "workflow". Add "workflow": "review.js" (a path or a saved name)',
		],
		[
			"a baseline that is no arm",
			JSON.stringify({ cases: [{ id: "a" }], arms: ARMS, baseline: "C" }),
			': "baseline" must name one of the arms (A, B), got "C"',
		],
		[
			"trials that are not a whole number",
			JSON.stringify({ cases: [{ id: "a" }], arms: ARMS, trials: 2.5 }),
			': "trials" must be a whole number from 1 to 1000, got 2.5',
		],
		[
			"a case id used twice",
			JSON.stringify({ cases: [{ id: "a" }, { id: "a" }], arms: ARMS }),
			': case id "a" is used twice. Give each case its own id',
		],
		[
			"cases of the wrong kind",
			JSON.stringify({ cases: { id: "a" }, arms: ARMS }),
			': "cases" must be an array of cases or the path of a JSONL file, got {"id":"a"}. Write "cases": "cases.jsonl" or "cases": [{ "id": "c1", "args": {...} }]',
		],
		[
			"pairwise without a grader",
			JSON.stringify({ cases: [{ id: "a" }], arms: ARMS, pairwise: true }),
			': "pairwise" needs a "grader" to compare the two outputs: add "grader": "judge.js"',
		],
		[
			"pairwise over three arms",
			JSON.stringify({
				cases: [{ id: "a" }],
				arms: { ...ARMS, C: { workflow: "c.js" } },
				grader: "j.js",
				pairwise: true,
			}),
			': "pairwise" compares two arms, and this file has 3 (A, B, C). Keep two',
		],
		[
			"a negative cap",
			JSON.stringify({ cases: [{ id: "a" }], arms: ARMS, maxCostUsd: -1 }),
			': "maxCostUsd" must be a positive number of US dollars such as 10, got -1',
		],
	])("says what is wrong with %s, and where", (_, text, message) => {
		const path = file("bad.eval.json", text);
		expect(thrown(() => readEvalFile(path, dir))).toMatchObject({
			code: "eval_file_invalid",
			message: `${path}${message}`,
		});
	});

	it("names the JSONL line of a bad case", () => {
		const cases = file("cases.jsonl", '{"id":"a"}\n{"id":"b",}\n');
		const path = file("e.eval.json", JSON.stringify({ cases: "cases.jsonl", arms: ARMS }));
		const error = thrown(() => readEvalFile(path, dir));
		expect(error.code).toBe("eval_file_invalid");
		expect(error.message).toMatch(
			new RegExp(`^${cases}:2: not JSON \\(.*\\)\\. Write one case a line: \\{"id":"c1","args":\\{\\.\\.\\.\\}\\}$`),
		);
		const missing = file("m.eval.json", JSON.stringify({ cases: "nope.jsonl", arms: ARMS }));
		expect(thrown(() => readEvalFile(missing, dir)).message).toMatch(
			new RegExp(
				`^${join(dir, "nope.jsonl")}: cannot read the cases file \\(.*\\)\\. Fix "cases" in ${missing}, or create the file$`,
			),
		);
	});
});

describe("findEvalFile", () => {
	it("takes a path as it is, and a saved workflow's name as the eval saved beside it, the project's first", () => {
		const agentDir = join(dir, "agent");
		mkdirSync(join(dir, ".pi", "workflows"), { recursive: true });
		mkdirSync(join(agentDir, "workflows"), { recursive: true });
		const places = { cwd: dir, agentDir };
		expect(findEvalFile("evals/review.eval.json", places)).toBe(join(dir, "evals", "review.eval.json"));
		const global = file("agent/workflows/review.eval.json", "{}");
		expect(findEvalFile("review", places)).toBe(global);
		const project = file(".pi/workflows/review.eval.json", "{}");
		expect(findEvalFile("review", places)).toBe(project);
		expect(thrown(() => findEvalFile("triage", places))).toMatchObject({
			code: "eval_file_invalid",
			message: `triage: no eval saved for the workflow "triage" (looked for ${join(dir, ".pi", "workflows", "triage.eval.json")} and ${join(agentDir, "workflows", "triage.eval.json")}). Save it beside the workflow as triage.eval.json, or give the eval file's path`,
		});
	});
});

describe("readArmScripts", () => {
	it("finds an arm's workflow by path beside the eval file or by a saved workflow's name; rev only for a path", () => {
		mkdirSync(join(dir, ".pi", "workflows"), { recursive: true });
		mkdirSync(join(dir, "evals"), { recursive: true });
		const saved = file(
			".pi/workflows/review.js",
			`export const meta = { name: "review", description: "d" };\nreturn 1;\n`,
		);
		const local = file("evals/local.js", `export const meta = { name: "local", description: "d" };\nreturn 2;\n`);
		const path = file(
			"evals/x.eval.json",
			JSON.stringify({ cases: [{ id: "a" }], arms: { S: { workflow: "review" }, L: { workflow: "local.js" } } }),
		);
		const scripts = readArmScripts(readEvalFile(path, dir), { cwd: dir, agentDir: join(dir, "agent") });
		expect(scripts.S?.filename).toBe(saved);
		expect(scripts.L).toEqual({
			source: `export const meta = { name: "local", description: "d" };\nreturn 2;\n`,
			filename: local,
		});
		const rev = file(
			"evals/r.eval.json",
			JSON.stringify({ cases: [{ id: "a" }], arms: { S: { workflow: "review", rev: "HEAD" } } }),
		);
		expect(
			thrown(() => readArmScripts(readEvalFile(rev, dir), { cwd: dir, agentDir: join(dir, "agent") })),
		).toMatchObject({
			code: "eval_file_invalid",
			message: `${rev}: arm S: "rev" reads a file from git, and "review" is a saved workflow's name. Give the script's path instead`,
		});
	});
});

describe("narrowSpec and planTrials", () => {
	const spec = () =>
		readEvalFile(
			file(
				"n.eval.json",
				JSON.stringify({
					cases: [{ id: "a" }, { id: "b" }, { id: "c" }],
					arms: { ...ARMS, C: { workflow: "c.js" } },
				}),
			),
			dir,
		);

	it("keeps the cases and arms named (the baseline always) and the trials given", () => {
		const narrowed = narrowSpec(spec(), { cases: ["c", "a"], arms: ["C"], trials: 1 });
		expect(narrowed.cases.map((c) => c.id)).toEqual(["a", "c"]);
		expect(Object.keys(narrowed.arms)).toEqual(["A", "C"]);
		expect(narrowed.trials).toBe(1);
		expect(thrown(() => narrowSpec(spec(), { cases: ["z"] }))).toMatchObject({
			code: "cli_usage",
			message: `--cases: no case "z" in ${join(dir, "n.eval.json")}. Its cases: a, b, c`,
		});
		expect(thrown(() => narrowSpec(spec(), { arms: ["Z"] })).message).toBe(
			`--arms: no arm "Z" in ${join(dir, "n.eval.json")}. Its arms: A, B, C`,
		);
	});

	it("interleaves the arms within each case's repeats, case by case", () => {
		const keys = planTrials(narrowSpec(spec(), { cases: ["a", "b"], arms: ["B"], trials: 2 }));
		expect(keys.map((k) => `${k.caseId}${k.trial}${k.arm}`)).toEqual([
			"a1A",
			"a1B",
			"a2A",
			"a2B",
			"b1A",
			"b1B",
			"b2A",
			"b2B",
		]);
	});
});

describe("openEval", () => {
	it("says how to list evals when the id is not one, or names none there", async () => {
		await expect(openEval(dir, "../x")).rejects.toMatchObject({
			code: "eval_not_found",
			message:
				'"../x" is not an eval id (they look like ev-20261204-203000-k3f9x2). `pi-workflows eval --list` lists them',
		});
		await expect(openEval(dir, "ev-20261204-203000-k3f9x2")).rejects.toMatchObject({
			code: "eval_not_found",
			message: `No eval ev-20261204-203000-k3f9x2 (no folder ${join(dir, "ev-20261204-203000-k3f9x2")}). \`pi-workflows eval --list\` lists them`,
		});
	});
});
