/**
 * An agent file's `placement:` (issue 48 §2): read from the frontmatter, sent in the queued child's plan, merged
 * under the call's own `placement` field by field; a label that is not one fails the call before any job, naming
 * the file.
 */
import { describe, expect, it } from "vitest";
import { parseAgentFields } from "../../src/agents/agent-fields.ts";
import { childPlacement, chooseQueue } from "../../src/queue/placement.ts";
import { queuePlanner } from "../../src/queue/plan.ts";
import type { WorkflowAgentRequest } from "../../src/runtime/core/types.ts";

const REQUEST = {
	key: "k",
	index: 0,
	attempt: 1,
	prompt: "p",
	agentType: "trainer",
	label: "l",
	description: "l",
} as WorkflowAgentRequest;

function trainer(placement: unknown, warnings: string[] = []) {
	const type = parseAgentFields(
		{
			frontmatter: { name: "trainer", placement },
			body: "Train.",
			fileName: "trainer",
			path: "/p/trainer.md",
			source: "project",
		},
		warnings,
	);
	if (!type) throw new Error("the file was skipped");
	return type;
}

describe("placement: in agent files", () => {
	it("is read, sent with the plan, and the call's fields win one by one", () => {
		const type = trainer({ labels: "gpu, region=eu", prefer: ["fast"], wait_ms: 5000 });
		expect(type.placement).toEqual({ labels: ["gpu", "region=eu"], prefer: ["fast"], waitMs: 5000 });
		const plan = queuePlanner({ agentTypes: new Map([["trainer", type]]) })(REQUEST);
		expect(plan.placement).toEqual(type.placement);
		expect(childPlacement({ labels: ["tpu"] }, plan.placement)).toEqual({
			labels: ["tpu"],
			prefer: ["fast"],
			waitMs: 5000,
		});
	});

	it("a value of the wrong shape is dropped with a warning naming the file", () => {
		const warnings: string[] = [];
		expect(trainer({ label: "gpu" }, warnings).placement).toBeUndefined();
		expect(warnings).toEqual([
			'Agent file /p/trainer.md: `placement` must be an object of `labels`, `prefer` (lists of labels) and `wait_ms`; ignoring {"label":"gpu"}',
		]);
	});

	it("a label that is not one fails the call before any job, naming the file", () => {
		const plan = queuePlanner({ agentTypes: new Map([["trainer", trainer({ labels: ["gpu box"] })]]) });
		expect(() => plan(REQUEST)).toThrow(
			'Agent type `trainer` (/p/trainer.md): `placement.labels` must be a list of labels: "gpu box" is not a label (`name` or `name=value`: letters, digits and . _ / -). Fix the agent file',
		);
	});
});

describe("placement: the queue a child goes to", () => {
	const beat = (name: string, labels: string[], running = 0) => ({
		name,
		host: "h:1",
		labels,
		concurrency: 2,
		running,
		startedAt: 0,
		at: 0,
	});

	it("its required labels, plus the preferred labels of the best able worker with a free slot", () => {
		const placement = { labels: ["gpu"], prefer: ["region=eu", "fast"] };
		const live = [beat("a", ["gpu"]), beat("b", ["gpu", "region=eu"]), beat("c", ["region=eu", "fast"])];
		expect(chooseQueue("q", placement, live)).toBe("q@gpu+region=eu");
		// The preferred worker is full: the required labels' queue, which every able worker takes from.
		expect(chooseQueue("q", placement, [beat("a", ["gpu"]), beat("b", ["gpu", "region=eu"], 2)])).toBe("q@gpu");
		expect(chooseQueue("q", { labels: [], prefer: [] }, live)).toBe("q");
	});
});
