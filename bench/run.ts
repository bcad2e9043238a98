/**
 * `npm run bench`: runs every row against pi-workflows, the node:vm harness and plain JavaScript, prints one table
 * and writes it as JSON to bench/results/latest.json. `--quick` takes fewer samples; `--only=1,4` runs some rows.
 * docs/performance.md explains each row.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { shutdownSandboxPool } from "../src/sandbox/index.ts";
import { buildPackage } from "./lib/build.ts";
import type { BenchContext } from "./lib/context.ts";
import { type BenchReport, load, machine, type RowResult, renderTable } from "./lib/report.ts";
import { runCliStart } from "./rows/cli-start.ts";
import { runCostHistory } from "./rows/cost-history.ts";
import { runDurable } from "./rows/durable.ts";
import { runEndToEnd } from "./rows/e2e.ts";
import { runImport } from "./rows/import.ts";
import { runInstallVerify } from "./rows/install-verify.ts";
import { runMemory } from "./rows/memory.ts";
import { type OverheadData, runOverhead } from "./rows/overhead.ts";
import { runProgress } from "./rows/progress.ts";
import { runQueue } from "./rows/queue.ts";
import { runReport } from "./rows/report.ts";
import { runResponsiveness } from "./rows/responsiveness.ts";
import { runScheduling } from "./rows/scheduling.ts";
import { runSchemaCalls } from "./rows/schema-calls.ts";
import { runSchemaMemory } from "./rows/schema-memory.ts";
import { runStart } from "./rows/start.ts";
import { runStaticCheck } from "./rows/static-check.ts";
import { runWebGlobals } from "./rows/web-globals.ts";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const only = argv
	.find((arg) => arg.startsWith("--only="))
	?.slice("--only=".length)
	.split(",")
	.map(Number);
const wanted = (row: number) => !only || only.includes(row);
const root = new URL("../", import.meta.url);
const startedAt = performance.now();
const loadAtStart = load();

const rowSeconds: Record<string, number> = {};
const needsBuild = wanted(4) || wanted(5) || wanted(9) || wanted(16);
const buildStarted = performance.now();
const context: BenchContext = {
	quick,
	root,
	log: (message) => process.stderr.write(`${message}\n`),
	built: needsBuild ? buildPackage(root) : { error: "not needed" },
};
// The build is part of the bench's wall time too, though no row's.
if (needsBuild) rowSeconds.build = (performance.now() - buildStarted) / 1000;

const rows: RowResult[] = [];
/** Runs one row; a row that fails is reported in the table instead of ending the bench. */
async function row<T>(id: number, title: string, measure: () => Promise<T>, toRows: (value: T) => RowResult[]) {
	if (!wanted(id)) return undefined;
	context.log(`— row ${id}: ${title}`);
	const rowStarted = performance.now();
	try {
		const value = await measure();
		rows.push(...toRows(value));
		return value;
	} catch (error) {
		context.log(`row ${id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
		rows.push({ id: String(id), title: `${title}: failed`, unit: "", values: {}, notes: [String(error)] });
		return undefined;
	} finally {
		rowSeconds[id] = (performance.now() - rowStarted) / 1000;
	}
}

await row(
	1,
	"host responsiveness",
	() => runResponsiveness(context),
	(value) => value,
);
await row(
	2,
	"scheduling",
	() => runScheduling(context),
	(value) => value,
);
const overhead: OverheadData | undefined = await row(
	3,
	"overhead per call",
	() => runOverhead(context),
	(value) => value.rows,
);
await row(
	4,
	"start",
	() => runStart(context),
	(value) => value,
);
await row(
	5,
	"memory",
	() => runMemory(context),
	(value) => value,
);
await row(
	6,
	"progress",
	() => runProgress(context, overhead),
	(value) => value,
);
await row(
	7,
	"end to end with pi sessions",
	() => runEndToEnd(context),
	(value) => value,
);
await row(
	8,
	"durable runs",
	() => runDurable(context),
	(value) => value,
);
await row(
	9,
	"import",
	() => runImport(context),
	(value) => value,
);
await row(
	10,
	"static pass",
	() => runStaticCheck(context),
	(value) => value,
);
await row(
	11,
	"schema worker memory",
	() => runSchemaMemory(context),
	(value) => value,
);
await row(
	12,
	"queue (BullMQ on Redis)",
	() => runQueue(context),
	(value) => value,
);
await row(
	13,
	"web globals",
	() => runWebGlobals(context),
	(value) => value,
);
await row(
	14,
	"run report",
	() => runReport(context),
	(value) => value,
);
await row(
	15,
	"schema'd calls",
	() => runSchemaCalls(context),
	(value) => value,
);
await row(
	16,
	"the command line's start",
	() => runCliStart(context),
	(value) => value,
);
await row(
	17,
	"cost history",
	() => runCostHistory(context),
	(value) => value,
);
await row(
	18,
	"installed workflows: install and verify",
	() => runInstallVerify(context),
	(value) => value,
);
await shutdownSandboxPool();

const report: BenchReport = {
	date: new Date().toISOString(),
	...machine(),
	quick,
	load: { start: loadAtStart, end: load() },
	durationS: (performance.now() - startedAt) / 1000,
	rowSeconds,
	rows,
};
mkdirSync(new URL("results/", import.meta.url), { recursive: true });
writeFileSync(new URL("results/latest.json", import.meta.url), `${JSON.stringify(report, null, "\t")}\n`);
process.stdout.write(`${renderTable(report)}\n`);
