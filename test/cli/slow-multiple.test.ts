/**
 * `--slow-multiple` on `run` and `resume`, else the `workflows.slowMultiple` setting: the multiple of a call's usual
 * duration past which the run marks it slower than usual (the progress line of the call, `call_slow` in the event log). The child here takes turns until
 * its call is marked, so the mark comes from the multiple given, whatever the machine's speed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunStore, readEventLog } from "../../src/runs/index.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { ROOT } from "../helpers/package.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const PI = ["-e", join(ROOT, "test", "fixtures", "faux-provider-extension.ts"), "--model", "faux/faux-1"];

const SCRIPT = `export const meta = { name: "slowish", description: "one child, as long as its task says" };
return await agent(args.task, { label: "scan" });
`;

describe("pi-workflows run --slow-multiple", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-cli-slow-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-cli-slow-agent-"));
		writeFileSync(join(cwd, "slowish.js"), SCRIPT);
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});
	const cli = (argv: string[]) => cliInProcess(argv, { cwd, agentDir });
	const runsRoot = () => join(agentDir, "workflow-runs");

	const events = async (runId: string) =>
		(await readEventLog((await createRunStore({ cwd, root: runsRoot() }).open(runId)).dir)).events as unknown as {
			type: string;
			label?: string;
			durationMs?: number;
			elapsedMs?: number;
			usualMs?: number;
		}[];
	const run = async (task: string, extra: string[]) => {
		const result = await cli(["run", "slowish.js", ...PI, "--json", ...extra, "--args", JSON.stringify({ task })]);
		expect(result.code, result.stderr).toBe(0);
		return { ...result, ...(JSON.parse(result.stdout) as { runId: string; value: string }) };
	};

	it("marks a call slower than usual past the multiple given (flag, else setting), and not before it: on its progress line and in the event log", async () => {
		// The history: one quick call of the same label, whose duration is the usual one. A setting that cannot be
		// used is named in a warning and left out.
		const settings = (slowMultiple: unknown) =>
			writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ workflows: { slowMultiple } }));
		settings("lots");
		const quick = await run("echo quick", []);
		expect(quick.stderr).toContain(
			'Warning: `workflows.slowMultiple` must be a number above 1 (default: 5), got "lots": left out\n',
		);
		const usualMs = (await events(quick.runId)).find((event) => event.type === "agent_finished")?.durationMs ?? 0;
		expect(usualMs).toBeGreaterThan(0);

		// A call that goes on past 6× the usual, which the default multiple (5) marks: not marked under the setting's
		// 1000000, which the command line reads as pi does.
		settings(1_000_000);
		const unmarked = await run(`until past ${6 * usualMs} ms ${runsRoot()}`, []);
		expect(unmarked.value).toBe("past");
		expect((await events(unmarked.runId)).filter((event) => event.type === "call_slow")).toEqual([]);
		expect(unmarked.stderr).not.toContain("slower than usual");

		// A call that goes on until it is marked: under the flag's 1.5 (a flag wins over the setting), its line says so
		// and the log records it once.
		const slow = await run(`until slow ${runsRoot()}`, ["--slow-multiple", "1.5"]);
		expect(slow.value).toBe("marked slow");
		expect(slow.stderr).toMatch(/^ {2}✓ scan · .+ · slower than usual: \d+ s, usually ~\d+ s/m);
		const marks = (await events(slow.runId)).filter((event) => event.type === "call_slow");
		expect(marks).toHaveLength(1);
		expect(marks[0]?.elapsedMs).toBeGreaterThan(1.5 * (marks[0]?.usualMs ?? Number.POSITIVE_INFINITY));
	}, 120_000);

	it.each(["1", "0.5", "lots", "-3", "5x"])(
		"--slow-multiple %s: one usage line naming the flag, exit 2",
		async (given) => {
			for (const command of [
				["run", "slowish.js"],
				["resume", "20261205-000000-aaaaaa"],
			]) {
				const result = await cli([...command, "--slow-multiple", given]);
				expect(result.code, result.stderr).toBe(2);
				expect(result.stderr).toBe(
					`pi-workflows: --slow-multiple must be a number above 1 such as 3 (a call or run that takes more than that many times its usual duration is marked slower than usual), got "${given}"\n`,
				);
			}
		},
	);
});
