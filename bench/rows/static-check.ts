/**
 * Row 10, the static pass: on a script of about 500 KB, what `checkWorkflowScript`'s analysis adds to the parse a run
 * already pays (`parseWorkflowSource`: acorn, the header, the body). The tree is shared, so the pass only walks it.
 */
import { analyzeProgram } from "../../src/authoring/index.ts";
import { parseWorkflowProgram, parseWorkflowSource } from "../../src/runtime/meta/read.ts";
import { CALL_RULES } from "../../src/runtime/run/script-check.ts";
import type { BenchContext } from "../lib/context.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { now, summarize } from "../lib/stats.ts";

/** Under the default 512 KiB limit, so a run would take it. */
const TARGET_BYTES = 500 * 1024;
/** Passes not counted while V8 compiles the parser and the walk (one with `--quick`). */
const WARM_UP = 3;

/** A long script of ordinary workflow code: helpers, loops, destructuring, templates, literal options and schemas. */
export function largeScript(bytes: number): string {
	const parts = ['export const meta = { name: "large", description: "A long script for the static-pass bench" };\n'];
	let size = parts[0]?.length ?? 0;
	for (let i = 0; size < bytes - 2000; i++) {
		const block = `
const SHAPE_${i} = { type: "object", properties: { ok: { type: "boolean" }, notes${i}: { type: "array", items: { type: "string" } } }, required: ["ok"] };
async function review${i}(files, { label = "r${i}", retries = 1 } = {}) {
	const results = [];
	for (const [index, file] of files.entries()) {
		try {
			const answer = await agent(\`Review \${file} (\${index}) for \${label}\`, { label, retries, schema: SHAPE_${i} });
			if (answer && answer.ok) results.push({ file, notes: answer.notes${i} ?? [] });
		} catch (error) {
			log(\`failed: \${error.message}\`, { file });
		}
	}
	const rows = await parallel(results.map(({ file }) => () => agent("Summarize " + file, { agent: "general-purpose" })));
	return rows.filter(Boolean).map((text, n) => \`\${n}: \${text}\`).join("\\n");
}
`;
		parts.push(block);
		size += block.length;
	}
	parts.push("\nreturn await review0(args?.files ?? []);\n");
	return parts.join("");
}

export async function runStaticCheck(context: BenchContext): Promise<RowResult[]> {
	const source = largeScript(TARGET_BYTES);
	const samples = context.quick ? 3 : 9;
	const warmUp = context.quick ? 1 : WARM_UP;
	const parses: number[] = [];
	const passes: number[] = [];
	let findings = 0;
	for (let index = 0; index < warmUp + samples; index++) {
		// What a run paid before the static pass existed: the whole of parseWorkflowSource.
		let started = now();
		parseWorkflowSource(source);
		const parseMs = now() - started;
		// What the pass adds: a walk over the tree the run's parse made.
		const { program } = parseWorkflowProgram(source);
		started = now();
		findings = analyzeProgram(program, source, { rules: CALL_RULES, params: ["meta"] }).length;
		const passMs = now() - started;
		if (index < warmUp) continue;
		parses.push(parseMs);
		passes.push(passMs);
	}
	if (findings !== 0) throw new Error(`the bench script should be clean, found ${findings} problems`);
	const parse = summarize(parses);
	const pass = summarize(passes);
	const share = pass.median / parse.median;
	context.log(`row 10: parse ${formatNumber(parse.median)} ms, static pass ${formatNumber(pass.median)} ms`);
	return [
		{
			id: "10a",
			title: `Static pass: parse a ${Math.round(source.length / 1024)} KB script (parseWorkflowSource, what a run already pays)`,
			unit: "ms",
			values: { "pi-workflows": parse },
			ratios: false,
		},
		{
			id: "10b",
			title: "Static pass: the analysis on the same tree (scope, undeclared names, unawaited promises, literal options)",
			unit: "ms",
			target: { max: parse.median / 2, text: "≤ ½ of 10a" },
			values: { "pi-workflows": pass },
			ratios: false,
			notes: [`${formatNumber(share * 100)}% of the parse; the tree is shared, so the script is parsed once`],
		},
	];
}
