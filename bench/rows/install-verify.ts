/**
 * Row 18: a pi package that ships ten workflows, each with a cassette, installed with pi's own `pi install` (a local
 * path, into a fresh agent dir each sample) and then verified (issue 49): the listing that locks the ten digests, and
 * `verify --all`, which checks each file against its lock and replays its cassette offline. The cassettes are recorded
 * once, from real durable runs answered by a stand-in runner, as `pi-workflows test --save` keeps them.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cassettePathFor, loadRunCassette, writeCassette } from "../../src/host/cassette.ts";
import { startDurableRun } from "../../src/host/start-run.ts";
import { installedWorkflows, verifyInstalled } from "../../src/host/verify.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import type { RowResult } from "../lib/report.ts";
import { now, summarize } from "../lib/stats.ts";

const WORKFLOWS = 10;

/** Row 18. */
export async function runInstallVerify(context: BenchContext): Promise<RowResult[]> {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-bench-install-"));
	try {
		const pkg = await writePackage(join(root, "bench-kit"), join(root, "record"));
		const piCli = fileURLToPath(
			new URL("node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js", context.root),
		);
		const totals: number[] = [];
		const installs: number[] = [];
		const verifies: number[] = [];
		for (let i = 0; i < samples(context, 5, 2); i++) {
			const agentDir = join(root, `agent-${i}`);
			const cwd = join(root, `project-${i}`);
			mkdirSync(cwd, { recursive: true });
			const started = now();
			const installed = spawnSync(process.execPath, [piCli, "install", pkg], {
				cwd,
				env: {
					...process.env,
					PI_CODING_AGENT_DIR: agentDir,
					PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
				},
				stdio: ["ignore", "pipe", "pipe"],
			});
			if (installed.status !== 0) throw new Error(`pi install failed: ${installed.stderr}`);
			const afterInstall = now();
			const places = { cwd, agentDir, claude: false as const };
			const results = [];
			for (const saved of installedWorkflows(places)) results.push(await verifyInstalled(saved, places));
			const done = now();
			if (results.length !== WORKFLOWS || !results.every((result) => result.ok)) {
				throw new Error(`verify: ${results.map((result) => `${result.name} ${result.summary}`).join("; ")}`);
			}
			installs.push(afterInstall - started);
			verifies.push(done - afterInstall);
			totals.push(done - started);
		}
		return [
			{
				id: "18",
				title: `Installed workflows: pi install of a local package with ${WORKFLOWS} workflows and cassettes, then verify --all`,
				unit: "ms",
				target: { max: 2000, text: "≤ 2 s" },
				values: { "pi-workflows": summarize(totals) },
				ratios: false,
				notes: [
					`pi install (pi's own process) ${Math.round(summarize(installs).median)} ms, the listing that locks the digests and ${WORKFLOWS} replays ${Math.round(summarize(verifies).median)} ms (medians)`,
				],
			},
		];
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

/** The package: ten workflows of two agent calls each, and a cassette beside each from one recorded run. */
async function writePackage(pkg: string, recordDir: string): Promise<string> {
	mkdirSync(join(pkg, "workflows"), { recursive: true });
	mkdirSync(recordDir, { recursive: true });
	writeFileSync(
		join(pkg, "package.json"),
		JSON.stringify({ name: "bench-kit", version: "1.0.0", pi: { workflows: ["./workflows"], extensions: [] } }),
	);
	const runsRoot = join(recordDir, "runs");
	for (let i = 0; i < WORKFLOWS; i++) {
		const filename = join(pkg, "workflows", `w${i}.js`);
		const source = `export const meta = { name: "w${i}", description: "bench workflow ${i}" };
const notes = await agent("List notes about part ${i}", { label: "notes" });
const line = await agent(\`Summarize in one line: \${notes}\`, { label: "summary" });
return { line };
`;
		writeFileSync(filename, source);
		const start = await startDurableRun({ cwd: recordDir, runsRoot, script: () => ({ source, filename }) });
		const tracker = createWorkflowProgressTracker();
		const result = await runWorkflowScript(source, {
			filename,
			cwd: recordDir,
			agentRunner: async (request) => ({
				id: `child-${request.label ?? "x"}`,
				type: request.agentType ?? "general-purpose",
				status: "completed",
				result: `answer to ${request.label}`,
			}),
			...start.runOptions((event) => tracker.updateFromProgressEvent(event)),
		});
		const outcome = await start.finish(result, tracker.complete(result).envelope);
		const cassette = await loadRunCassette({ cwd: recordDir, runId: outcome.runId ?? "", runsRoot });
		await writeCassette(cassettePathFor(filename), cassette);
	}
	return pkg;
}
