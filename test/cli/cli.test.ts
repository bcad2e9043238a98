/**
 * The `pi-workflows` bin, spawned as users run it (built once into a copy of the checkout): help, the one-line
 * errors with exit code 2, `check`, `runs`, an example run end to end with children as pi sessions on the faux
 * provider loaded with `-e`, a failed run (1), and Ctrl-C (130, the resume hint) followed by `resume`.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCopy, keylessEnv, ROOT, removeAll } from "../helpers/package.ts";
import { runCommand, type SpawnResult } from "../helpers/spawn.ts";

const FAUX = join(ROOT, "test", "fixtures", "faux-provider-extension.ts");
const EXAMPLE = join(ROOT, "examples", "workflows", "map-reduce-summary.js");
const PI = ["-e", FAUX, "--model", "faux/faux-1"];
const PRICED = ["-e", FAUX, "--model", "faux/faux-priced"];

const dirs: string[] = [];
let bin: string;
/** The project the commands run in, and pi's agent directory (auth, settings, the run store) for all of them. */
let project: string;
let agentDir: string;

beforeAll(async () => {
	const copy = await buildCopy();
	dirs.push(copy);
	bin = join(copy, "dist", "cli", "main.js");
	project = mkdtempSync(join(tmpdir(), "wf-cli-project-"));
	agentDir = mkdtempSync(join(tmpdir(), "wf-cli-agent-"));
	dirs.push(project, agentDir);
}, 120_000);
afterAll(() => removeAll(dirs));

function env(): NodeJS.ProcessEnv {
	return keylessEnv(agentDir);
}

function cli(args: string[]): Promise<SpawnResult> {
	return runCommand(process.execPath, [bin, ...args], { cwd: project, env: env(), timeoutMs: 90_000 });
}

function script(name: string, body: string): string {
	const path = join(project, name);
	writeFileSync(
		path,
		`export const meta = { name: "${name.replace(/\.js$/, "")}", description: "a CLI test" };\n${body}\n`,
	);
	return path;
}

describe("pi-workflows help and command-line errors", () => {
	it("--help lists the commands and exit codes; run --help lists its options; no command prints help, exit 2", async () => {
		const help = await cli(["--help"]);
		expect(help.code).toBe(0);
		for (const word of ["run <file|name>", "resume <runId>", "check <file>", "runs [--json]", "130 stopped"]) {
			expect(help.stdout).toContain(word);
		}
		const run = await cli(["run", "--help"]);
		expect(run.code).toBe(0);
		for (const flag of [
			"--args",
			"--model",
			"--concurrency",
			"--timeout",
			"--max-cost",
			"--max-provider-wait",
			"-e, --extension",
			"-a, --approve",
			"-na, --no-approve",
			"--json",
			"--dry-run",
			"--answers",
		]) {
			expect(run.stdout).toContain(flag);
		}
		expect((await cli([])).code).toBe(2);
	});

	it.each([
		[["frobnicate"], "no command `frobnicate`: use one of run, resume, check, runs"],
		[["run", "x.js", "--fast"], "`run` has no option --fast. See `pi-workflows run --help`"],
		[["run", "missing.js"], "No workflow file at `missing.js`"],
		[["run", "never-saved"], "No saved workflow named `never-saved`"],
		[["run", EXAMPLE, "--args", "{documents:"], "--args is not JSON ("],
		[["run", EXAMPLE, "--args", "@nope.json"], "--args @nope.json: cannot read"],
		[["run", EXAMPLE, "--concurrency", "0"], '--concurrency must be a whole number from 1 to 64, got "0"'],
		[["run", EXAMPLE, "--model"], "--model needs a value"],
		[["run", EXAMPLE, "-a", "--no-approve"], "--approve and --no-approve contradict each other; give one"],
		[
			["run", EXAMPLE, "--max-cost", "lots"],
			'--max-cost must be a positive amount of US dollars such as 0.5 or 12, got "lots"',
		],
		[
			["run", EXAMPLE, "--max-provider-wait", "soon"],
			'--max-provider-wait must be a whole number from 0 to 2147483647, got "soon"',
		],
		[
			["run", EXAMPLE, "--redis-unreachable-ms", "5000"],
			"--redis-unreachable-ms is how long the queue's Redis may stay unreachable: give --redis too",
		],
		[["resume", "not-an-id"], "`not-an-id` is not a run id"],
		[["check"], "`check` takes one workflow file"],
		[
			["run", EXAMPLE, "--allow-tools", "bash,workflow"],
			"--allow-tools workflow: not one of pi's built-in tools the command line can lend (bash, read, grep, find, ls, edit, write)",
		],
		[["run", EXAMPLE], "The args do not match `meta.args` of workflow `map-reduce-summary`"],
		[["run", EXAMPLE, "--args", '{"documents":[]}'], "`args.documents` must NOT have fewer than 1 items"],
	])("%j: one line on stderr, exit code 2", async (args, message) => {
		const result = await cli(args);
		expect(result.code, result.stderr).toBe(2);
		expect(result.stderr).toContain(message);
		expect(result.stderr.trim().split("\n")).toHaveLength(1);
		expect(result.stdout).toBe("");
	});
});

describe("saved workflow files a repository planted", () => {
	it("a symlink to /dev/zero, a FIFO and a huge file are skipped with a warning each; run and check end at once", async () => {
		const repo = mkdtempSync(join(tmpdir(), "wf-cli-planted-"));
		dirs.push(repo);
		const ours = join(repo, ".pi", "workflows");
		const claude = join(repo, ".claude", "workflows");
		mkdirSync(ours, { recursive: true });
		mkdirSync(claude, { recursive: true });
		symlinkSync("/dev/zero", join(claude, "zero.js"));
		execFileSync("mkfifo", [join(ours, "pipe.js")]);
		writeFileSync(join(ours, "huge.js"), `// ${"x".repeat(512 * 1024)}\n`);
		writeFileSync(join(ours, "good.js"), 'export const meta = { name: "good", description: "fine" };\nreturn 1;\n');
		const inRepo = (args: string[]) =>
			runCommand(process.execPath, [bin, ...args], { cwd: repo, env: env(), timeoutMs: 90_000 });
		const skipped = [
			`Warning: Skipped saved workflow ${join(claude, "zero.js")}: it is a character device, not a regular file. Only regular .js files are read as saved workflows: remove it, or put a workflow file in its place`,
			`Warning: Skipped saved workflow ${join(ours, "huge.js")}: it is 524292 bytes, over the limit of 524288 bytes. A workflow script may be at most 512 KiB: shorten it`,
			`Warning: Skipped saved workflow ${join(ours, "pipe.js")}: it is a named pipe (FIFO), not a regular file. Only regular .js files are read as saved workflows: remove it, or put a workflow file in its place`,
		];

		const run = await inRepo(["run", "zero", ...PI]);
		expect(run.code, run.stderr).toBe(2);
		expect(run.stderr.trim().split("\n")).toEqual([
			...skipped,
			"pi-workflows: No saved workflow named `zero`. Saved: good, map-reduce-summary, parallel-fixes, pipeline-migration, plan-implement-review, research-brief, review-and-fix, test-triage",
		]);
		const check = await inRepo(["check", "good"]);
		expect(check.code, check.stderr).toBe(0);
		expect(check.stdout).toBe(`${join(".pi", "workflows", "good.js")}: ok\n`);
		expect(check.stderr.trim().split("\n")).toEqual(skipped);
	});
});

describe("pi-workflows check", () => {
	it("run refuses a script that cannot start at its file:line:column, exit 2", async () => {
		const file = script("broken.js", "return (;");
		const result = await cli(["run", file, ...PI]);
		expect(result.code, result.stderr).toBe(2);
		expect(result.stderr).toBe(
			`pi-workflows: ${file}:2:9: Unexpected \`;\`. Look for a missing or extra bracket, comma, operator or quote just before it\n`,
		);
	});

	it("passes a good script (exit 0) and reports a bad header at its line and column with a frame (exit 1)", async () => {
		const good = await cli(["check", EXAMPLE]);
		expect(good.code).toBe(0);
		expect(good.stdout).toContain("map-reduce-summary.js: ok");

		const bad = join(project, "bad-header.js");
		writeFileSync(
			bad,
			'export const meta = {\n\tname: "bad",\n\tdescription: "a header with a typo",\n\tphses: [],\n};\nreturn 1;\n',
		);
		const result = await cli(["check", bad]);
		expect(result.code).toBe(1);
		expect(result.stdout).toContain("bad-header.js:4:2: error meta_invalid: `meta.phses` is not a known key");
		expect(result.stdout).toContain(
			"  fix: Did you mean `phases`? Known keys: name, description, whenToUse, phases, args, model",
		);
		expect(result.stdout).toContain("> 4 |  phses: [],\n    |  ^");

		const json = await cli(["check", bad, "--json"]);
		expect(json.code).toBe(1);
		expect(JSON.parse(json.stdout)).toEqual({
			ok: false,
			diagnostics: [
				expect.objectContaining({
					code: "meta_invalid",
					severity: "error",
					line: 4,
					column: 2,
					frame: expect.any(String),
				}),
			],
		});
	});
});

describe("pi-workflows run, runs and resume (children as pi sessions on the faux provider)", () => {
	it("runs an example end to end: progress lines on stderr, the whole result as JSON on stdout, exit 0", async () => {
		const result = await cli(["run", EXAMPLE, "--args", '{"documents":["a.md","b.md"]}', ...PI, "--json"]);
		expect(result.code, result.stderr).toBe(0);
		const output = JSON.parse(result.stdout);
		expect(output).toMatchObject({
			status: "completed",
			counts: { calls: 3, completed: 3, failed: 0 },
			value: {
				summary: "faux: Merge these 2 summaries into one, for: the main points, deci",
				keyPoints: [],
				levels: 1,
				unread: [],
			},
			runId: expect.stringMatching(/^wf-/),
		});
		// faux/faux-1 has no price: its cost is unknown, counted per reply, never $0.
		expect(output.cost.usd).toBe(0);
		expect(output.cost.unpriced).toBeGreaterThanOrEqual(3);
		expect(result.stderr).toContain("Phase map");
		expect(result.stderr).toContain("✓ map a.md");
		expect(result.stderr).toContain("✓ reduce L1 #1");
		expect(result.stderr).toContain(`Run ${output.runId}`);

		const runs = await cli(["runs"]);
		expect(runs.code).toBe(0);
		expect(runs.stdout).toMatch(
			new RegExp(`${output.runId} · map-reduce-summary · completed · .* 3 agents done · .* tokens · cost unknown`),
		);
		const list = JSON.parse((await cli(["runs", "--json"])).stdout);
		expect(list).toContainEqual(expect.objectContaining({ id: output.runId, status: "completed", agents: 3 }));

		// One run: what /workflows shows, then each child's conversation, a pi session file pi's SessionManager reads.
		const one = await cli(["runs", output.runId]);
		expect(one.code, one.stderr).toBe(0);
		expect(one.stdout).toContain(`Run ${output.runId} (map-reduce-summary): completed`);
		expect(one.stdout).toMatch(/Children's conversations \(pi session files/);
		expect(one.stdout).toMatch(
			/#1 map a\.md · completed · faux\/faux-1 · first run · \d+\.\d KB\n\s+\/.*\/children\/000-map-a-md-1\.jsonl/,
		);
		const shown = JSON.parse((await cli(["runs", output.runId, "--json"])).stdout);
		expect(shown).toMatchObject({ id: output.runId, status: "completed" });
		expect(shown.conversations.map((c: { path: string }) => c.path)).toEqual([
			"children/000-map-a-md-1.jsonl",
			"children/001-map-b-md-1.jsonl",
			"children/002-reduce-l1-1-1.jsonl",
		]);
		for (const conversation of shown.conversations as { file: string; outcome: string }[]) {
			expect(conversation.outcome).toBe("completed");
			const messages = SessionManager.open(conversation.file).buildSessionContext().messages;
			// The example's calls have schemas: the child answers through its structured-output tool.
			expect(messages.map((m) => m.role).slice(0, 3)).toEqual(["system", "user", "assistant"]);
			expect(JSON.stringify(messages)).toContain("submit_result");
		}
		expect(existsSync(join(shown.dir, "events.jsonl"))).toBe(true);
		const usage = await cli(["runs", output.runId, "extra"]);
		expect(usage.code).toBe(2);
		expect(usage.stderr).toContain("`runs` takes at most a run id: pi-workflows runs [<runId>] [--json]");
	}, 120_000);

	it("runs a bundled workflow by its name, from a project that saved none", async () => {
		const result = await cli(["run", "map-reduce-summary", "--args", '{"documents":["c.md"]}', ...PI, "--json"]);
		expect(result.code, result.stderr).toBe(0);
		expect(JSON.parse(result.stdout)).toMatchObject({
			status: "completed",
			// One document: its summary is the answer, no reducer.
			counts: { calls: 1, completed: 1, failed: 0 },
			value: { levels: 0, unread: [] },
		});
		expect(result.stderr).toContain("✓ map c.md");
	}, 120_000);

	it("runs a Claude Code workflow from .claude/workflows by its name; .pi/workflows wins a name both have", async () => {
		const claudeDir = join(project, ".claude", "workflows");
		mkdirSync(claudeDir, { recursive: true });
		writeFileSync(
			join(claudeDir, "claude-hello.js"),
			'export const meta = { name: "claude-hello", description: "from Claude Code" };\nreturn { from: "claude", said: await agent("echo hello", { model: "inherit" }), tiered: await agent("echo tier", { tier: "small" }) };\n',
		);
		const result = await cli(["run", "claude-hello", ...PI, "--model-tiers", "small=faux/faux-priced", "--json"]);
		expect(result.code, result.stderr).toBe(0);
		expect(JSON.parse(result.stdout)).toMatchObject({
			status: "completed",
			value: { from: "claude", said: "child answered HELLO", tiered: "child answered TIER" },
			counts: { calls: 2, completed: 2 },
			matches: [
				{ kind: "model", written: "inherit", resolved: "faux/faux-1", calls: 1 },
				{ kind: "tier", written: "small", resolved: "faux/faux-priced", how: "the --model-tiers flag", calls: 1 },
			],
		});
		const bad = await cli(["run", "claude-hello", ...PI, "--model-tiers", "small"]);
		expect(bad.code).toBe(2);
		expect(bad.stderr).toContain(
			'--model-tiers takes tier=provider/id pairs separated by commas, got "small". See `pi-workflows run --help`',
		);
		mkdirSync(join(project, ".pi", "workflows"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "workflows", "claude-hello.js"),
			'export const meta = { name: "claude-hello", description: "ours" };\nreturn { from: "pi" };\n',
		);
		const ours = await cli(["run", "claude-hello", ...PI, "--json"]);
		expect(ours.code, ours.stderr).toBe(0);
		expect(JSON.parse(ours.stdout)).toMatchObject({ status: "completed", value: { from: "pi" } });
		rmSync(join(project, ".pi", "workflows", "claude-hello.js"));
	}, 120_000);

	it("--max-cost without a terminal: at the cap no new child starts and the run stops, exit 130, resumable; the lines and --json say what each cost", async () => {
		const file = script(
			"capped.js",
			'const out = [];\nfor (const w of ["one", "two", "three"]) out.push(await agent("echo " + w));\nreturn out;',
		);
		const result = await cli([
			"run",
			file,
			"-e",
			FAUX,
			"--model",
			"faux/faux-priced",
			"--max-cost",
			"0.000001",
			"--json",
		]);
		expect(result.code, result.stderr).toBe(130);
		expect(result.stderr).toMatch(/✓ echo one · [\d.]+m?s · faux\/faux-priced · (\$0\.\d+|<\$0\.0001)/);
		expect(result.stderr).toContain("Error (cost_cap): Stopped at the run's cost cap:");
		// The copy-paste line carries the higher total the resume needs: without it, it would stop again at once.
		const line =
			/Resume it with a higher cap \(the run's total\): (pi-workflows resume (wf-\S+) --max-cost (\d+(\.\d+)?))\n/.exec(
				result.stderr,
			);
		expect(line, result.stderr).not.toBeNull();
		// The next call was queued; no child of it started.
		expect(result.stderr).not.toContain("✓ echo two");
		expect(result.stderr).not.toContain("echo three");
		const output = JSON.parse(result.stdout);
		expect(output.counts).toMatchObject({ completed: 1 });
		expect(output.cost.usd).toBeGreaterThan(0);
		expect(output.cost.unpriced).toBeUndefined();

		// The cap is the run's: a resume without --max-cost replays what it has and stops at the record's total.
		const resumed = await cli(["resume", output.runId, "-e", FAUX, "--model", "faux/faux-priced"]);
		expect(resumed.code, resumed.stderr).toBe(130);
		expect(resumed.stderr).toContain("✓ echo one · replayed from the run record");
		expect(resumed.stderr).not.toContain("✓ echo two");
		expect(resumed.stderr).toMatch(/Error \(cost_cap\): Stopped at the run's cost cap: \$0\.\d+ of <\$0\.0001 spent/);
		expect(resumed.stderr).toContain(`Resume it with a higher cap (the run's total): ${line?.[1]}\n`);

		// The line as printed: the total it names lets the next child start.
		const [, , id, total] = line ?? [];
		expect(id).toBe(output.runId);
		const raised = await cli([
			"resume",
			String(id),
			"-e",
			FAUX,
			"--model",
			"faux/faux-priced",
			"--max-cost",
			String(total),
		]);
		expect(raised.stderr).toContain("✓ echo one · replayed from the run record");
		expect(raised.stderr).toContain("✓ echo two");
	}, 180_000);

	it("a script that throws: exit 1, the error and the resume hint on stderr", async () => {
		const file = script("throws.js", 'await agent("echo first");\nthrow new Error("the script gave up");');
		const result = await cli(["run", file, ...PI]);
		expect(result.code, result.stderr).toBe(1);
		expect(result.stderr).toContain("Error (script_error): the script gave up (3:16)");
		expect(result.stderr).toMatch(/Resume it: pi-workflows resume wf-\S+/);
	}, 120_000);

	it("no model pi could use: a script without agent() runs; the first agent() fails with the cause (issue 32)", async () => {
		const quiet = script("no-agents.js", 'log("no agents here");\nreturn { ok: true };');
		const ran = await cli(["run", quiet]);
		expect(ran.code, ran.stderr).toBe(0);
		expect(JSON.parse(ran.stdout)).toEqual({ ok: true });
		expect(ran.stderr).toContain("no agents here");
		// A value's C1 controls and reordering marks, which JSON.stringify leaves raw, are escaped on stdout too.
		const marks = script("marks.js", 'return { title: "\\u009b2J\\u202eevil" };');
		for (const flags of [[], ["--json"]]) {
			const shown = await cli(["run", marks, ...flags]);
			expect(shown.code, shown.stderr).toBe(0);
			expect(shown.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e]/);
			const value = JSON.parse(shown.stdout);
			expect(flags.length > 0 ? value.value : value).toEqual({ title: "\u009b2J\u202eevil" });
		}
		const asks = script("one-agent.js", 'return await agent("say hi");');
		const none = await cli(["run", asks]);
		expect(none.code, none.stderr).toBe(1);
		expect(none.stderr).toContain(
			"✗ say hi: No model available: pi has no credentials for any provider. Log in with `pi` (/login) or set a provider's API key, or pass --model provider/id with -e for a custom provider",
		);
	}, 120_000);

	it("a model pi does not know: one line, exit 2", async () => {
		const unknown = await cli([
			"run",
			EXAMPLE,
			"--args",
			'{"documents":["a.md"]}',
			"-e",
			FAUX,
			"--model",
			"nowhere/x",
		]);
		expect(unknown.code, unknown.stderr).toBe(2);
		expect(unknown.stderr).toContain("--model nowhere/x:");
		expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
	}, 120_000);

	it("Ctrl-C stops the children (exit 130) and says how to resume; resume with a fixed script replays and completes", async () => {
		const file = script(
			"waits.js",
			'phase("work");\nconst a = await agent("echo one");\nconst b = await agent("wait for ever");\nreturn { a, b };',
		);
		const stopped = await runUntil([bin, "run", file, ...PI], "✓ echo one");
		expect(stopped.code, stopped.stderr).toBe(130);
		expect(stopped.stderr).toContain("Stopping: ending the children");
		expect(stopped.stderr).toContain("Workflow waits was stopped");
		const runId = /Resume it: pi-workflows resume (wf-\S+)/.exec(stopped.stderr)?.[1];
		expect(runId).toBeDefined();

		const fixed = script(
			"waits-fixed.js",
			'phase("work");\nconst a = await agent("echo one");\nconst b = await agent("echo two");\nreturn { a, b };',
		);
		const resumed = await cli(["resume", runId as string, fixed, ...PI]);
		expect(resumed.code, resumed.stderr).toBe(0);
		expect(JSON.parse(resumed.stdout)).toEqual({ a: "child answered ONE", b: "child answered TWO" });
		expect(resumed.stderr).toContain("✓ echo one · replayed from the run record");
	}, 150_000);
});

describe("pi-workflows run and ask()", () => {
	// util-linux `script` (Debian's bsdutils, an essential package) gives the bin a real terminal. Under CI a missing
	// one fails the test rather than skip it; elsewhere it skips (apt-get install bsdutils).
	const hasScript = existsSync("/usr/bin/script") || existsSync("/bin/script");

	it.skipIf(!hasScript && process.env.CI !== "true")(
		"on a pseudo-terminal (util-linux `script`): asks on the terminal and the script gets the answer",
		async () => {
			const file = script(
				"asks.js",
				'const a = await agent("echo one");\nconst pick = await ask("Ship or hold?", { choices: ["ship", "hold"] });\nreturn a + " / " + pick;',
			);
			const command = [process.execPath, bin, "run", file, ...PI].join(" ");
			const result = await onTerminal(command, "Answer 1-2 or a choice: ", "2\r");
			expect(result.code, result.stdout).toBe(0);
			expect(result.stdout).toContain("? Ship or hold?");
			expect(result.stdout).toContain('"child answered ONE / hold"');
		},
		120_000,
	);

	it.skipIf(!hasScript && process.env.CI !== "true")(
		"on a pseudo-terminal at --max-cost: asked for a higher cap; a raise goes on where the run was",
		async () => {
			const file = script(
				"capped-tty.js",
				'const out = [];\nfor (const w of ["one", "two", "three"]) out.push(await agent("echo " + w));\nreturn out;',
			);
			// A priced call in the project's history: the estimate before the run, and so the question, price from it.
			const earlier = await cli(["run", script("priced-once.js", 'return await agent("echo zero");'), ...PRICED]);
			expect(earlier.code, earlier.stderr).toBe(0);
			const command = [process.execPath, bin, "run", file, ...PRICED].concat(["--max-cost", "0.000001"]).join(" ");
			const result = await onTerminal(command, 'or "stop" (default: stop): ', "5\r");
			expect(result.code, result.stdout).toBe(0);
			expect(result.stdout).toMatch(
				/Warning: estimated \$[\d.–$]+, over the cap <\$0\.0001 \(Basis: project history: /,
			);
			expect(result.stdout).toMatch(
				/\? Workflow capped-tty reached its cost cap\. Spent \$0\.\d+ of the <\$0\.0001 cap; about \$[\d.]+ more to finish \(estimate\)\./,
			);
			expect(result.stdout).toMatch(
				/New cap in US dollars such as \$0\.\d+ or \$0\.\d+, or "stop" \(default: stop\): 5/,
			);
			expect(result.stdout).toContain(
				'"child answered ONE",\r\n  "child answered TWO",\r\n  "child answered THREE"',
			);
		},
		120_000,
	);

	it("without a terminal: ask_unavailable saying why and what to do, exit 1; a default goes on", async () => {
		const file = script("asks-no-tty.js", 'return await ask("Ship or hold?");');
		const result = await cli(["run", file, ...PI]);
		expect(result.code, result.stderr).toBe(1);
		expect(result.stderr).toContain(
			'Error (ask_unavailable): Nobody can answer `ask("Ship or hold?")` here: stdin is not a terminal (a pipe, a CI job), so nobody can answer here. Run it on a terminal to be asked. Give the question a `default`, or pass the answer in `args` and ask only when it is missing (2:17)',
		);
		const withDefault = script("asks-default.js", 'return await ask("Ship or hold?", { default: "hold" });');
		const went = await cli(["run", withDefault, ...PI]);
		expect(went.code, went.stderr).toBe(0);
		expect(went.stdout.trim()).toBe('"hold"');
	}, 120_000);

	it("tool() runs pi's built-ins only when --allow-tools names them: tool_unavailable without, the result with", async () => {
		const file = script(
			"tool-gate.js",
			'const r = await tool("bash", { command: "echo from-bash; exit 2" });\nconst listed = await tool("ls", {}).catch((e) => e.code);\nreturn { output: r.output, isError: r.isError, exit: r.details.exit_code, listed };',
		);
		const refused = await cli(["run", file, ...PI]);
		expect(refused.code, refused.stderr).toBe(1);
		expect(refused.stderr).toContain(
			'Error (tool_unavailable): `tool("bash")`: the host running this workflow lends no tools (no `tools` option). In pi, run it with the `workflow` tool; on the command line, name the tools with `--allow-tools bash` (2:21)',
		);
		const allowed = await cli(["run", file, ...PI, "--allow-tools", "bash"]);
		expect(allowed.code, allowed.stderr).toBe(0);
		expect(JSON.parse(allowed.stdout)).toEqual({
			output: "from-bash\n\n\nCommand exited with code 2",
			isError: true,
			exit: 2,
			listed: "tool_unknown",
		});
		expect(allowed.stderr).toMatch(/\$ echo from-bash; exit 2 · \d+\.\ds · exit 2/);
	}, 120_000);
});

describe("pi-workflows run --dry-run (no credentials, no model)", () => {
	/** A machine where pi was never set up: an empty home and an empty agent directory, no provider keys. */
	function bare(): { run: (args: string[]) => Promise<SpawnResult>; home: string; agent: string } {
		const home = mkdtempSync(join(tmpdir(), "wf-dry-home-"));
		const agent = mkdtempSync(join(tmpdir(), "wf-dry-agent-"));
		dirs.push(home, agent);
		const run = (args: string[]) =>
			runCommand(process.execPath, [bin, ...args], {
				cwd: project,
				env: { ...env(), HOME: home, PI_CODING_AGENT_DIR: agent },
				timeoutMs: 90_000,
			});
		return { run, home, agent };
	}

	it("dry-runs an example without credentials: the plan on stdout, exit 0, nothing written anywhere", async () => {
		const { run, home, agent } = bare();
		const before = listTree(project);
		const result = await run(["run", join(ROOT, "examples", "workflows", "review-and-fix.js"), "--dry-run"]);
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).toContain(
			"Dry run of review-and-fix: no model was called, no file written, nothing recorded.",
		);
		expect(result.stdout).toContain("No args were given: the run used a sample value of the meta.args schema:\n  {");
		expect(result.stdout).toContain(
			"Phases:\n  1. review\n     3 agent calls, widest fan-out 3; general-purpose on (no model: would use pi's default)\n  2. dedupe\n     nothing to do\n  3. fix\n     3 agent calls (0–8 over the draws), widest fan-out 3;",
		);
		expect(result.stdout).toContain(
			"Totals: 7 agent calls, widest fan-out 3, 0 tool steps (0 run, 0 fenced), 0 questions\nOver 3 draws of the made-up answers (typical, empty and long arrays, each enum value in turn): 3–12 agent calls, widest fan-out 3–8\n",
		);
		expect(result.stdout).toContain("Returns: { target: string");
		// No model named anywhere: the estimate says it has nothing to price with.
		expect(result.stdout).toContain(
			"Estimated cost: no estimate for 7 calls\n  phase review: no estimate for 3 calls\n  phase fix: no estimate for 3 calls\n  phase verify: no estimate for 1 call\nBasis: no estimate: no earlier calls like these and no model known",
		);
		expect(listTree(project)).toEqual(before);
		expect([...listTree(home), ...listTree(agent)]).toEqual([]);
	}, 120_000);

	it("--json gives the plan as data: the calls a cost estimate reads; a dry run is not in the run store", async () => {
		const { run, agent } = bare();
		const result = await run([
			"run",
			EXAMPLE,
			"--dry-run",
			"--json",
			"--args",
			'{"documents":["a","b","c"]}',
			"--model",
			"faux/faux-1",
		]);
		expect(result.code, result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout);
		expect(plan).toMatchObject({ dryRun: true, workflow: "map-reduce-summary", status: "completed", args: "given" });
		expect(plan.calls.length).toBe(plan.totals.agentCalls);
		expect(plan.calls.length).toBeGreaterThan(3);
		for (const call of plan.calls) {
			expect(call).toMatchObject({
				index: expect.any(Number),
				label: expect.any(String),
				agentType: "general-purpose",
				model: "faux/faux-1",
			});
		}
		expect(plan.calls.filter((call: { fanOut?: number }) => call.fanOut === 3)).toHaveLength(3);
		expect(listTree(agent)).toEqual([]);
		const runs = await run(["runs", "--json"]);
		expect(runs.code, runs.stderr).toBe(0);
		expect(JSON.parse(runs.stdout)).toEqual([]);
	}, 120_000);

	it("prints the estimate after the plan: from pi-ai's catalog with no credentials, over the cap when it is", async () => {
		const { run, home, agent } = bare();
		const file = script(
			"estimated-catalog.js",
			'phase("plan");\nawait agent("plan it", { label: "planner" });\nphase("work");\nreturn await parallel(["a", "b"].map((w) => () => agent("do " + w, { label: "worker" })));',
		);
		const model = ["--model", "anthropic/claude-sonnet-4-5"];
		const text = await run(["run", file, "--dry-run", ...model, "--max-cost", "0.01"]);
		expect(text.code, text.stderr).toBe(0);
		expect(text.stdout).toContain(
			"\n\nEstimated cost (catalog prices × a default size per child, half to twice that: no history): $0.14–$0.54, 33.0k–132.0k tokens for 3 calls\n  phase plan: $0.045–$0.18, 11.0k–44.0k tokens for 1 call\n  phase work: $0.09–$0.36, 22.0k–88.0k tokens for 2 calls\nBasis: catalog price of anthropic/claude-sonnet-4-5 ($3/$15 per million input/output tokens) × a default 20.0k input/2.0k output tokens per child, half to twice that (no history)",
		);
		expect(text.stdout.trimEnd()).toMatch(/\nWarning: estimated \$0\.14–\$0\.54, over the cap \$0\.01\.$/);
		const json = await run(["run", file, "--dry-run", "--json", ...model]);
		expect(json.code, json.stderr).toBe(0);
		const { estimate } = JSON.parse(json.stdout);
		expect(estimate.estimate.groups.map((group: { basis: { source: string } }) => group.basis.source)).toEqual([
			"catalog",
			"catalog",
		]);
		expect(estimate.overCap).toBeUndefined();
		// A model pi-ai does not list: the basis says so.
		const unknown = await run(["run", file, "--dry-run", "--model", "faux/faux-priced"]);
		expect(unknown.stdout).toContain(
			"Estimated cost: no estimate for 3 calls\n  phase plan: no estimate for 1 call\n  phase work: no estimate for 2 calls\nBasis: no estimate: no earlier calls like these and no price known for faux/faux-priced",
		);
		expect([...listTree(home), ...listTree(agent)]).toEqual([]);
	}, 120_000);

	it("with a run of the workflow in the store, the estimate names it; a capped run is warned of before its first child", async () => {
		const { run } = bare();
		const file = script(
			"estimated.js",
			'phase("plan");\nawait agent("echo plan", { label: "planner" });\nphase("work");\nreturn await parallel(["a", "b"].map((w) => () => agent("echo " + w, { label: "worker" })));',
		);
		const priced = ["-e", FAUX, "--model", "faux/faux-priced"];
		const first = await run(["run", file, ...priced]);
		expect(first.code, first.stderr).toBe(0);
		const dry = await run(["run", file, "--dry-run", "--model", "faux/faux-priced", "--max-cost", "0.000001"]);
		expect(dry.code, dry.stderr).toBe(0);
		expect(dry.stdout).toMatch(
			/\n\nEstimated cost \(the middle half of what like calls cost\): \$[\d.]+.* for 3 calls\n/,
		);
		expect(dry.stdout).toContain(
			"Basis: 1 earlier call of workflow `estimated` (phase plan, label planner); 2 earlier calls of workflow `estimated` (phase work, label worker)",
		);
		expect(dry.stdout).toMatch(/\nWarning: estimated \$[\d.–$]+, over the cap <\$0\.0001\.\n$/);

		const capped = await run(["run", file, ...priced, "--max-cost", "0.000001"]);
		expect(capped.code, capped.stderr).toBe(130);
		const warning = capped.stderr.search(
			/Warning: estimated \$[\d.–$]+, over the cap <\$0\.0001 \(Basis: 1 earlier call of workflow `estimated`.*\)\. The run starts; it stops at the cap, resumable\./,
		);
		expect(warning, capped.stderr).toBeGreaterThanOrEqual(0);
		// Said before the first child started.
		expect(capped.stderr.search(/✓ planner/), capped.stderr).toBeGreaterThan(warning);
		// No cap, no dry run first, no warning.
		const uncapped = await run(["run", file, ...priced]);
		expect(uncapped.code, uncapped.stderr).toBe(0);
		expect(uncapped.stderr).not.toContain("Warning: estimated");
	}, 180_000);

	it("runs the read-only tools --allow-tools names for real, fences bash with --no-sandboxed-bash, takes --answers, and warns of tools a real run would not lend", async () => {
		const { run } = bare();
		writeFileSync(join(project, "notes.txt"), "dry-notes\n");
		const file = script(
			"dry-tools.js",
			'const notes = await tool("read", { path: "notes.txt" });\nconst r = await tool("bash", { command: "rm notes.txt" });\nconst pick = await ask("Ship or hold?", { choices: ["ship", "hold"] });\nreturn { notes: notes.output.trim(), bash: r.output, marked: r.details.dryRun, pick };',
		);
		const result = await run([
			"run",
			file,
			"--dry-run",
			"--json",
			"--answers",
			'{"Ship or hold?":"hold"}',
			"--allow-tools",
			"read",
			"--no-sandboxed-bash",
		]);
		expect(result.code, result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout);
		expect(plan.tools.map((t: { name: string; ran: boolean }) => [t.name, t.ran])).toEqual([
			["read", true],
			["bash", false],
		]);
		expect(plan.questions).toEqual([{ index: 0, question: "Ship or hold?", answer: "hold", source: "given" }]);
		expect(plan.warnings).toEqual([
			'`tool("bash")`: a real run from the command line lends no bash unless --allow-tools names it, and the step throws',
		]);
		expect(existsSync(join(project, "notes.txt"))).toBe(true);
		const text = await run([
			"run",
			file,
			"--dry-run",
			"--answers",
			'["ship"]',
			"--allow-tools",
			"read",
			"--no-sandboxed-bash",
		]);
		expect(text.code, text.stderr).toBe(0);
		expect(text.stdout).toContain("2 tool steps: 1 run (read), 1 fenced, not run (bash)");
		expect(text.stdout).toContain("Question #1: Ship or hold? → ship (given)");
	}, 120_000);

	it("refuses --answers without --dry-run and --dry-run on resume, exit 2", async () => {
		const { run } = bare();
		const answers = await run(["run", EXAMPLE, "--answers", "[]"]);
		expect(answers.code).toBe(2);
		expect(answers.stderr).toContain("--answers answers a dry run's questions: give it with --dry-run");
		const resume = await run(["resume", "wf-20261201-130000-abc123", "--dry-run"]);
		expect(resume.code).toBe(2);
		expect(resume.stderr).toContain("`resume` has no --dry-run");
	}, 120_000);
});

/** Every file and folder under `dir`, relative, sorted: a snapshot to compare before and after. */
function listTree(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

/** Runs `command` on a pseudo-terminal through util-linux `script`; types `keys` once the output shows `marker`. */
function onTerminal(command: string, marker: string, keys: string): Promise<SpawnResult> {
	return new Promise((resolve, reject) => {
		const child = spawn("script", ["-qfec", command, "/dev/null"], {
			cwd: project,
			env: { ...env(), TERM: "dumb" },
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let typed = false;
		const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
			if (!typed && stdout.includes(marker)) {
				typed = true;
				child.stdin.write(keys);
			}
		});
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr: "" });
		});
	});
}

/** Spawns the bin and sends SIGINT once stderr shows `marker`. */
function runUntil(args: string[], marker: string): Promise<SpawnResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, args, { cwd: project, env: env(), stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		let sent = false;
		const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
			if (!sent && stderr.includes(marker)) {
				sent = true;
				// The next agent has been queued by then; give it a moment to start its session.
				setTimeout(() => child.kill("SIGINT"), 500);
			}
		});
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}
