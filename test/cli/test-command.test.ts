/**
 * `pi-workflows test --against <runId>`: a run recorded with real pi children on the faux provider (composed as the
 * CLI composes a durable run), then the script tested against it through the command line in-process, with an
 * empty agent directory: no child starts (the faux provider sees no request), the run's files stay byte for byte,
 * an edited prompt is the one divergence, a removed call is an unmade recorded call, and the cassette kept beside a
 * saved workflow outlives the run's record.
 */
import { execFileSync } from "node:child_process";
import {
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	truncateSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDurableRun } from "../../src/host/start-run.ts";
import { testWorkflowAgainstRun } from "../../src/index.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { runWorkflowScript, type WorkflowRunResult, type WorkflowTool } from "../../src/runtime/index.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { runCommand } from "../helpers/spawn.ts";

checkSandboxLeaks();

const SCRIPT = `export const meta = { name: "review", description: "notes, a check, a question and a summary" };
const notes = await agent("List three notes about the parser", { label: "notes" });
const check = await tool("bash", { command: "echo checked" });
const ship = await ask("Ship it?", { choices: ["yes", "no"] });
const summary = await agent("Summarize the parser notes in one line", { label: "summarize" });
return { notes, summary, check: check.output.trim(), ship };
`;

/** What a terminal would act on: C0 but tab and newline, DEL, C1, and the marks that reorder text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let fx: RunnerFixture;
/** The CLI's pi directory: empty but for the run store (no auth, no models, no settings). */
let agentDir: string;
let runId: string;
let runDir: string;
let requestsAfterRecording: number;

beforeAll(async () => {
	fx = await createRunnerFixture();
	agentDir = mkdtempSync(join(tmpdir(), "wf-test-cmd-agent-"));
	fx.faux.route("List three notes", [fauxAssistantMessage("a, b, c")]);
	fx.faux.route("Summarize the parser", [fauxAssistantMessage("The parser is fine.")]);
	fx.faux.route("List two notes", [fauxAssistantMessage("two notes")]);
	const recorded = await record("review", SCRIPT);
	expect(recorded.result.status).toBe("completed");
	expect(recorded.result.value).toEqual({
		notes: "a, b, c",
		summary: "The parser is fine.",
		check: "checked",
		ship: "yes",
	});
	runId = recorded.runId;
	runDir = readdirSync(join(agentDir, "workflow-runs"))
		.map((project) => join(agentDir, "workflow-runs", project, runId))
		.find((dir) => readdirSync(dir, { withFileTypes: true }).length > 0) as string;
	requestsAfterRecording = fx.faux.requests.length;
	expect(requestsAfterRecording).toBe(2);
});

afterAll(() => {
	fx?.teardown();
	if (agentDir) rmSync(agentDir, { recursive: true, force: true });
});

/** Records one run of `source` (saved as `.pi/workflows/<name>.js`) with real children; resolves with its id. */
async function record(
	name: string,
	source: string,
	bash: WorkflowTool = async () => ({ output: "checked\n" }),
): Promise<{ runId: string; result: WorkflowRunResult }> {
	const filename = fx.dirs.write(`.pi/workflows/${name}.js`, source);
	const start = await startDurableRun({
		cwd: fx.dirs.cwd,
		runsRoot: join(agentDir, "workflow-runs"),
		script: () => ({ source, filename }),
	});
	const tracker = createWorkflowProgressTracker();
	const result = await runWorkflowScript(source, {
		agentRunner: fx.runner(start.runner),
		filename,
		cwd: fx.dirs.cwd,
		tools: { bash },
		ask: () => "yes",
		...start.runOptions((event) => tracker.updateFromProgressEvent(event)),
	});
	const outcome = await start.finish(result, tracker.complete(result).envelope);
	return { runId: outcome.runId ?? "", result };
}

/** Runs the command line in-process; the faux provider is not reachable from it (no extension, no model). */
function cli(argv: string[]) {
	return cliInProcess(argv, { cwd: fx.dirs.cwd, agentDir });
}

/** Every file of the run's folder and its bytes. */
function runFiles(): Record<string, string> {
	const files: Record<string, string> = {};
	for (const entry of readdirSync(runDir, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile()) continue;
		const path = join(entry.parentPath, entry.name);
		files[path] = readFileSync(path, "base64");
	}
	return files;
}

function edited(from: string, to: string): string {
	expect(SCRIPT).toContain(from);
	const path = join(fx.dirs.cwd, `edited-${Math.random().toString(36).slice(2)}.js`);
	writeFileSync(path, SCRIPT.replace(from, to));
	return path;
}

describe("pi-workflows test --against <runId>", () => {
	it("passes the unedited script with no child started and the run's files unchanged", async () => {
		const before = runFiles();
		expect(Object.keys(before).some((path) => path.endsWith("journal.jsonl"))).toBe(true);
		const result = await cli(["test", ".pi/workflows/review.js", "--against", runId]);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout).toBe(
			`.pi/workflows/review.js against run ${runId}: ok, 4 recorded calls matched, 0 divergences\n  value: the recorded one\n`,
		);
		expect(fx.faux.requests.length).toBe(requestsAfterRecording);
		expect(runFiles()).toEqual(before);
	});

	it("runs as the bin with an empty HOME and no pi set-up: no model, no credentials", async () => {
		const home = mkdtempSync(join(tmpdir(), "wf-test-cmd-home-"));
		try {
			const main = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");
			const file = edited("in one line", "in one short line");
			const result = await runCommand(process.execPath, [main, "test", file, "--against", runId, "--json"], {
				cwd: fx.dirs.cwd,
				env: { PATH: process.env.PATH ?? "", HOME: home, PI_CODING_AGENT_DIR: agentDir },
				timeoutMs: 60_000,
			});
			expect(result.stderr).toBe("");
			expect(result.code).toBe(1);
			const report = JSON.parse(result.stdout);
			expect(report.divergences.map((d: { label: string }) => d.label)).toEqual(["summarize"]);
			expect(fx.faux.requests.length).toBe(requestsAfterRecording);
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	});

	it("finds an edited prompt, and nothing else, with its diff", async () => {
		const file = edited("Summarize the parser notes in one line", "Summarize the parser notes in two lines");
		const before = runFiles();
		const result = await cli(["test", file, "--against", runId, "--json"]);
		expect(result.code).toBe(1);
		const report = JSON.parse(result.stdout);
		expect(report.divergences).toHaveLength(1);
		const [divergence] = report.divergences;
		expect(divergence).toMatchObject({
			kind: "agent",
			index: 1,
			label: "summarize",
			nearest: { label: "summarize" },
		});
		expect(divergence.differences).toEqual([
			'has another prompt from character 31: recorded "Summarize the parser notes in one line", now "Summarize the parser notes in two lines" (38 characters then, 39 now)',
		]);
		expect(divergence.explanation).toContain("It was answered as in a dry run.");
		expect(report.unusedRecorded).toEqual([]);
		expect(report).toMatchObject({ ok: false, runId, status: "completed", matched: 3, valueMatches: false });
		expect(report.value.summary).toBe("[dry run] answer of agent call #2 (summarize)");
		expect(report.recordedValue.summary).toBe("The parser is fine.");
		expect(fx.faux.requests.length).toBe(requestsAfterRecording);
		expect(runFiles()).toEqual(before);
		const text = await cli(["test", file, "--against", runId]);
		expect(text.code).toBe(1);
		expect(text.stdout).toContain(": FAILED, 3 recorded calls matched, 1 divergence\n");
		expect(text.stdout).toContain(
			"  ✗ agent() #2 `summarize` has no recorded answer: the nearest recorded call, `summarize` (#2 then), has another prompt from character 31",
		);
	});

	it("reports a call the script no longer makes as an unmade recorded call", async () => {
		const file = edited(
			'const check = await tool("bash", { command: "echo checked" });',
			'const check = { output: "checked" };',
		);
		const result = await cli(["test", file, "--against", runId, "--json"]);
		expect(result.code).toBe(1);
		const report = JSON.parse(result.stdout);
		expect(report.divergences).toEqual([]);
		expect(report.unusedRecorded).toEqual([expect.objectContaining({ kind: "tool", label: "echo checked" })]);
		// Everything else matched, and the value is the recorded one: the unmade call alone fails the test.
		expect(report.valueMatches).toBe(true);
		const text = await cli(["test", file, "--against", runId]);
		expect(text.stdout).toContain("  ✗ the recorded tool() call `echo checked` was not made by the script\n");
	});

	it("fails on another value unless --value", async () => {
		const file = edited("ship };", 'ship, extra: "new" };');
		const strict = await cli(["test", file, "--against", runId]);
		expect(strict.code).toBe(1);
		expect(strict.stdout).toContain(": FAILED, 4 recorded calls matched, 0 divergences\n");
		expect(strict.stdout).toContain('  value differs: recorded {"notes":"a, b, c"');
		const loose = await cli(["test", file, "--against", runId, "--value", "--json"]);
		expect(loose.code).toBe(0);
		expect(JSON.parse(loose.stdout)).toMatchObject({ ok: true, valueMatches: false, anyValue: true });
	});

	it("answers a changed question by its default and names the recorded one", async () => {
		const report = await testWorkflowAgainstRun({
			source: SCRIPT.replace('["yes", "no"]', '["ship", "hold"], default: "hold"'),
			filename: "review.js",
			cwd: fx.dirs.cwd,
			runsRoot: join(agentDir, "workflow-runs"),
			runId,
		});
		expect(report.ok).toBe(false);
		expect(report.divergences).toEqual([
			expect.objectContaining({
				kind: "ask",
				index: 0,
				label: "Ship it?",
				nearest: expect.objectContaining({ label: "Ship it?" }),
			}),
		]);
		expect(report.divergences[0]?.explanation).toContain(
			'It was answered "hold" (its default, else its first choice).',
		);
		expect(report.unusedRecorded).toEqual([]);
	});

	it("names a changed tool call's recorded one, and a new agent call as new; neither runs", async () => {
		const report = await testWorkflowAgainstRun({
			source: SCRIPT.replace('"echo checked"', '"echo checked twice"').replace(
				"return {",
				'const extra = await agent("Write a haiku about tests", { label: "haiku" });\nreturn { extra,',
			),
			filename: "review.js",
			cwd: fx.dirs.cwd,
			runsRoot: join(agentDir, "workflow-runs"),
			runId,
		});
		expect(report.divergences.map((d) => d.explanation)).toEqual([
			"tool() #1 `echo checked twice` has no recorded answer: the nearest recorded call, `echo checked`, its label was `echo checked` and is `echo checked twice`. The tool did not run: the script got a placeholder.",
			"agent() #3 `haiku` has no recorded answer: the recorded run made no agent() call like it (a new call). It was answered as in a dry run.",
		]);
		expect(report.unusedRecorded).toEqual([]);
		expect(report.value).toMatchObject({
			check: '[replay test] tool("bash") did not run: the recorded run has no result for this call',
		});
		expect(fx.faux.requests.length).toBe(requestsAfterRecording);
	});

	it("answers a `replay: false` tool from the run too: it never runs under test", async () => {
		const report = await testWorkflowAgainstRun({
			source: SCRIPT.replace('{ command: "echo checked" })', '{ command: "echo checked" }, { replay: false })'),
			filename: "review.js",
			cwd: fx.dirs.cwd,
			runsRoot: join(agentDir, "workflow-runs"),
			runId,
		});
		expect(report).toMatchObject({ ok: true, matched: 4, divergences: [], unusedRecorded: [] });
		expect(report.value).toMatchObject({ check: "checked" });
	});

	it("passes a gate workflow against its own run: its `replay: false` steps are answered from the run, and it says so", async () => {
		const gate = `export const meta = { name: "gated", description: "a fixer between two runs of a failing gate" };
const first = await tool("bash", { command: "npm test" }, { label: "a failing gate", replay: false });
const fixed = await agent("Fix the failing test: " + first.output, { label: "fixer" });
const again = await tool("bash", { command: "npm test" }, { label: "the gate again", replay: false });
return { fixed, first: first.isError, again: again.isError };
`;
		fx.faux.route("Fix the failing test", [fauxAssistantMessage("fixed it")]);
		let runs = 0;
		const recorded = await record("gated", gate, async () => {
			runs++;
			return { output: "1 failing", isError: true, details: { exit_code: 1 } };
		});
		expect(recorded.result.value).toEqual({ fixed: "fixed it", first: true, again: true });
		expect(runs).toBe(2);
		const requests = fx.faux.requests.length;
		const result = await cli(["test", "gated", "--against", recorded.runId]);
		expect(result.stderr).toBe("");
		expect(result.stdout).toBe(
			`.pi/workflows/gated.js against run ${recorded.runId}: ok, 3 recorded calls matched, 0 divergences\n  note: 2 \`replay: false\` tool() steps were answered from the recorded run, not run (a resume runs them again; a test runs nothing)\n  value: the recorded one\n`,
		);
		expect(result.code).toBe(0);
		expect(runs).toBe(2);
		expect(fx.faux.requests.length).toBe(requests);
	});

	it("keeps the run beside a saved workflow with --save, and tests by name after the run is gone", async () => {
		const saved = await cli(["test", "review", "--against", runId, "--save"]);
		expect(saved.code).toBe(0);
		expect(saved.stderr).toBe(`Saved run ${runId} as .pi/workflows/review.cassette.json\n`);
		const cassette = JSON.parse(readFileSync(join(fx.dirs.cwd, ".pi/workflows/review.cassette.json"), "utf8"));
		expect(cassette).toMatchObject({ version: 1, runId, name: "review", status: "completed" });
		expect(cassette.journal).toHaveLength(4);
		const backup = runFiles();
		rmSync(runDir, { recursive: true });
		try {
			const byName = await cli(["test", "review"]);
			expect(byName.code).toBe(0);
			expect(byName.stdout).toContain(
				`.pi/workflows/review.js against run ${runId} (cassette .pi/workflows/review.cassette.json): ok, 4 recorded calls matched`,
			);
			const json = await cli(["test", "review", "--json"]);
			expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, cassette: ".pi/workflows/review.cassette.json" });
			const gone = await cli(["test", "review", "--against", runId]);
			expect(gone.code).toBe(2);
			expect(gone.stderr).toContain(`Run \`${runId}\` not found in project`);
			expect(gone.stderr).toContain(
				`The cassette beside the script, .pi/workflows/review.cassette.json, keeps run ${runId}: test against it with \`pi-workflows test review\` (no --against)\n`,
			);
		} finally {
			for (const [path, bytes] of Object.entries(backup)) {
				mkdirSync(dirname(path), { recursive: true });
				writeFileSync(path, Buffer.from(bytes, "base64"));
			}
		}
	});

	it("shows a committed cassette's words as every CLI view does: no terminal escape reaches stdout raw", async () => {
		const script = readFileSync(join(fx.dirs.cwd, ".pi/workflows/review.js"), "utf8");
		fx.dirs.write(".pi/workflows/escapes.js", script.replace('name: "review"', 'name: "escapes"'));
		expect((await cli(["test", "escapes", "--against", runId, "--save"])).code).toBe(0);
		const cassette = JSON.parse(readFileSync(join(fx.dirs.cwd, ".pi/workflows/escapes.cassette.json"), "utf8"));
		// A cassette is a file in the repository: anyone with a pull request can write its recorded value.
		cassette.value = { summary: "\u001b]0;owned\u0007\u001b[2Jgone\u009b31m\u202eevil" };
		const path = join(fx.dirs.cwd, ".pi/workflows/escapes.cassette.json");
		writeFileSync(path, JSON.stringify(cassette));
		try {
			const text = await cli(["test", "escapes"]);
			expect(text.code).toBe(1);
			expect(text.stdout).toContain(
				'value differs: recorded {"summary":"\\u001b]0;owned\\u0007\\u001b[2Jgone\\u009b31m\\u202eevil"}',
			);
			expect(text.stdout).not.toMatch(HIDDEN);
			const json = await cli(["test", "escapes", "--json"]);
			expect(json.stdout).not.toMatch(HIDDEN);
			expect(JSON.parse(json.stdout).recordedValue).toEqual(cassette.value);
		} finally {
			rmSync(path, { force: true });
		}
	});

	it("--save refuses a cassette path that is a link, and writes nothing through it", async () => {
		const victim = join(agentDir, "victim.txt");
		writeFileSync(victim, "keep me\n");
		const link = join(fx.dirs.cwd, ".pi/workflows/review.cassette.json");
		rmSync(link, { force: true });
		symlinkSync(victim, link);
		try {
			const saved = await cli(["test", "review", "--against", runId, "--save"]);
			expect(saved.code).toBe(2);
			expect(saved.stderr).toBe(
				`pi-workflows: The replay cassette ${link} is a symbolic link: a cassette is saved only as a regular file beside its workflow. Remove the link, then save again: pi-workflows test <file|name> --against <runId> --save\n`,
			);
			expect(readFileSync(victim, "utf8")).toBe("keep me\n");
			expect(readdirSync(join(fx.dirs.cwd, ".pi/workflows")).filter((f) => f.includes(".tmp"))).toEqual([]);
		} finally {
			rmSync(link, { force: true });
		}
	});

	it("refuses a cassette that is a FIFO or too large, naming it, without waiting on it", async () => {
		const script = readFileSync(join(fx.dirs.cwd, ".pi/workflows/review.js"), "utf8");
		fx.dirs.write(".pi/workflows/piped.js", script.replace('name: "review"', 'name: "piped"'));
		const fifo = join(fx.dirs.cwd, ".pi/workflows/piped.cassette.json");
		execFileSync("mkfifo", [fifo]);
		try {
			const piped = await cli(["test", "piped"]);
			expect(piped.code).toBe(2);
			expect(piped.stderr).toBe(
				`pi-workflows: The replay cassette ${fifo} cannot be read (it is a named pipe (FIFO), not a regular file). Save it again from a run: pi-workflows test <file|name> --against <runId> --save\n`,
			);
		} finally {
			rmSync(fifo, { force: true });
		}
		// A sparse file past the bound: refused from its size, never read into memory.
		writeFileSync(fifo, "");
		truncateSync(fifo, 64 * 1024 * 1024 + 1);
		try {
			const huge = await cli(["test", "piped"]);
			expect(huge.code).toBe(2);
			expect(huge.stderr).toBe(
				`pi-workflows: The replay cassette ${fifo} cannot be read (it is 67108865 bytes, over the limit of 67108864 bytes). Save it again from a run: pi-workflows test <file|name> --against <runId> --save\n`,
			);
		} finally {
			rmSync(fifo, { force: true });
		}
	});

	it("has its help, and refuses --save without a run", async () => {
		const help = await cli(["test", "--help"]);
		expect(help.code).toBe(0);
		for (const flag of ["--against <runId>", "--save", "--args", "--value", "--json", "review.cassette.json"]) {
			expect(help.stdout).toContain(flag);
		}
		expect((await cli(["--help"])).stdout).toContain("pi-workflows test <file|name> --against <runId>");
		const save = await cli(["test", "review", "--save"]);
		expect(save.code).toBe(2);
		expect(save.stderr).toBe(
			"pi-workflows: --save keeps a run as the script's cassette: name the run with --against <runId>\n",
		);
	});

	it("refuses a script that cannot start as run does: exit 2, with its position", async () => {
		const file = edited("const ship = await", "const ship = await await (");
		const result = await cli(["test", file, "--against", runId]);
		expect(result.code).toBe(2);
		expect(result.stderr).toMatch(/^pi-workflows: \/.*edited-\w+\.js:4:\d+: /);
		expect(result.stdout).toBe("");
	});

	it("a failed run: --save warns that it has no value, and only --value passes", async () => {
		const failing = await record(
			"shaky",
			`export const meta = { name: "shaky", description: "fails unless told not to" };
const notes = await agent("List two notes about the lexer", { label: "lexer notes" });
if (args?.fail !== false) throw new Error("the check failed");
return notes;`,
		);
		expect(failing.result.status).toBe("failed");
		const requests = fx.faux.requests.length;
		const saved = await cli(["test", "shaky", "--against", failing.runId, "--save", "--args", '{"fail":false}']);
		expect(saved.stderr).toContain(
			`Warning: run ${failing.runId} failed: the cassette has no value to compare, so the test passes only with --value.`,
		);
		expect(saved.code).toBe(1);
		expect(saved.stdout).toContain(
			'  value: "two notes"; the recorded run failed and has no value to compare (--value accepts any)\n',
		);
		const loose = await cli(["test", "shaky", "--args", '{"fail":false}', "--value"]);
		expect(loose.code).toBe(0);
		// Without --args, the recorded run's args: it fails again, as it did.
		const asRecorded = await cli(["test", "shaky", "--value"]);
		expect(asRecorded.code).toBe(1);
		expect(asRecorded.stdout).toContain("  the script failed (script_error): ");
		expect(fx.faux.requests.length).toBe(requests);
	});

	it("says what to give when there is no run to test against", async () => {
		const file = edited("Ship it?", "Ship it now?");
		const result = await cli(["test", file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain("no run to test against: pass --against <runId>");
	});
});
