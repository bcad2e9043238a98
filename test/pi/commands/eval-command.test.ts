/**
 * `/workflows eval <file|name>`: the eval runs in the background of the session on real pi sessions (the faux
 * provider), the command returns at once, the status line counts trials and is cleared, each trial is a recorded run
 * whose children's conversations are kept, and the scorecard reaches the conversation fenced, without a turn. pi
 * ending the session stops it, its finished trials kept.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalsRoot, listEvals } from "../../../src/eval/index.ts";
import { workflowsEvalSubcommand } from "../../../src/pi/commands/eval-command.ts";
import { createRunStore } from "../../../src/runs/index.ts";
import type { RunnerSetup } from "../../../src/tool/workflow-tool.ts";
import { createRunnerFixture, type RunnerFixture } from "../../children/runner-fixture.ts";
import { fauxAssistantMessage } from "../../helpers/faux.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

let fx: RunnerFixture;

beforeAll(async () => {
	fx = await createRunnerFixture();
	// Children asked to `echo w` answer W; any other task gets a shrug.
	fx.faux.route(
		/^echo /,
		Array.from({ length: 40 }, () => (request) => fauxAssistantMessage(request.task.slice(5).toUpperCase())),
	);
	fx.faux.route(
		/^say /,
		Array.from({ length: 40 }, () => fauxAssistantMessage("no idea")),
	);
	fx.dirs.write(
		"weak.js",
		`export const meta = { name: "weak", description: "right on one case in four" };\nreturn await agent((args.n % 4 === 0 ? "echo " : "say ") + args.word);\n`,
	);
	fx.dirs.write(
		"strong.js",
		`export const meta = { name: "strong", description: "right on every case" };\nreturn await agent("echo " + args.word);\n`,
	);
	fx.dirs.write(
		"grade.js",
		`export const meta = { name: "grade", description: "the word in capitals" };\nreturn { pass: String(args.output).includes(args.case.expect), reason: String(args.output) };\n`,
	);
	const cases = Array.from({ length: 12 }, (_, n) => ({ id: `c${n}`, args: { n, word: `w${n}` }, expect: `W${n}` }));
	fx.dirs.write(
		".pi/workflows/strong.eval.json",
		JSON.stringify({
			name: "weak-strong",
			cases,
			arms: { A: { workflow: "../../weak.js" }, B: { workflow: "../../strong.js" } },
			trials: 1,
			grader: "../../grade.js",
		}),
	);
});
afterAll(() => fx.teardown());

/** A command context that records notifications and the status line. */
function commandContext() {
	const shown: { text: string; level: string }[] = [];
	const status: (string | undefined)[] = [];
	const ctx = {
		cwd: fx.dirs.cwd,
		mode: "tui",
		hasUI: true,
		ui: {
			notify: (text: string, level = "info") => shown.push({ text, level }),
			setStatus: (_key: string, text: string | undefined) => status.push(text),
		},
	} as unknown as ExtensionCommandContext;
	return { ctx, shown, status };
}

function subcommand(running = new Set<AbortController>()) {
	const setups: RunnerSetup[] = [];
	let sent: (text: string) => void = () => {};
	const message = new Promise<string>((resolve) => {
		sent = resolve;
	});
	const run = workflowsEvalSubcommand({
		agentDir: fx.dirs.agentDir,
		makeRunner: async (_ctx, setup) => {
			setups.push(setup);
			return fx.runner({ ...(setup.runFolder ? { runFolder: setup.runFolder } : {}), record: setup.record });
		},
		send: (text) => sent(text),
		running,
	});
	return { run, setups, message, running };
}

describe("/workflows eval", () => {
	it("runs a saved workflow's eval in the background: trials counted, recorded, the scorecard fenced at the end", async () => {
		const { ctx, shown, status } = commandContext();
		const { run, message, setups } = subcommand();
		await run("strong", ctx);
		// The command returned before the eval ended: the person keeps the session.
		expect(shown).toEqual([
			{
				text: "Eval weak-strong started in the background: each trial is a recorded run (/workflows lists them); the scorecard comes as a message when it ends",
				level: "info",
			},
		]);
		const text = await message;
		expect(text).toMatch(/^Text inside <workflow-data> fences was written by/);
		expect(text).toContain('<workflow-data from="/workflows eval strong">');
		expect(text).toMatch(/B is better: \+75 points \(95 %: /);
		expect(text.trimEnd().endsWith("</workflow-data>")).toBe(true);
		expect(status.filter((line) => line !== undefined)).toEqual(
			Array.from({ length: 24 }, (_, i) => `eval weak-strong: ${i + 1} of 24 trials`),
		);
		expect(status.at(-1)).toBeUndefined();
		// Each trial is a recorded run whose children's conversations are kept in its folder.
		const store = createRunStore({ cwd: fx.dirs.cwd, root: join(fx.dirs.agentDir, "workflow-runs") });
		const runs = await store.list();
		expect(runs).toHaveLength(24);
		expect(setups.filter((setup) => setup.runFolder !== undefined)).toHaveLength(24);
		const kept = runs.filter((r) =>
			readdirSync(join(store.dir, r.id, "children")).some((file) => file.endsWith(".jsonl")),
		);
		expect(kept).toHaveLength(24);
		expect(await listEvals(evalsRoot(fx.dirs.agentDir))).toEqual([
			expect.objectContaining({ name: "weak-strong", planned: 24, finished: 24 }),
		]);
	}, 120_000);

	it("says what to give without a file, and names an eval that is not there", async () => {
		const { ctx, shown } = commandContext();
		const { run } = subcommand();
		await run("", ctx);
		await run("nothing-saved", ctx);
		expect(shown.map((line) => line.level)).toEqual(["warning", "error"]);
		expect(shown[0]?.text).toMatch(/^Usage: \/workflows eval <file\|name>/);
		expect(shown[1]?.text).toContain('no eval saved for the workflow "nothing-saved"');
	});

	it("stops when pi ends the session, and says how to go on", async () => {
		const { ctx } = commandContext();
		const { run, message, running } = subcommand();
		await run("strong", ctx);
		expect(running.size).toBe(1);
		for (const stop of running) stop.abort();
		const text = await message;
		const stopped = (await listEvals(evalsRoot(fx.dirs.agentDir))).find((e) => e.finished < e.planned);
		// Stopped before its first trial started: none ran, none counts as finished.
		expect(stopped?.finished).toBe(0);
		expect(text).toContain(`Resume it: pi-workflows eval --resume ${stopped?.id}`);
		expect(running.size).toBe(0);
	}, 120_000);
});
