import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

const AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-workflows-test-agent-"));
const CLAUDE_DIR = mkdtempSync(join(tmpdir(), "pi-workflows-test-claude-"));
// The OS temp dir of the whole run (TMPDIR of the workers and all they spawn): the summary reporter fails the run on
// any of the project's temp folders a test left in it, and other processes' folders never land there.
const RUN_TMP = mkdtempSync(join(tmpdir(), "pi-workflows-test-tmp-"));
// The config loads in vitest's main process: remove the folders when it exits, so no run leaves them behind.
process.once("exit", () => {
	for (const dir of [AGENT_DIR, CLAUDE_DIR, RUN_TMP]) rmSync(dir, { recursive: true, force: true });
});

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		reporters: ["default", "./test/helpers/summary-reporter.ts"],
		// pi's agent directory for the whole suite: run records and saved workflows never touch the real ~/.pi.
		// Claude Code's home too: `~/.claude/workflows` and `~/.claude/agents` of the machine never reach a test.
		env: {
			PI_CODING_AGENT_DIR: AGENT_DIR,
			CLAUDE_CONFIG_DIR: CLAUDE_DIR,
			TMPDIR: RUN_TMP,
		},
	},
});
