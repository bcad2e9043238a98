/**
 * Ends every test run with one plain line, "N passed, N failed[, N skipped]", which CI logs and other tools read
 * without knowing vitest's own summary format.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
	onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
		const counts = { passed: 0, failed: 0, skipped: 0 };
		for (const module of testModules) {
			if (module.state() === "failed" && [...module.children.allTests()].length === 0) counts.failed++;
			for (const test of module.children.allTests()) {
				const state = test.result().state;
				if (state === "passed") counts.passed++;
				else if (state === "failed") counts.failed++;
				else counts.skipped++;
			}
		}
		const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped` : "";
		process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed${skipped}\n`);
	}
}
