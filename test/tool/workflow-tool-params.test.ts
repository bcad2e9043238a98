/**
 * The `workflow` tool's parameters as pi checks them before `execute` runs (pi-ai's `validateToolArguments`, what
 * pi's agent loop calls): numeric parameters out of the range the runtime can honour are refused there, by name.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../src/tool/workflow-tool.ts";

const tool = createWorkflowTool({ queue: createWorkflowQueue(), agentDir: "/nonexistent" });
const call = (args: Record<string, unknown>) =>
	validateToolArguments(tool as never, {
		type: "toolCall",
		id: "c1",
		name: "workflow",
		arguments: { script: "x", ...args },
	});

describe("workflow tool parameters", () => {
	it.each([
		["timeoutMs", 2 ** 31, "timeoutMs: expected <= 2147483647"],
		["timeoutMs", 1e308, "timeoutMs: expected <= 2147483647"],
		["timeoutMs", 0, "timeoutMs: expected > 0"],
		["concurrency", 0, "concurrency: expected >= 1"],
		["concurrency", 65, "concurrency: expected <= 64"],
	])("on %s %d: pi refuses the call naming the bound", (name, value, message) => {
		expect(() => call({ [name]: value })).toThrow(message);
	});

	it("accepts the longest deadline Node's timers take", () => {
		expect(call({ timeoutMs: 2 ** 31 - 1, concurrency: 64 })).toMatchObject({
			timeoutMs: 2 ** 31 - 1,
			concurrency: 64,
		});
	});
});
