import { describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import type { RunProvenance } from "../../src/children/frame.ts";
import { queuePlanner } from "../../src/queue/plan.ts";
import type { WorkflowAgentRequest } from "../../src/runtime/core/types.ts";

const REQUEST = {
	key: "k",
	index: 0,
	attempt: 1,
	prompt: "p",
	agentType: "general-purpose",
	label: "l",
	description: "l",
} as WorkflowAgentRequest;

describe("queuePlanner: the provenance frame", () => {
	it("a queued child's plan carries the host's provenance as JSON, for its worker to frame the child with", () => {
		const provenance: RunProvenance = {
			script: { kind: "saved", name: "review", file: "/p/.pi/workflows/review.js" },
			person: { kind: "request", text: "/review auth", via: "the /review command the person typed" },
		};
		const agentTypes = new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]);
		const plan = queuePlanner({ agentTypes, provenance })(REQUEST);
		expect(JSON.parse(JSON.stringify(plan)).provenance).toEqual(provenance);
		expect(queuePlanner({ agentTypes })(REQUEST)).not.toHaveProperty("provenance");
	});
});
