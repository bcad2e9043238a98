/** The `workflow` tool over a runner fixture's children on its priced faux model, recording into the run folder. */

import { type ExtensionToolContext, ModelRegistry } from "@earendil-works/pi-coding-agent";
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

/** What a person answers the tool's dialogs: a confirm (default yes), the select option starting so (default "Stop"), an input. */
export interface DialogAnswers {
	confirm?: boolean;
	select?: string;
	input?: string;
}

/**
 * The session as the priced tool sees it: in the TUI answering as `answers` says, or in print mode with none; `asked`
 * holds each dialog's title (and a confirm's message).
 */
export function pricedToolSession(fx: RunnerFixture, answers?: DialogAnswers) {
	const asked: string[] = [];
	const ctx = {
		cwd: fx.dirs.cwd,
		mode: answers ? "tui" : "print",
		hasUI: answers !== undefined,
		model: fx.faux.pricedModel,
		modelRegistry: new ModelRegistry(fx.faux.modelRuntime),
		ui: {
			setWidget: () => {},
			setStatus: () => {},
			notify: () => {},
			confirm: async (title: string, message: string) => {
				asked.push(`${title}\n${message}`);
				return answers?.confirm ?? true;
			},
			select: async (title: string, options: string[]) => {
				asked.push(title);
				return options.find((option) => option.startsWith(answers?.select ?? "Stop"));
			},
			input: async (title: string) => {
				asked.push(title);
				return answers?.input;
			},
		},
	} as unknown as ExtensionToolContext;
	return { ctx, tool: pricedWorkflowTool(fx), asked };
}
