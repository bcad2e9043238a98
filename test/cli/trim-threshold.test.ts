/**
 * The bin's own process gives freed memory back: glibc keeps what worker threads freed in their arenas unless
 * `MALLOC_TRIM_THRESHOLD_` is set when the process starts (docs/performance.md, row 5c), so the commands that run
 * workflows (`run`, `resume`, `worker`) start themselves again with it, in the same process (no second process
 * waits beside the run), and only when the user has not set it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { relaunchPlan, TRIM_THRESHOLD } from "../../src/cli/own-node.ts";
import { keylessEnv, ROOT, removeAll } from "../helpers/package.ts";

const dirs: string[] = [];
afterAll(() => removeAll(dirs));

const GLIBC = { node: "22.23.3", glibc: true };

describe("which commands start again with the trim threshold", () => {
	it("the commands that run workflows do, with the threshold added to their environment", () => {
		for (const command of ["run", "resume", "worker"]) {
			expect(relaunchPlan([command, "w.js"], { HOME: "/h" }, GLIBC)).toEqual({
				node: undefined,
				env: { HOME: "/h", MALLOC_TRIM_THRESHOLD_: "131072", PI_WORKFLOWS_OWN_NODE: "trim" },
			});
		}
		expect(TRIM_THRESHOLD).toBe("131072");
	});

	it("a short command, a threshold the user set, another C library, or a process started again do not", () => {
		expect(relaunchPlan(["check", "w.js"], {}, GLIBC)).toBeUndefined();
		expect(relaunchPlan(["--help"], {}, GLIBC)).toBeUndefined();
		expect(relaunchPlan(["run", "w.js"], { MALLOC_TRIM_THRESHOLD_: "0" }, GLIBC)).toBeUndefined();
		expect(relaunchPlan(["run", "w.js"], {}, { node: "22.23.3", glibc: false })).toBeUndefined();
		expect(relaunchPlan(["run", "w.js"], { PI_WORKFLOWS_OWN_NODE: "1" }, GLIBC)).toBeUndefined();
	});

	it("on a Node too old for pi, the one start on the package's own Node carries the threshold too", () => {
		const plan = relaunchPlan(["run", "w.js"], {}, { node: "20.20.2", glibc: true }, () => "/own/node");
		expect(plan).toEqual({
			node: "/own/node",
			env: { MALLOC_TRIM_THRESHOLD_: "131072", PI_WORKFLOWS_OWN_NODE: "trim" },
		});
		// Without glibc the start on the own Node still happens, without the variable.
		expect(relaunchPlan(["run", "w.js"], {}, { node: "20.20.2", glibc: false }, () => "/own/node")).toEqual({
			node: "/own/node",
			env: { PI_WORKFLOWS_OWN_NODE: "1" },
		});
	});
});

/** The environment process `pid` started with (what glibc read), from /proc. */
function startEnvironment(pid: number): Map<string, string> {
	const text = readFileSync(`/proc/${pid}/environ`, "utf8");
	return new Map(
		text
			.split("\0")
			.filter(Boolean)
			.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
	);
}

/** Spawns the bin's `run` of a script that logs and then waits, and resolves once the log line is on stderr. */
function waitingRun(project: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
	writeFileSync(
		join(project, "wait.js"),
		'export const meta = { name: "wait", description: "waits until killed" };\nlog("waiting");\nfor (;;) await sleep(60_000);\n',
	);
	const child = spawn(process.execPath, [join(ROOT, "src", "cli", "main.ts"), "run", "wait.js"], {
		cwd: project,
		env,
		stdio: ["ignore", "ignore", "pipe"],
	});
	return new Promise((resolve, reject) => {
		let stderr = "";
		child.stderr?.on("data", (chunk) => {
			stderr += chunk;
			if (stderr.includes("› waiting")) resolve(child);
		});
		child.on("exit", (code) => reject(new Error(`the run ended (${code}) before it logged:\n${stderr}`)));
	});
}

describe.skipIf(process.platform !== "linux")("the bin's `run`", () => {
	it("runs the workflow in the process it was started as, which started with the threshold", async () => {
		const project = mkdtempSync(join(tmpdir(), "wf-trim-project-"));
		const agentDir = mkdtempSync(join(tmpdir(), "wf-trim-agent-"));
		dirs.push(project, agentDir);
		const { MALLOC_TRIM_THRESHOLD_: _, ...env } = keylessEnv(agentDir);
		const child = await waitingRun(project, env);
		try {
			const started = startEnvironment(child.pid as number);
			expect(started.get("MALLOC_TRIM_THRESHOLD_")).toBe("131072");
			// The same process, not a second one beside it: no Node child of its own.
			const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim();
			expect(children).toBe("");
		} finally {
			child.kill("SIGKILL");
		}
	}, 120_000);

	it("leaves a threshold the user set as it is", async () => {
		const project = mkdtempSync(join(tmpdir(), "wf-trim-project-"));
		const agentDir = mkdtempSync(join(tmpdir(), "wf-trim-agent-"));
		dirs.push(project, agentDir);
		const child = await waitingRun(project, { ...keylessEnv(agentDir), MALLOC_TRIM_THRESHOLD_: "262144" });
		try {
			expect(startEnvironment(child.pid as number).get("MALLOC_TRIM_THRESHOLD_")).toBe("262144");
		} finally {
			child.kill("SIGKILL");
		}
	}, 120_000);
});
