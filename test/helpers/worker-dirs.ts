/**
 * Each vitest worker gets its own pi agent directory and Claude Code home under the suite's (vitest.config.ts):
 * test files run several at a time, and a file that lists the run records or saved workflows of "the" agent
 * directory must not see another file's.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const worker = process.env.VITEST_POOL_ID ?? "0";
for (const name of ["PI_CODING_AGENT_DIR", "CLAUDE_CONFIG_DIR"] as const) {
	const root = process.env[name];
	if (!root || root.includes(`${join("/", "worker-")}`)) continue;
	const own = join(root, `worker-${worker}`);
	mkdirSync(own, { recursive: true });
	process.env[name] = own;
}
