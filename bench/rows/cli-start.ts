/**
 * Row 16, the command line's start: `pi-workflows run` of a one-agent workflow (built, as installed) against
 * `pi -p` of one prompt, the same faux child answering both (test/fixtures/faux-provider-extension.ts), each a fresh
 * process from spawn to exit. Wall time and CPU time (user + system of the process and its threads, read with the
 * shell's `times`), the two commands alternating so a busy moment falls on both.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchContext, samples } from "../lib/context.ts";
import type { RowResult } from "../lib/report.ts";
import { now, summarize } from "../lib/stats.ts";

const WORKFLOW = `export const meta = { name: "one-agent", description: "one child, for the start row" };
return await agent("echo hello");`;

interface Timing {
	wallMs: number;
	cpuMs: number;
}

/** Runs `argv` under bash, whose `times` prints the CPU its children used; wall time from spawn to exit. */
function timed(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Timing> {
	return new Promise((resolve, reject) => {
		const started = now();
		const child = spawn("bash", ["-c", '"$@" >/dev/null || exit $?; times', "bash", ...argv], {
			cwd,
			env,
			stdio: ["ignore", "pipe", "pipe"],
		});
		let out = "";
		let err = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk;
		});
		child.stderr.on("data", (chunk: Buffer) => {
			err += chunk;
		});
		child.on("error", reject);
		child.on("exit", (code) => {
			const wallMs = now() - started;
			if (code !== 0)
				return reject(new Error(`row 16: \`${argv.slice(1, 3).join(" ")}\` exited ${code}: ${err.slice(-500)}`));
			// `times`: the shell's own user/system time on the first line, its children's on the second.
			const children = out.trim().split("\n").at(-1) ?? "";
			const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
			if (seconds.length !== 2)
				return reject(new Error(`row 16: could not read CPU time from ${JSON.stringify(out)}`));
			resolve({ wallMs, cpuMs: (seconds[0] + seconds[1]) * 1000 });
		});
	});
}

export async function runCliStart(context: BenchContext): Promise<RowResult[]> {
	const { built } = context;
	if (!("dir" in built)) throw new Error(`row 16 needs the built package: ${built.error.split("\n")[0]}`);
	const root = fileURLToPath(context.root);
	const faux = join(root, "test", "fixtures", "faux-provider-extension.ts");
	const piCli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
	const temp = mkdtempSync(join(tmpdir(), "pi-workflows-bench-cli-"));
	try {
		const agentDir = join(temp, "agent");
		mkdirSync(agentDir);
		writeFileSync(join(temp, "one-agent.js"), WORKFLOW);
		const env = {
			...process.env,
			PI_CODING_AGENT_DIR: agentDir,
			CLAUDE_CONFIG_DIR: join(temp, "claude"),
			PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
		};
		const model = ["-e", faux, "--model", "faux/faux-1"];
		const commands = {
			workflow: [process.execPath, join(built.dir, "cli", "main.js"), "run", "one-agent.js", ...model],
			pi: [process.execPath, piCli, "-p", "--offline", "--no-session", ...model, "echo hello"],
		};
		const results = { workflow: [] as Timing[], pi: [] as Timing[] };
		// One round not counted: the disk cache and pi's own first-start work (its agent dir) warm up.
		for (let round = -1; round < samples(context, 4, 1); round++) {
			const workflow = await timed(commands.workflow, temp, env);
			const pi = await timed(commands.pi, temp, env);
			if (round < 0) continue;
			results.workflow.push(workflow);
			results.pi.push(pi);
		}
		const ratio = (key: keyof Timing) => results.workflow.map((sample, i) => sample[key] / results.pi[i][key]);
		const value = (id: string, title: string, unit: string, list: number[]): RowResult => ({
			id,
			title,
			unit,
			values: { "pi-workflows": summarize(list) },
			ratios: false,
		});
		return [
			value(
				"16a",
				"CLI start: `pi-workflows run` of a one-agent workflow (built), spawn to exit",
				"ms",
				results.workflow.map((s) => s.wallMs),
			),
			value(
				"16b",
				"CLI start: `pi -p` of one prompt, same faux child (baseline)",
				"ms",
				results.pi.map((s) => s.wallMs),
			),
			value("16c", "CLI start: wall time, `pi-workflows run` ÷ `pi -p`", "×", ratio("wallMs")),
			value("16d", "CLI start: CPU time (user + system), `pi-workflows run` ÷ `pi -p`", "×", ratio("cpuMs")),
		];
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
}
