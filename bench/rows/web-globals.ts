/**
 * Row 12, the web globals (`URL`, `TextEncoder`, `setTimeout`, …): what they add to a run. Their code is a lazy
 * guest module, fetched and compiled on a script's first read, so a run that reads none should cost what a run cost
 * before they existed (the prelude alone); the first read of each module is what a script that uses one pays. Every
 * sample is a sandbox run of its own, the variants interleaved, so a busy moment falls on all of them alike.
 */
import { EAGER_FILES, guestPrelude, LAZY_MODULES, lazyModuleSource } from "../../src/runtime/run/globals.ts";
import { createSandbox, type HostFunction } from "../../src/sandbox/index.ts";
import type { BenchContext } from "../lib/context.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { now, summarize } from "../lib/stats.ts";

const WARM_UP = 5;
const DATA = { maxItems: 10, fanOutAbove: 0, cwd: "/", hasArgs: false, args: null };

interface Variant {
	label: string;
	prelude: string;
	body: string;
}

export async function runWebGlobals(context: BenchContext): Promise<RowResult[]> {
	// `--quick`: 10 interleaved samples a variant, enough for an indication (the fastest samples say most here).
	const samples = context.quick ? 10 : 60;
	const current = guestPrelude();
	const variants: Variant[] = [
		{ label: "before", prelude: guestPrelude(["prelude.js"], []), body: "(async () => 1)()" },
		{ label: "unread", prelude: current, body: "(async () => 1)()" },
		{ label: "URL", prelude: current, body: '(async () => new URL("https://a.b/c?d=1").hostname)()' },
		{ label: "text", prelude: current, body: '(async () => new TextEncoder().encode("é").length)()' },
		{ label: "timers", prelude: current, body: "(async () => typeof setTimeout)()" },
		{
			label: "eager",
			prelude: guestPrelude([...LAZY_MODULES.flatMap((m) => m.files), ...EAGER_FILES], []),
			body: "(async () => 1)()",
		},
	];
	const hostFunctions: Record<string, HostFunction> = {
		guestModule: { kind: "sync", params: ["index"], fn: ([index]) => lazyModuleSource(index as number) },
	};
	const times = new Map<string, number[]>(variants.map((variant) => [variant.label, []]));
	const sandbox = createSandbox();
	try {
		for (let i = 0; i < WARM_UP + samples; i++) {
			for (const variant of variants) {
				const started = now();
				const outcome = await sandbox.run({ ...variant, filename: "bench.js", data: DATA, hostFunctions });
				const ms = now() - started;
				if (!outcome.ok) throw new Error(`row 12 ${variant.label}: ${outcome.error.message}`);
				if (i >= WARM_UP) times.get(variant.label)?.push(ms);
			}
		}
	} finally {
		await sandbox.dispose();
	}
	const of = (label: string) => summarize(times.get(label) ?? []);
	const extra = (label: string) =>
		`${formatNumber(of(label).median - of("unread").median)} ms (fastest ${formatNumber(of(label).min - of("unread").min)} ms)`;
	const bytes = (files: readonly string[]) => guestPrelude(files, []).length;
	context.log(
		`row 12: before ${formatNumber(of("before").median)} ms, unread ${formatNumber(of("unread").median)} ms`,
	);
	const row = (id: string, title: string, label: string): RowResult => ({
		id,
		title,
		unit: "ms",
		values: { "pi-workflows": of(label) },
		ratios: false,
	});
	return [
		{
			...row("13a", "Web globals: a trivial sandbox run, the prelude as before the web globals", "before"),
			notes: [
				`the prelude is ${bytes(["prelude.js"])} characters before, ${current.length} now (the lazy modules' ${LAZY_MODULES.map((m) => lazyModuleSource(LAZY_MODULES.indexOf(m)).length).join(" + ")} characters stay on the host until read)`,
			],
		},
		row("13b", "Web globals: the same run with them, none read", "unread"),
		{
			...row(
				"13c",
				"Web globals: a run whose script reads `URL` (fetches and compiles url-parts, url-search, url)",
				"URL",
			),
			notes: [
				`first reads add, over a run that reads none: URL ${extra("URL")}, TextEncoder & co. ${extra("text")}, setTimeout & co. ${extra("timers")}`,
			],
		},
		row("13d", "Web globals: a run with every web global compiled before the script (no laziness)", "eager"),
	];
}
