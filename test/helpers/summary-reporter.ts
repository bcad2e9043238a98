/**
 * Ends every test run with one plain line, "N passed, N failed[, N skipped]", which CI logs and other tools read
 * without knowing vitest's own summary format. "failed" counts every failure, not only failed tests: a file that
 * did not load, a beforeAll/afterAll that threw (a file's or a suite's), and each unhandled error of the run.
 */
import type { SerializedError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
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
		const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped` : "";
		process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed${skipped}\n`);
	}
}
