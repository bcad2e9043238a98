/**
 * `--args @file` and `--answers @file` (for `run`, its dry run, and `test`): a regular file of at most 8 MiB, else
 * exit 2 naming the flag at once; a link to `/dev/zero` or a FIFO is never read.
 */
import { execFileSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";

let dirs: AgentDirs;
beforeEach(() => {
	dirs = createAgentDirs();
	dirs.write("flow.js", 'export const meta = { name: "flow", description: "d" };\nreturn 1;\n');
});
afterEach(() => dirs.dispose());

function cli(argv: string[]) {
	return cliInProcess(argv, dirs);
}

describe("@file flags read regular files only, bounded", () => {
	it("refuses a link to /dev/zero for --args, naming the flag", async () => {
		symlinkSync("/dev/zero", join(dirs.cwd, "zero.json"));
		const result = await cli(["run", "flow.js", "--dry-run", "--args", "@zero.json"]);
		expect(result.code).toBe(2);
		expect(result.stderr).toBe(
			`pi-workflows: --args @zero.json: cannot read ${join(dirs.cwd, "zero.json")}: it is a character device, not a regular file. Name a regular JSON file of at most 8 MiB\n`,
		);
	});

	it("refuses a FIFO for --answers and for test's --args at once", async () => {
		execFileSync("mkfifo", [join(dirs.cwd, "pipe.json")]);
		const answers = await cli(["run", "flow.js", "--dry-run", "--answers", "@pipe.json"]);
		expect(answers.code).toBe(2);
		expect(answers.stderr).toContain(
			`--answers @pipe.json: cannot read ${join(dirs.cwd, "pipe.json")}: it is a named pipe (FIFO), not a regular file`,
		);
		const tested = await cli(["test", "flow.js", "--args", "@pipe.json"]);
		expect(tested.code).toBe(2);
		expect(tested.stderr).toContain(
			`--args @pipe.json: cannot read ${join(dirs.cwd, "pipe.json")}: it is a named pipe`,
		);
	});

	it("refuses a file over 8 MiB", async () => {
		writeFileSync(join(dirs.cwd, "big.json"), `"${"x".repeat(8 * 1024 * 1024)}"`);
		const result = await cli(["run", "flow.js", "--dry-run", "--args", "@big.json"]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(
			`--args @big.json: cannot read ${join(dirs.cwd, "big.json")}: it is 8388610 bytes, over the limit of 8388608 bytes`,
		);
	});
});
