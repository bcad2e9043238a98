/**
 * What a pi child costs: pi-ai's own figure on each of its replies (the faux provider's streams are priced with
 * pi-ai's `calculateCost`, test/helpers/faux.ts), summed over every reply of every attempt, billed or estimated, and
 * unknown (never $0) on a model without a price; live in the child's reports too.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentFile } from "../agents/agent-files.ts";
import { fauxAssistantMessage, fauxToolCall, untilAborted } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

/** Every assistant reply a session recorded, failed attempts pi hid from the conversation included. */
function replies(session: AgentSession): AssistantMessage[] {
	return session.sessionManager
		.getEntries()
		.flatMap((entry) => (entry.type === "message" && entry.message.role === "assistant" ? [entry.message] : []));
}

/** pi-ai's totals of every reply of these sessions, added up. */
function piTotal(sessions: readonly AgentSession[]): number {
	return sessions.flatMap(replies).reduce((sum, reply) => sum + reply.usage.cost.total, 0);
}

describe("createPiAgentRunner: cost", () => {
	it("a child on a priced model: the sum of pi-ai's figure for each reply, an estimate, with the model it ran on", async () => {
		fx.dirs.write("notes.txt", "remember the milk");
		fx.faux.route("Read notes", [
			fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("The milk."),
		]);
		const result = await fx.runner({ defaultModel: fx.faux.pricedModel })(
			fx.request({ prompt: "Read notes.txt" }),
			fx.context(),
		);
		expect(result.status).toBe("completed");
		expect(result.model).toBe("faux/faux-priced");
		const [session] = fx.tracker.created as [AgentSession];
		expect(replies(session)).toHaveLength(2);
		const expected = piTotal([session]);
		expect(expected).toBeGreaterThan(0);
		expect(result.cost?.usd).toBeCloseTo(expected, 12);
		expect(result.cost?.billedUsd).toBeUndefined();
		expect(result.cost?.unpriced).toBeUndefined();
		// Each reply's cost is pi-ai's price times its tokens, as its catalog gives them per million.
		for (const reply of replies(session)) {
			const { cacheRead, cacheWrite, input, output } = reply.usage;
			expect(reply.usage.cost.total).toBeCloseTo(
				(input * 3 + output * 15 + cacheRead * 0.3 + cacheWrite * 3.75) / 1e6,
				12,
			);
		}
		// The reports carry the cost as it grows; the last one has it all.
		const costs = fx.reports.map((report) => report.cost?.usd ?? 0);
		expect(costs.some((usd) => usd > 0 && usd < expected)).toBe(true);
		expect(fx.reports.at(-1)?.cost?.usd).toBeCloseTo(expected, 12);
	});

	it("every attempt counts: a child stopped by the stall watchdog and retried costs both attempts' replies", async () => {
		fx.dirs.write(".pi/agents/watched.md", agentFile("stall_ms: 600"));
		fx.faux.route("Think", [
			fauxAssistantMessage([fauxToolCall("ls", {})], { stopReason: "toolUse" }),
			untilAborted(),
			fauxAssistantMessage("Done on the second try."),
		]);
		const result = await fx.runner({ defaultModel: fx.faux.pricedModel })(
			fx.request({ prompt: "Think hard", agentType: "watched" }),
			fx.context(),
		);
		expect(result.status).toBe("completed");
		expect(fx.tracker.created).toHaveLength(2);
		const [first, second] = fx.tracker.created as [AgentSession, AgentSession];
		expect(piTotal([first])).toBeGreaterThan(0);
		expect(piTotal([second])).toBeGreaterThan(0);
		expect(result.cost?.usd).toBeCloseTo(piTotal([first, second]), 12);
	});

	it("a reply the provider billed: the cost says so", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("Hello.")]);
		const result = await fx.runner({ defaultModel: fx.faux.billedModel })(fx.request(), fx.context());
		const [session] = fx.tracker.created as [AgentSession];
		expect(replies(session).every((reply) => reply.usage.cost.totalFromProvider === true)).toBe(true);
		expect(result.cost?.usd).toBeGreaterThan(0);
		expect(result.cost?.billedUsd).toBe(result.cost?.usd);
	});

	it("a model without a price: the cost is unknown (each reply counted), not $0", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage("Hello.")]);
		const result = await fx.runner()(fx.request(), fx.context());
		expect(result.model).toBe("faux/faux-1");
		expect(result.cost).toEqual({ usd: 0, unpriced: 1 });
	});

	it("a failed child still costs what its replies cost", async () => {
		fx.faux.route("Say hello", [fauxAssistantMessage([], { stopReason: "error", errorMessage: "500 server error" })]);
		const result = await fx.runner({ defaultModel: fx.faux.pricedModel })(fx.request(), fx.context());
		expect(result.status).toBe("failed");
		const [session] = fx.tracker.created as [AgentSession];
		// The faux provider estimates the prompt's tokens on an error reply, so this one has a price.
		expect(piTotal([session])).toBeGreaterThan(0);
		expect(result.cost?.usd).toBeCloseTo(piTotal([session]), 12);
	});
});
