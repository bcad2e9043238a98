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
		env: { PI_CODING_AGENT_DIR: mkdtempSync(join(tmpdir(), "pi-workflows-test-agent-")) },
	},
});
