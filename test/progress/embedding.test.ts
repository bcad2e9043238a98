/**
 * How another extension embeds the progress UI (the example in docs/host-api.md, type-checked and run): a tool that runs a
 * workflow with its own runner, streams partial results through `onUpdate`, and shows the widget under its own keys.
 */
import type { ExtensionAPI, ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import {
	createWorkflowProgressTracker,
	type WorkflowProgressDetails,
	workflowProgressResult,
} from "../../src/progress/index.ts";
import { createWorkflowProgressUi } from "../../src/progress/ui.ts";
import { runWorkflowScript, type WorkflowAgentRunner } from "../../src/runtime/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const REVIEW = `export const meta = { name: "review", description: "Review files", phases: [{ title: "review" }] };
phase("review");
return await parallel(args.files.map((file) => () => agent("Review " + file, { label: file })));`;

// ---- The example, as an extension author writes it ----
function registerReviewTool(pi: Pick<ExtensionAPI, "registerTool">, agentRunner: WorkflowAgentRunner) {
	pi.registerTool({
		name: "review_files",
		label: "Review files",
		description: "Review each file with its own agent",
		parameters: Type.Object({ files: Type.Array(Type.String()) }),
		async execute(_toolCallId, params, signal, onUpdate, ctx) {
			const tracker = createWorkflowProgressTracker();
			const ui = createWorkflowProgressUi(ctx, { onUpdate, widgetKey: "review-progress", statusKey: "review" });
			try {
				const result = await runWorkflowScript(REVIEW, {
					args: params,
					agentRunner,
					...(signal ? { signal } : {}),
					onProgress: (event) => {
						tracker.updateFromProgressEvent(event);
						ui.update(tracker.getEnvelope());
					},
				});
				const { envelope, summary } = tracker.complete(result);
				ui.update(envelope);
				return workflowProgressResult(envelope, summary);
			} catch (error) {
				ui.update(tracker.error(error).envelope);
				throw error;
			} finally {
				ui.dispose();
			}
		},
	});
}
// ---- end of the example ----

describe("embedding the progress UI in another extension's tool", () => {
	it("streams partial results, shows and clears the widget under its own keys, and returns the final result", async () => {
		type Tool = Parameters<ExtensionAPI["registerTool"]>[0];
		let tool: Tool | undefined;
		registerReviewTool({ registerTool: (definition) => (tool = definition as Tool) }, async (request) => ({
			id: `child-${request.index}`,
			type: request.agentType,
			status: "completed",
			result: `${request.label} looks fine`,
		}));

		const widgetKeys: string[] = [];
		const statuses: Array<string | undefined> = [];
		// Only the parts of the context the controller reads; the rest of ExtensionToolContext is not needed here.
		const ctx = {
			hasUI: true,
			mode: "rpc",
			ui: {
				setWidget: (key: string) => widgetKeys.push(key),
				setStatus: (_key: string, text: string | undefined) => statuses.push(text),
			},
		} as unknown as ExtensionToolContext;
		const partials: WorkflowProgressDetails[] = [];
		const result = await tool?.execute(
			"call-1",
			{ files: ["a.ts", "b.ts"] },
			undefined,
			(partial) => partials.push(partial.details as WorkflowProgressDetails),
			ctx,
		);

		const details = result?.details as WorkflowProgressDetails;
		expect(details.envelope.status).toBe("completed");
		expect(details.envelope.result).toEqual(["a.ts looks fine", "b.ts looks fine"]);
		expect(details.summary).toMatch(/^Workflow review completed in \S+: 2 agents \(2 completed\)$/);
		expect(result?.content[0]).toMatchObject({ type: "text", text: expect.stringContaining('"a.ts looks fine"') });
		expect(partials[0]?.envelope.status).toBe("running");
		expect(partials.at(-1)?.envelope.status).toBe("completed");
		expect(new Set(widgetKeys)).toEqual(new Set(["review-progress"]));
		expect(statuses.at(-1)).toBeUndefined();
	});
});
