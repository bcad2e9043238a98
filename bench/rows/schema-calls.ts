/**
 * Row 15, what a schema adds to an `agent()` call, each against the same calls without it in the same run (the
 * variants interleaved, so a busy moment falls on both): (a–c) calls in sequence that all use one small schema,
 * which after the first are checked on the host without a round trip to the schema worker; (d–f) calls that each
 * compile a schema of 20 patterns of 900 characters (issue 19's shape, row 11) and check one answer, against the
 * same schemas with the patterns left out.
 */

import type { WorkflowAgentRunner } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { schemaWorkerStats } from "../../src/runtime/schema/schema-worker-host.ts";
import { HEADER } from "../../test/helpers/fake-runner.ts";
import { answerPatternCall, PATTERN_SCHEMA_SOURCE } from "../../test/helpers/pattern-schemas.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import type { RowResult } from "../lib/report.ts";
import { now, summarize } from "../lib/stats.ts";

const SMALL_SCHEMA = `{ type: "object", properties: { id: { type: "string", pattern: "^[a-z]+-[0-9]+$" }, score: { type: "integer", minimum: 0 }, tags: { type: "array", items: { type: "string" }, maxItems: 5 } }, required: ["id", "score"] }`;
const SMALL_ANSWER = { id: "item-7", score: 3, tags: ["a", "b"] };

/** An instant runner answering every call with `answer(request)` as structured output. */
function runner(answer: (request: { prompt: string }) => unknown): WorkflowAgentRunner {
	return async (request) => {
		const structured = answer(request);
		return {
			id: "bench",
			type: request.agentType,
			status: "completed",
			result: JSON.stringify(structured),
			structuredOutput: structured,
		};
	};
}

/** Wall time of one run of `script` with `calls` agent calls, per call, in µs. */
async function perCall(script: string, calls: number, agentRunner: WorkflowAgentRunner): Promise<number> {
	const started = now();
	const result = await runWorkflowScript(`${HEADER}${script}`, { agentRunner, limits: { maxAgentCalls: calls } });
	const elapsed = now() - started;
	if (result.status !== "completed") throw new Error(`row 15: ${result.status}: ${result.error?.message ?? ""}`);
	return (elapsed * 1000) / calls;
}

function sequence(calls: number, withSchema: boolean): string {
	const options = withSchema ? `{ label: "c" + i, schema: ${SMALL_SCHEMA} }` : `{ label: "c" + i }`;
	return `for (let i = 0; i < ${calls}; i++) await agent("call " + i, ${options});\nreturn 1;`;
}

/** `count` calls from `seed` on, each with a pattern-heavy schema of its own, or that schema without its patterns. */
function compiles(count: number, seed: number, withPatterns: boolean): string {
	const strip = withPatterns ? "" : "for (const p of Object.values(s.properties)) delete p.pattern;";
	return `${PATTERN_SCHEMA_SOURCE}
for (let i = ${seed}; i < ${seed + count}; i++) {
	const s = patternSchema(i);
	${strip}
	await agent("call " + i, { schema: s });
}
return 1;`;
}

export async function runSchemaCalls(context: BenchContext): Promise<RowResult[]> {
	const rounds = samples(context, 5, 2);
	const calls = context.quick ? 300 : 1000;
	const schemas = context.quick ? 5 : 10;
	const small = runner(() => SMALL_ANSWER);
	const patterned = runner(answerPatternCall);
	const plain: number[] = [];
	const schemad: number[] = [];
	const bare: number[] = [];
	const heavy: number[] = [];
	let hostChecks = 0;
	// A first round of each, not counted: the sandbox pool, the schema worker and the JIT warm up.
	for (let round = -1; round < rounds; round++) {
		const a = await perCall(sequence(calls, false), calls, small);
		const hostBefore = schemaWorkerStats().hostChecks;
		const b = await perCall(sequence(calls, true), calls, small);
		if (round >= 0) hostChecks += schemaWorkerStats().hostChecks - hostBefore;
		// Seeds no earlier round used, so every schema is compiled afresh.
		const seed = 100_000 + (round + 1) * schemas;
		const c = await perCall(compiles(schemas, seed, false), schemas, patterned);
		const d = await perCall(compiles(schemas, seed, true), schemas, patterned);
		if (round < 0) continue;
		plain.push(a);
		schemad.push(b);
		bare.push(c / 1000);
		heavy.push(d / 1000);
	}
	const ratio = (over: number[], under: number[]) => over.map((value, index) => value / under[index]);
	const value = (
		id: string,
		title: string,
		unit: string,
		samples: number[],
		target?: RowResult["target"],
	): RowResult => ({
		id,
		title,
		unit,
		...(target ? { target } : {}),
		values: { "pi-workflows": summarize(samples) },
		ratios: false,
	});
	const note = `${hostChecks} of ${rounds * calls} checks of the small schema ran on the host`;
	context.log(`row 15: ${note}`);
	return [
		{
			...value(
				"15a",
				`Schema'd call: ${calls} \`agent()\` calls in sequence, one small schema`,
				"µs/call",
				schemad,
				{
					max: 300,
					text: "≤ 300 µs",
				},
			),
			notes: [note],
		},
		value("15b", "Schema'd call: the same calls without the schema (baseline)", "µs/call", plain),
		value("15c", "Schema'd call ÷ the same call without it", "×", ratio(schemad, plain)),
		value("15d", "Compile and check of a schema with 20 patterns of 900 characters, per schema", "ms", heavy, {
			max: 20,
			text: "≤ 20 ms",
		}),
		value("15e", "The same schemas with the patterns left out (baseline), per schema", "ms", bare),
		value("15f", "20-pattern schema ÷ the same schema without patterns", "×", ratio(heavy, bare)),
	];
}
