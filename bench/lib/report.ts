/**
 * Rows of results and the one table `npm run bench` prints: median (min–max) per engine, ratios against plain
 * JavaScript, the target and whether pi-workflows meets it. The same data is written as JSON.
 */
import { cpus, loadavg } from "node:os";
import { ENGINES, type EngineName } from "./engines.ts";
import type { Summary } from "./stats.ts";

/** A target for pi-workflows' median. */
export interface Target {
	/** The median must be at most this. */
	max: number;
	/** As printed: "≤ 20 ms". */
	text: string;
}

/** One line of the table. */
export interface RowResult {
	/** "1", "2a"… */
	id: string;
	title: string;
	unit: string;
	target?: Target;
	values: Partial<Record<EngineName, Summary>>;
	/** Ratios against plain make sense for this row. Default: true. */
	ratios?: boolean;
	notes?: string[];
}

/** Everything one `npm run bench` measured. */
export interface BenchReport {
	date: string;
	node: string;
	cores: number;
	cpu: string;
	platform: string;
	quick: boolean;
	/** 1-, 5- and 15-minute load averages when the bench started and ended: a busy machine skews every row. */
	load: { start: number[]; end: number[] };
	durationS: number;
	/** Seconds each row group took ("1": 12.3): where the bench's own wall time goes. */
	rowSeconds: Record<string, number>;
	rows: RowResult[];
}

/** The machine facts the report starts with. */
export function machine(): Pick<BenchReport, "node" | "cores" | "cpu" | "platform"> {
	const list = cpus();
	return {
		node: process.version,
		cores: list.length,
		cpu: list[0]?.model ?? "unknown",
		platform: `${process.platform} ${process.arch}`,
	};
}

/** The load averages now, rounded. */
export function load(): number[] {
	return loadavg().map((value) => Math.round(value * 100) / 100);
}

/** Whether pi-workflows meets the row's target: true, false, or undefined when there is none or no value. */
export function meets(row: RowResult): boolean | undefined {
	const value = row.values["pi-workflows"];
	if (!row.target || !value) return undefined;
	return value.median <= row.target.max;
}

/** The report as one Markdown table with a header line; readable in a terminal and pasted into the docs as is. */
export function renderTable(report: BenchReport): string {
	const head = `Node ${report.node} · ${report.cores} cores (${report.cpu}) · ${report.platform} · load ${report.load.start.join(" ")} → ${report.load.end.join(" ")} · ${report.quick ? "quick" : "full"} run, ${Math.round(report.durationS)} s · ${report.date}`;
	const columns = ["#", "measure", "unit", "target", ...ENGINES, "pi-workflows ÷ plain", "node:vm ÷ plain", "met"];
	const lines = [head, "", `| ${columns.join(" | ")} |`, `|${columns.map(() => "---").join("|")}|`];
	for (const row of report.rows) {
		const cells = [
			row.id,
			row.title,
			row.unit,
			row.target?.text ?? "",
			...ENGINES.map((engine) => formatSummary(row.values[engine])),
			ratio(row, "pi-workflows"),
			ratio(row, "node:vm"),
			metText(meets(row)),
		];
		lines.push(`| ${cells.join(" | ")} |`);
	}
	const notes = report.rows.flatMap((row) => (row.notes ?? []).map((note) => `- ${row.id}: ${note}`));
	if (notes.length > 0) lines.push("", ...notes);
	const spent = Object.entries(report.rowSeconds).map(([id, seconds]) => `${id}: ${Math.round(seconds)} s`);
	if (spent.length > 0) lines.push("", `Time per row: ${spent.join(", ")}`);
	return lines.join("\n");
}

/** "12.3 (11.0–14.2)": the median and the spread of the samples. */
export function formatSummary(summary: Summary | undefined): string {
	if (!summary) return "—";
	if (summary.n === 1) return formatNumber(summary.median);
	return `${formatNumber(summary.median)} (${formatNumber(summary.min)}–${formatNumber(summary.max)})`;
}

/** Three significant digits, no exponent. */
export function formatNumber(value: number): string {
	const magnitude = Math.abs(value);
	if (magnitude >= 100) return String(Math.round(value));
	if (magnitude >= 10) return value.toFixed(1);
	if (magnitude >= 1) return value.toFixed(2);
	if (magnitude === 0) return "0";
	return value.toPrecision(2);
}

function ratio(row: RowResult, engine: EngineName): string {
	const value = row.values[engine];
	const plain = row.values.plain;
	if (row.ratios === false || !value || !plain || plain.median === 0) return "—";
	return `${formatNumber(value.median / plain.median)}×`;
}

function metText(met: boolean | undefined): string {
	if (met === undefined) return "";
	return met ? "yes" : "**no**";
}
