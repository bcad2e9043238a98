/**
 * The closing line counts every failure: vitest runs each fixture of test/fixtures/summary-reporter/ (a failing
 * afterAll, a failing beforeAll, an unhandled rejection, a file that does not load) through the suite's reporter,
 * and the line says failed while vitest exits non-zero.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childEnv, ROOT } from "./helpers/package.ts";
import { runCommand } from "./helpers/spawn.ts";

const FIXTURES = join(ROOT, "test", "fixtures", "summary-reporter");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");

async function runFixture(name: string) {
	const result = await runCommand(
		process.execPath,
		[VITEST, "run", "--config", join(FIXTURES, "vitest.config.ts"), `${name}.fixture.ts`],
		{ cwd: FIXTURES, env: childEnv({ CI: "true" }), timeoutMs: 60_000 },
	);
	const closing = result.stdout.trim().split("\n").at(-1) ?? "";
	return { code: result.code, closing, output: `${result.stdout}${result.stderr}` };
}

describe("the summary reporter's closing line", () => {
	it.each([
		["after-all", "1 passed, 1 failed"],
		["before-all", "1 passed, 1 failed, 1 skipped"],
		["unhandled", "1 passed, 1 failed"],
		["load", "0 passed, 1 failed"],
	])("%s: %s, and a non-zero exit", { timeout: 90_000 }, async (name, line) => {
		const run = await runFixture(name);
		expect(run.closing, run.output).toBe(line);
		expect(run.code, run.output).not.toBe(0);
	});
});
