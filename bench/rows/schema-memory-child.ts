/**
 * One sample of row 11, in a fresh process started with --expose-gc (so the schema worker can collect before it
 * reports): one run of many `agent()` calls in sequence, each with a pattern-heavy schema of its own, then a few
 * more runs of fresh schemas. The runner reads the schema worker's heap at checkpoints, after the call's schema
 * compiled. Prints the checkpoints (MiB), and how the first run ended, as one JSON line.
 *
 * Usage: node --expose-gc bench/rows/schema-memory-child.ts <schemas in the first run> <later runs> <schemas each>
 */

import type { WorkflowAgentRunner } from "../../src/runtime/core/types.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { schemaWorker, shutdownSchemaWorker } from "../../src/runtime/schema/schema-worker-host.ts";
import { shutdownSandboxPool } from "../../src/sandbox/index.ts";
import { HEADER } from "../../test/helpers/fake-runner.ts";
import { answerPatternCall, patternRunScript } from "../../test/helpers/pattern-schemas.ts";

const [first = 200, laterRuns = 3, perRun = 50] = process.argv.slice(2).map(Number);
if (!(globalThis as { gc?: () => void }).gc) throw new Error("Run with --expose-gc");

/** A checkpoint: after `schemas` distinct schemas in all, the worker's heap in MiB. */
interface Checkpoint {
	schemas: number;
	heapMb: number;
}

const MIB = 1024 * 1024;
const checkpoints: Checkpoint[] = [];
let compiled = 0;
let limitMb = 0;
/** Measures the heap at every 10th distinct schema; the runner is called once the call's schema compiled. */
const runner: WorkflowAgentRunner = async (request) => {
	compiled++;
	if (compiled % 10 === 0) {
		const heap = await schemaWorker.heap();
		limitMb = heap.limit / MIB;
		checkpoints.push({ schemas: compiled, heapMb: heap.used / MIB });
	}
	const answer = answerPatternCall(request);
	return {
		id: `c${compiled}`,
		type: request.agentType,
		status: "completed",
		result: JSON.stringify(answer.structured),
		structuredOutput: answer.structured,
	};
};

const started = performance.now();
const run = async (count: number, seed: number) => {
	const result = await runWorkflowScript(`${HEADER}${patternRunScript(count, seed)}`, {
		agentRunner: runner,
		limits: { maxAgentCalls: count },
	});
	return result.status === "completed" ? "completed" : `${result.status}: ${result.error?.message ?? ""}`;
};
const firstRun = await run(first, 0);
const afterRuns: number[] = [];
for (let index = 0; index < laterRuns && firstRun === "completed"; index++) {
	await run(perRun, first + index * perRun);
	afterRuns.push((await schemaWorker.heap()).used / MIB);
}
const msPerSchema = (performance.now() - started) / compiled;
await shutdownSchemaWorker();
await shutdownSandboxPool();
process.stdout.write(`${JSON.stringify({ firstRun, checkpoints, afterRuns, limitMb, msPerSchema })}\n`);
