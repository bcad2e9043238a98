/**
 * The closing line counts every failure: vitest runs each fixture of test/fixtures/summary-reporter/ (a failing
 * afterAll, a failing beforeAll, an unhandled rejection, a file that does not load, a temp folder left in the run's
 * TMPDIR, a process left running) through the suite's reporter, and the line says failed while vitest exits non-zero.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { childEnv, ROOT } from "./helpers/package.ts";
import { alive, reap, runProcesses } from "./helpers/run-processes.ts";
import { runCommand } from "./helpers/spawn.ts";

const FIXTURES = join(ROOT, "test", "fixtures", "summary-reporter");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");

const dirs: string[] = [];
const markers: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	// Whatever a fixture run left running (the reporter ends them; this is for when it did not).
	for (const marker of markers.splice(0)) reap(runProcesses(marker));
});

async function runFixture(name: string, { runTmp, run }: { runTmp?: string; run?: string } = {}) {
	const result = await runCommand(
		process.execPath,
		[VITEST, "run", "--config", join(FIXTURES, "vitest.config.ts"), `${name}.fixture.ts`],
		{
			cwd: FIXTURES,
			env: childEnv({
				CI: "true",
				...(runTmp ? { FIXTURE_TMP: runTmp } : {}),
				...(run ? { FIXTURE_RUN: run } : {}),
			}),
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
		const run = await runFixture("leak", { runTmp });
		const [left] = readdirSync(runTmp).filter((name) => name.startsWith("pi-workflows-leak-"));
		expect(left, run.output).toBeDefined();
		expect(run.output).toContain(join(runTmp, left ?? ""));
		expect(run.closing, run.output).toBe("1 passed, 1 failed");
		expect(run.code, run.output).not.toBe(0);
	});

	it("a process a test left running: named, ended, counted as failed, a non-zero exit", {
		timeout: 90_000,
	}, async () => {
		const marker = `reporter-${randomUUID()}`;
		markers.push(marker);
		const run = await runFixture("left-running", { run: marker });
		const pid = Number(run.output.match(/^ {2}pid (\d+): .*setInterval/m)?.[1]);
		expect(run.output).toContain(
			"Processes left running by tests (ended now; end them in the test's afterEach/afterAll):",
		);
		expect(pid, run.output).toBeGreaterThan(0);
		expect(alive(pid)).toBe(false);
		expect(runProcesses(marker)).toEqual([]);
		expect(run.closing, run.output).toBe("1 passed, 1 failed");
		expect(run.code, run.output).not.toBe(0);
	});
});
