import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/** The run's folders, made once per process: vitest evaluates this file again for each project (`extends: true`). */
function runDirs(): { AGENT_DIR: string; CLAUDE_DIR: string; RUN_TMP: string } {
	const key = Symbol.for("pi-workflows.test-run-dirs");
	const made = (globalThis as Record<symbol, ReturnType<typeof runDirs> | undefined>)[key];
	if (made) return made;
	const dirs = {
		AGENT_DIR: mkdtempSync(join(tmpdir(), "pi-workflows-test-agent-")),
		CLAUDE_DIR: mkdtempSync(join(tmpdir(), "pi-workflows-test-claude-")),
		// The OS temp dir of the whole run (TMPDIR of the workers and all they spawn): the summary reporter fails the
		// run on any of the project's temp folders a test left in it, and other processes' folders never land there.
		RUN_TMP: mkdtempSync(join(tmpdir(), "pi-workflows-test-tmp-")),
	};
	// /tmp's mode (anyone may make a folder, only its owner removes it): tests that run a child as `nobody` need it.
	chmodSync(dirs.RUN_TMP, 0o1777);
	// The config loads in vitest's main process: remove the folders when it exits, so no run leaves them behind.
	process.once("exit", () => {
		for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
	});
	(globalThis as Record<symbol, ReturnType<typeof runDirs>>)[key] = dirs;
	return dirs;
}
const { AGENT_DIR, CLAUDE_DIR, RUN_TMP } = runDirs();

/**
 * The fast rooms: the sandbox, the runtime, progress, authoring, the run store, the report and the eval room's
 * statistics, but for the files that wait out real deadlines and worker restarts (a third of the time on their own)
 * and the report's browser test.
 */
const SLOW = [
	"test/sandbox/sandbox-lifetimes.test.ts",
	"test/sandbox/sandbox-limits.test.ts",
	"test/sandbox/sandbox-shared-workers.test.ts",
	"test/runtime/schema/schema-worker.test.ts",
	"test/report/browser.test.ts",
];
/**
 * Files that need a fresh module graph: module mocks (`vi.mock` would leak into, or miss, a shared cache) and the
 * sandbox and hostile tests, which count and fill the process's one sandbox pool. They run isolated; the rest share
 * their worker's module cache (`isolate: false`).
 */
const ISOLATED_UNIT = [
	"test/sandbox/**/*.test.ts",
	"test/progress/ui-controller.test.ts",
	"test/progress/widget-render.test.ts",
];
const ISOLATED_INTEGRATION = [
	"test/hostile/**/*.test.ts",
	"test/cli/progress-view.test.ts",
	"test/pi/commands/child-command.test.ts",
];
const UNIT = [
	"test/sandbox/**/*.test.ts",
	"test/runtime/**/*.test.ts",
	"test/progress/**/*.test.ts",
	"test/authoring/**/*.test.ts",
	"test/runs/**/*.test.ts",
	"test/report/**/*.test.ts",
	// The statistics only: the eval command's tests run real trials (pi sessions, the CLI) in the integration project.
	"test/eval/compare-arms*.test.ts",
];

export default defineConfig({
	test: {
		testTimeout: 30_000,
		hookTimeout: 30_000,
		reporters: ["default", "./test/helpers/summary-reporter.ts"],
		// Test files wait on child processes, sessions, Redis and timers more than they compute: on a 2-core machine
		// vitest's default (cores − 1) runs them one at a time. Each worker has its own agent dir (worker-dirs.ts).
		maxWorkers: 3,
		setupFiles: ["./test/helpers/worker-dirs.ts"],
		// A worker keeps its module cache from file to file: re-importing pi and the runtime for every file was 390 s
		// of the suite's CPU. Tests clean up what they start (leak checks, temp folders); the ISOLATED lists get a
		// fresh module graph per file.
		isolate: false,
		// pi's agent directory for the whole suite: run records and saved workflows never touch the real ~/.pi.
		// Claude Code's home too: `~/.claude/workflows` and `~/.claude/agents` of the machine never reach a test.
		env: {
			PI_CODING_AGENT_DIR: AGENT_DIR,
			CLAUDE_CONFIG_DIR: CLAUDE_DIR,
			TMPDIR: RUN_TMP,
			// Every process the workers start inherits it: the summary reporter ends and names those still alive at
			// the end (test/helpers/run-processes.ts). The run's temp dir is unique, so it names the run.
			PI_WORKFLOWS_TEST_RUN: RUN_TMP,
		},
		// `npm test` runs both; `npm run test:unit` only the rooms that need no pi session, browser, CLI build or
		// Redis (DEVELOPERS.md, "Tests").
		projects: [
			{ extends: true, test: { name: "unit", include: UNIT, exclude: [...SLOW, ...ISOLATED_UNIT] } },
			{ extends: true, test: { name: "unit-isolated", include: ISOLATED_UNIT, exclude: SLOW, isolate: true } },
			{
				extends: true,
				test: {
					name: "integration",
					include: ["test/**/*.test.ts"],
					exclude: [...UNIT, ...ISOLATED_INTEGRATION],
				},
			},
			{ extends: true, test: { name: "integration-isolated", include: ISOLATED_INTEGRATION, isolate: true } },
			// Last and one file at a time: these share workers between runs and kill stuck ones, and under three files'
			// CPU contention the shared-worker cases timed out (2 of 4 full runs).
			{
				extends: true,
				test: {
					name: "integration-slow",
					include: SLOW,
					isolate: true,
					maxWorkers: 1,
					sequence: { groupOrder: 1 },
				},
			},
		],
	},
});
