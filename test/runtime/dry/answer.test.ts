import { describe, expect, it } from "vitest";
import type { WorkflowAgentRequest } from "../../../src/runtime/core/types.ts";
import { dryAgentResult } from "../../../src/runtime/dry/answer.ts";

const SCHEMA = {
	type: "object",
	properties: { verdict: { enum: ["keep", "fix", "drop"] }, note: { type: "string" } },
	required: ["verdict", "note"],
};

function request(key: string, index: number): WorkflowAgentRequest {
	return {
		key,
		index,
		attempt: 1,
		prompt: "Judge it",
		agentType: "general-purpose",
		label: "judge",
		description: "judge",
		schema: SCHEMA,
		cwd: "/",
	};
}

describe("dryAgentResult", () => {
	it("gives a call the same answer whatever index it took in the race of nested workflows", () => {
		const keys = Array.from({ length: 12 }, (_, n) => `call-${n}#0`);
		const first = keys.map((key, index) => dryAgentResult(request(key, index)).structuredOutput);
		const reordered = keys.map(
			(key, index) => dryAgentResult(request(key, keys.length - 1 - index)).structuredOutput,
		);
		expect(reordered).toEqual(first);
	});

	it("varies the answers across the calls of a fan-out: every choice of an enum comes up", () => {
		const verdicts = Array.from({ length: 24 }, (_, n) => {
			const value = dryAgentResult(request(`item-${n}#0`, n)).structuredOutput as { verdict: string };
			return value.verdict;
		});
		expect(new Set(verdicts)).toEqual(new Set(["keep", "fix", "drop"]));
		const notes = Array.from({ length: 24 }, (_, n) => {
			const value = dryAgentResult(request(`item-${n}#0`, n)).structuredOutput as { note: string };
			return value.note;
		});
		expect(new Set(notes).size).toBeGreaterThan(20);
	});
});
