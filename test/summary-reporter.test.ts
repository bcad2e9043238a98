/**
 * The closing line counts every failure: vitest runs each fixture of test/fixtures/summary-reporter/ (a failing
 * afterAll, a failing beforeAll, an unhandled rejection, a file that does not load, a temp folder left in the run's
 * TMPDIR) through the suite's reporter, and the line says failed while vitest exits non-zero.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { childEnv, ROOT } from "./helpers/package.ts";
import { runCommand } from "./helpers/spawn.ts";

const FIXTURES = join(ROOT, "test", "fixtures", "summary-reporter");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function runFixture(name: string, runTmp?: string) {
	const result = await runCommand(
		process.execPath,
		[VITEST, "run", "--config", join(FIXTURES, "vitest.config.ts"), `${name}.fixture.ts`],
		{
			cwd: FIXTURES,
			env: childEnv(runTmp ? { CI: "true", FIXTURE_TMP: runTmp } : { CI: "true" }),
			timeoutMs: 60_000,
		},
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

	it("a temp folder a test left in the run's TMPDIR: named, counted as failed, a non-zero exit", {
		timeout: 90_000,
	}, async () => {
		const runTmp = mkdtempSync(join(tmpdir(), "pi-workflows-reporter-tmp-"));
		dirs.push(runTmp);
		const run = await runFixture("leak", runTmp);
		const [left] = readdirSync(runTmp).filter((name) => name.startsWith("pi-workflows-leak-"));
		expect(left, run.output).toBeDefined();
		expect(run.output).toContain(join(runTmp, left ?? ""));
		expect(run.closing, run.output).toBe("1 passed, 1 failed");
		expect(run.code, run.output).not.toBe(0);
	});
});
