/** The `workflow` tool over a runner fixture's children on its priced faux model, recording into the run folder. */

import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { createWorkflowTool, type WorkflowToolOptions } from "../../src/tool/workflow-tool.ts";
import type { RunnerFixture } from "../children/runner-fixture.ts";

export function pricedWorkflowTool(fx: RunnerFixture, defaults?: WorkflowToolOptions["defaults"]) {
	return createWorkflowTool({
		queue: createWorkflowQueue(),
		agentDir: fx.dirs.agentDir,
		createRunner: async (_ctx, setup) =>
			fx.runner({
				defaultModel: fx.faux.pricedModel,
				...(setup.runFolder ? { runFolder: setup.runFolder } : {}),
				...(setup.record ? { record: setup.record } : {}),
			}),
		...(defaults ? { defaults } : {}),
	});
}
