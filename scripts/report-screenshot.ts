/**
 * Regenerates docs/report.png, the README's picture of a run report: the report tests' real run (pi children on
 * the faux provider, a stall retry, a failure, a resume with one edited prompt; test/report/scenario.ts) written
 * with `writeRunReport`, opened in Debian's headless chromium, the edited call of the resume clicked so its detail
 * box shows why it ran again, and the page captured whole. No network.
 * Usage: node scripts/report-screenshot.ts [out.png]   (needs chromium on PATH)
 */
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { writeRunReport } from "../src/report/index.ts";
import { shutdownSandboxPool } from "../src/sandbox/index.ts";
import { CHROMIUM_ARGS, findBinary } from "../test/helpers/system-binary.ts";
import { runReportScenario } from "../test/report/scenario.ts";

const out = process.argv[2] ?? new URL("../docs/report.png", import.meta.url).pathname;
const executablePath = findBinary("chromium");
if (!executablePath) {
	process.stderr.write("chromium is not on PATH: install it with `sudo apt-get install chromium`\n");
	process.exit(1);
}
const scenario = await runReportScenario();
try {
	const { path } = await writeRunReport(scenario.store, scenario.record.id);
	const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
	try {
		const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
		await page.goto(pathToFileURL(path).href);
		await page.waitForFunction(
			() =>
				(globalThis as unknown as { document: { documentElement: { dataset: { ready?: string } } } }).document
					.documentElement.dataset.ready === "1",
		);
		await page.click('svg.timeline[data-session="2"] g.lane >> nth=4 >> rect.o-completed');
		await page.screenshot({ path: out, fullPage: true });
	} finally {
		await browser.close();
	}
	process.stdout.write(`${out}\n`);
} finally {
	scenario.dispose();
	await shutdownSandboxPool();
}
