import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		reporters: ["default", "./test/helpers/summary-reporter.ts"],
		// pi's agent directory for the whole suite: run records and saved workflows never touch the real ~/.pi.
		// Claude Code's home too: `~/.claude/workflows` and `~/.claude/agents` of the machine never reach a test.
		env: {
			PI_CODING_AGENT_DIR: mkdtempSync(join(tmpdir(), "pi-workflows-test-agent-")),
			CLAUDE_CONFIG_DIR: mkdtempSync(join(tmpdir(), "pi-workflows-test-claude-")),
		},
	},
});
