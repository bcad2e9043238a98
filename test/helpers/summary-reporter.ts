/**
 * Ends every test run with one plain line, "N passed, N failed[, N skipped]", which CI logs and other tools read
 * without knowing vitest's own summary format. "failed" counts every failure, not only failed tests: a file that
 * did not load, a beforeAll/afterAll that threw (a file's or a suite's), each unhandled error of the run, each
 * temp folder of the project's that a test left in the run's TMPDIR, and each process a test started and left
 * running (both named above the line; the processes are ended; the run then fails). The process check is here rather
 * than in a globalSetup teardown because vitest runs teardowns after this line is written.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { SerializedError } from "vitest";
import type { Reporter, TestModule, Vitest } from "vitest/node";
import { childPids, RUN_MARKER, type RunProcess, reap, runProcesses } from "./run-processes.ts";

/** How the tests, their helpers and the code under test name their temp folders (`mkdtemp` prefixes). */
const PROJECT_TEMP = /^(pi-workflows|pwf?|wfr?)-/;

export default class SummaryReporter implements Reporter {
	/** The run's own TMPDIR (vitest.config.ts sets it for the workers), when the config gives one. */
	private runTmp: string | undefined;
	/** The marker in the environment of every process the run's workers start, when the config gives one. */
	private runMarker: string | undefined;

	onInit(vitest: Vitest): void {
		this.runTmp = vitest.config.env?.TMPDIR;
		this.runMarker = vitest.config.env?.[RUN_MARKER];
	}

	onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
		const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
		for (const module of testModules) {
			let failedTests = 0;
			for (const test of module.children.allTests()) {
				const state = test.result().state;
				if (state === "passed") counts.passed++;
				else if (state === "failed") failedTests++;
				else counts.skipped++;
			}
			// Errors outside tests: the file's load and its hooks, and each suite's hooks.
			let outside = module.errors().length;
			for (const suite of module.children.allSuites()) outside += suite.errors().length;
			// A failed file with no failing test and no error to show still failed (vitest says so): count it once.
			if (module.state() === "failed" && failedTests === 0 && outside === 0) outside = 1;
			counts.failed += failedTests + outside;
		}
		const left = this.leftTempFolders();
		if (left.length > 0) {
			process.stdout.write(
				`\nTemp folders left behind by tests (remove them in the test's afterEach/afterAll):\n${left.map((dir) => `  ${dir}\n`).join("")}`,
			);
			counts.failed += left.length;
			process.exitCode = 1;
		}
		const running = this.leftProcesses();
		if (running.length > 0) {
			reap(running);
			process.stdout.write(
				`\nProcesses left running by tests (ended now; end them in the test's afterEach/afterAll):\n${running.map(({ pid, command }) => `  pid ${pid}: ${command}\n`).join("")}`,
			);
			counts.failed += running.length;
			process.exitCode = 1;
		}
		const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped` : "";
		process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed${skipped}\n`);
	}

	/** The run's processes still alive, but for vitest's own workers (its children here), which it ends itself. */
	private leftProcesses(): RunProcess[] {
		if (!this.runMarker) return [];
		return runProcesses(this.runMarker, new Set([process.pid, ...childPids(process.pid)]));
	}

	private leftTempFolders(): string[] {
		const dir = this.runTmp;
		if (!dir || !existsSync(dir)) return [];
		return readdirSync(dir)
			.filter((name) => PROJECT_TEMP.test(name))
			.map((name) => join(dir, name));
	}
}
