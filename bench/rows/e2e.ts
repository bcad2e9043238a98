/**
 * Row 7, end to end: 50 agents through real pi AgentSessions (createPiAgentRunner) answered at once by the faux
 * provider, concurrency 8. With instant replies, all of the time is outside the model: session set-up, the
 * agent loop, events, disposal, and the engine around them.
 */

import { loadAgentTypes } from "../../src/agents/agent-types.ts";
import { createPiAgentRunner } from "../../src/children/agent-runner.ts";
import type { WorkflowAgentRunner } from "../../src/runtime/index.ts";
import { type BenchContext, samples } from "../lib/context.ts";
import { ENGINES, runOn } from "../lib/engines.ts";
import { createFauxSetup } from "../lib/faux.ts";
import { formatNumber, type RowResult } from "../lib/report.ts";
import { now, summarize } from "../lib/stats.ts";
import { CONCURRENT } from "../workloads.ts";

const AGENTS = 50;

export async function runEndToEnd(context: BenchContext): Promise<RowResult[]> {
	const faux = await createFauxSetup();
	const values: RowResult["values"] = {};
	const notes: string[] = [];
	try {
		const piRunner = createPiAgentRunner({
			cwd: faux.cwd,
			agentDir: faux.agentDir,
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
			agentTypes: loadAgentTypes({ cwd: faux.cwd, agentDir: faux.agentDir }).types,
		});
		// Times each child from the runner's point of view.
		let childMs = 0;
		let running = 0;
		let mostRunning = 0;
		const runner: WorkflowAgentRunner = async (request, runnerContext) => {
			const started = now();
			mostRunning = Math.max(mostRunning, ++running);
			try {
				return await piRunner(request, runnerContext);
			} finally {
				running--;
				childMs += now() - started;
			}
		};
		// Warm-up: pi's modules compile on their first sessions.
		await runOn("pi-workflows", CONCURRENT, { runner, args: { n: 8 } });
		for (const engine of ENGINES) {
			const perAgent: number[] = [];
			const perChild: number[] = [];
			for (let i = 0; i < samples(context, 3, 1); i++) {
				childMs = 0;
				mostRunning = 0;
				const repliesBefore = faux.replyMs;
				const started = now();
				await runOn(engine, CONCURRENT, { runner, args: { n: AGENTS } });
				const wall = now() - started;
				const modelMs = faux.replyMs - repliesBefore;
				perAgent.push((wall - modelMs) / AGENTS);
				perChild.push(childMs / AGENTS);
			}
			values[engine] = summarize(perAgent);
			notes.push(
				`${engine}: a child takes ${formatNumber(summarize(perChild).median)} ms from call to result, at most ${mostRunning} at once`,
			);
			context.log(`row 7 ${engine}: ${perAgent.map((ms) => formatNumber(ms)).join(", ")} ms per agent`);
		}
		notes.push(`the faux replies themselves took ${formatNumber(faux.replyMs)} ms in all (${faux.replies} replies)`);
	} finally {
		faux.dispose();
	}
	return [
		{
			id: "7",
			title: "End to end: 50 agents as real pi sessions (faux model, instant replies), wall time ÷ agents",
			unit: "ms/agent",
			values,
			notes,
		},
	];
}
