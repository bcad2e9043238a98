/**
 * `transcripts` (where a host kept a child's conversation) from the runner's result to the call's events and its
 * journal line: every attempt's, in order; a replayed call's from the run that recorded it; whatever a runner put
 * there reduced to plain strings, a bounded number of them.
 */
import { describe, expect, it } from "vitest";
import { runWorkflowScript, type WorkflowAgentRunner, type WorkflowProgressEvent } from "../../../src/runtime/index.ts";
import { HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, runner: WorkflowAgentRunner, journal = memoryJournal()) {
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: runner,
		journal,
		onProgress: (event) => events.push(event),
	});
	return { result, events, journal };
}

const ended = (events: WorkflowProgressEvent[]) =>
	events.filter((e) => e.type === "agent_finished" || e.type === "agent_failed") as Array<
		WorkflowProgressEvent & { transcripts?: string[]; cached?: boolean }
	>;

describe("agent(): the child's conversation files", () => {
	it("every attempt's files, in order, on the call's end and its journal line; a resume's replay links them", async () => {
		let attempt = 0;
		const runner: WorkflowAgentRunner = async (request) => {
			attempt++;
			const transcripts = [`children/000-a-${attempt}.jsonl`];
			return attempt === 1
				? { id: "c1", type: request.agentType, status: "failed", error: "flaky", transcripts }
				: { id: "c2", type: request.agentType, status: "completed", result: "fine", transcripts };
		};
		const first = await run(`return await agent("do a", { label: "a", retries: 1 });`, runner);
		expect(first.result.status).toBe("completed");
		expect(ended(first.events).map((e) => [e.type, e.transcripts])).toEqual([
			["agent_finished", ["children/000-a-1.jsonl", "children/000-a-2.jsonl"]],
		]);
		expect([...first.journal.entries.values()][0]?.transcripts).toEqual([
			"children/000-a-1.jsonl",
			"children/000-a-2.jsonl",
		]);
		const again = await run(`return await agent("do a", { label: "a", retries: 1 });`, runner, first.journal);
		expect(attempt).toBe(2);
		expect(ended(again.events)).toMatchObject([
			{ type: "agent_finished", cached: true, transcripts: ["children/000-a-1.jsonl", "children/000-a-2.jsonl"] },
		]);
	});

	it("a failed call carries its files too", async () => {
		const runner: WorkflowAgentRunner = async (request) => ({
			id: "c",
			type: request.agentType,
			status: "failed",
			error: "no",
			transcripts: ["children/000-b-1.jsonl"],
		});
		const { events } = await run(`return await agent("do b", { label: "b" });`, runner);
		expect(ended(events)).toMatchObject([{ type: "agent_failed", transcripts: ["children/000-b-1.jsonl"] }]);
	});

	it("what a runner puts there is reduced to non-empty strings of at most 1,024 characters, 50 at most", async () => {
		const odd = [
			1,
			null,
			"",
			"ok.jsonl",
			"y".repeat(2000),
			{ path: "x" },
			...Array.from({ length: 60 }, (_, i) => `f${i}`),
		];
		const runner: WorkflowAgentRunner = async (request) => ({
			id: "c",
			type: request.agentType,
			status: "completed",
			result: "r",
			transcripts: odd as string[],
		});
		const { events } = await run(`return await agent("do c", { label: "c" });`, runner);
		const [finished] = ended(events);
		expect(finished?.transcripts).toHaveLength(50);
		expect(finished?.transcripts?.slice(0, 2)).toEqual(["ok.jsonl", "f0"]);
		const notAnArray: WorkflowAgentRunner = async (request) => ({
			id: "c",
			type: request.agentType,
			status: "completed",
			result: "r",
			transcripts: "children/x.jsonl" as unknown as string[],
		});
		const plain = await run(`return await agent("do d", { label: "d" });`, notAnArray);
		expect(ended(plain.events)[0]).not.toHaveProperty("transcripts");
	});
});
