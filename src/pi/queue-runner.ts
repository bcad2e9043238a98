/**
 * `--workflow-redis <url>`: a session's workflow children go to workers through the BullMQ queue at <url> instead
 * of running in this process. One queue host per session (made at the first run, closed with the session); each
 * run gets a runner that plans its children here (agent types, the session's model) and registers them for steer,
 * pause, skip and restart, which travel to the worker running the child.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { QueueHost } from "../queue/host.ts";
import { queuePlanner } from "../queue/plan.ts";
import type { WorkflowAgentRunner } from "../runtime/core/types.ts";
import type { RunnerSetup } from "../tool/workflow-tool.ts";

/** The flag's name. */
export const REDIS_FLAG = "workflow-redis";

/** What the extension needs: a runner factory for the tool, and `close` for the session's end. */
export interface SessionQueue {
	createRunner(ctx: ExtensionContext, setup: RunnerSetup): Promise<WorkflowAgentRunner>;
	close(): Promise<void>;
}

/** A session's queue at `url`; nothing connects until the first run. */
export function sessionQueue(url: string): SessionQueue {
	let host: QueueHost | undefined;
	return {
		async createRunner(ctx, setup) {
			// bullmq and ioredis load with the first run on the queue, not with every pi session.
			const { createQueueHost } = await import("../queue/host.ts");
			host ??= createQueueHost({ redis: url });
			const model = setup.childModel?.reference ?? (ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined);
			const thinking = ctx.thinkingLevel;
			return host.runner({
				cwd: ctx.cwd,
				runId: async () => (await setup.worktreePlace())?.runId,
				controls: setup.controls,
				prepare: queuePlanner({
					agentTypes: setup.agentTypes,
					projectTrusted: setup.projectTrusted,
					...(model ? { defaultModel: model } : {}),
					...(thinking ? { defaultThinking: thinking } : {}),
					sessionTools: setup.sessionTools?.list().map((tool) => tool.name) ?? [],
					...(setup.provenance ? { provenance: setup.provenance } : {}),
				}),
			});
		},
		async close() {
			await host?.close();
			host = undefined;
		},
	};
}
