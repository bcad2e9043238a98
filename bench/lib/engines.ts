/**
 * The three engines every row compares: pi-workflows (QuickJS in a worker), the node:vm harness (the peers'
 * design), and plain JavaScript over p-queue (the floor). A workload is the same workflow for all three.
 */

import type {
	JsonValue,
	WorkflowAgentRunner,
	WorkflowJournal,
	WorkflowProgressEvent,
} from "../../src/runtime/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { type PlainWorkflow, runPlainWorkflow } from "../harness/plain.ts";
import { runVmWorkflow } from "../harness/vm-runtime.ts";

/** The engines, in table order. */
export const ENGINES = ["pi-workflows", "node:vm", "plain"] as const;
export type EngineName = (typeof ENGINES)[number];

/** One workflow: as a script (pi-workflows, node:vm) and as a plain function. */
export interface Workload {
	name: string;
	source: string;
	plain: PlainWorkflow;
}

/** How a workload is run. */
export interface EngineRunOptions {
	runner: WorkflowAgentRunner;
	/** Agents running at once. Default: 8. */
	concurrency?: number;
	args?: JsonValue;
	onProgress?: (event: WorkflowProgressEvent) => void;
	/** pi-workflows' cap on agent calls. Default: 20,000 (the bench makes more calls than the default allows). */
	maxAgentCalls?: number;
	/** pi-workflows' journal: calls it holds replay, the others are recorded. Default: none (the others have none). */
	journal?: WorkflowJournal;
}

/** Runs `workload` on `engine`; resolves to its value, throws when pi-workflows reports a failed run. */
export async function runOn(engine: EngineName, workload: Workload, options: EngineRunOptions): Promise<unknown> {
	const concurrency = options.concurrency ?? 8;
	const base = { runner: options.runner, concurrency, args: options.args, onProgress: options.onProgress };
	if (engine === "node:vm") return runVmWorkflow(workload.source, base);
	if (engine === "plain") return runPlainWorkflow(workload.plain, base);
	const result = await runWorkflowScript(workload.source, {
		agentRunner: options.runner,
		concurrency,
		...(options.args !== undefined ? { args: options.args } : {}),
		...(options.onProgress ? { onProgress: options.onProgress } : {}),
		budget: { maxAgentCalls: options.maxAgentCalls ?? 20_000 },
		...(options.journal ? { journal: options.journal } : {}),
		filename: `${workload.name}.js`,
	});
	if (result.status !== "completed") {
		throw new Error(`${workload.name} on pi-workflows ended ${result.status}: ${result.error?.message}`);
	}
	return result.value;
}
