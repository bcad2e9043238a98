/**
 * `agent(prompt, { resume: "label" })` in the runtime, with a plain runner (pi is not the point here: see
 * test/children/continue-child.test.ts): what the continued request carries, the key that holds the continued
 * call's key, and each refusal with its code, message and position. The static pass takes the option.
 */
import { describe, expect, it } from "vitest";
import { createWorkflowProgressTracker, formatWorkflowProgress } from "../../../src/progress/index.ts";
import {
	checkWorkflowScript,
	dryRunWorkflowScript,
	runWorkflowScript,
	type WorkflowAgentRunner,
	type WorkflowProgressEvent,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, answer: (prompt: string) => FakeAnswer = (prompt) => `done: ${prompt}`) {
	const fake = createFakeRunner((request) => answer(request.prompt));
	const journal = memoryJournal();
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		agentTypes: ["general-purpose", "reviewer", "other"],
		journal,
		onProgress: (event) => events.push(event),
	});
	return { result, fake, journal, events };
}

describe("agent() option resume", () => {
	it("the continued request names the call it continues and takes its agent type, label and model", async () => {
		const body = `const found = await agent("Review it", { label: "rev", agent: "reviewer" });
return await agent("Now fix it", { resume: "rev", tools: ["edit"] });`;
		const { result, fake, events } = await run(body, (prompt) =>
			prompt === "Review it" ? { text: "a bug", model: "faux/one" } : "fixed",
		);
		expect(result).toMatchObject({ status: "completed", value: "fixed" });
		const [review, fix] = fake.requests;
		expect(fix).toMatchObject({
			agentType: "reviewer",
			label: "rev",
			model: "faux/one",
			tools: ["edit"],
			continues: { key: review?.key, index: 0, label: "rev" },
		});
		expect(review?.continues).toBeUndefined();
		const queued = events.filter((event) => event.type === "agent_queued");
		expect(queued.map((event) => event.continues)).toEqual([undefined, { index: 0, label: "rev" }]);
		// The progress text shows the chain.
		const tracker = createWorkflowProgressTracker();
		for (const event of events) tracker.updateFromProgressEvent(event);
		const lines = formatWorkflowProgress(tracker.getEnvelope()).split("\n");
		expect(lines.filter((line) => line.includes("#2 rev"))).toEqual([
			expect.stringMatching(/^.+ #2 rev \(reviewer\) · continues #1 rev · completed/),
		]);
		expect(checkWorkflowScript(`${HEADER}${body}`).diagnostics).toEqual([]);
	});

	it("the continued call's key holds the earlier call's: an edit upstream runs both again, one downstream only it", async () => {
		const script = (first: string, second: string) =>
			`const a = await agent(${JSON.stringify(first)}, { label: "rev" });\nreturn await agent(${JSON.stringify(second)}, { resume: "rev" });`;
		const one = await run(script("Review it", "Fix it"));
		const again = await run(script("Review it", "Fix it"));
		const editedDown = await run(script("Review it", "Fix it well"));
		const editedUp = await run(script("Review all of it", "Fix it"));
		const keys = (r: typeof one) => r.fake.requests.map((request) => request.key);
		expect(keys(again)).toEqual(keys(one));
		expect(keys(editedDown)[0]).toBe(keys(one)[0]);
		expect(keys(editedDown)[1]).not.toBe(keys(one)[1]);
		expect(keys(editedUp)[0]).not.toBe(keys(one)[0]);
		// Same prompt and options downstream, yet another key: it continues another conversation.
		expect(keys(editedUp)[1]).not.toBe(keys(one)[1]);
	});

	it("a dry run's plan says how many calls of its chain each continued call carries, for the estimate", async () => {
		const body = `await agent("Review", { label: "rev" });
await agent("Fix", { resume: "rev" });
await agent("Test", { resume: "rev" });
await agent("Other", { label: "other" });`;
		const { result, plan } = await dryRunWorkflowScript(`${HEADER}${body}`, {});
		expect(result.status).toBe("completed");
		expect(plan.calls.map((call) => [call.label, call.carried])).toEqual([
			["rev", undefined],
			["rev", 1],
			["rev", 2],
			["other", undefined],
		]);
	});

	const refusals: [string, string, string, string][] = [
		[
			"no call with that label",
			`await agent("Look", { label: "scout" });\nawait agent("Fix", { resume: "rev" });`,
			"resume_not_found",
			'`agent()` option `resume: "rev"` names no earlier call: no `agent()` call before it has `label: "rev"` (labels so far: "scout"). Give the call to continue that label and `await` it before this one (3:12)',
		],
		[
			"a label several calls share",
			`await parallel([1, 2].map((n) => () => agent("Review " + n, { label: "rev" })));\nawait agent("Fix", { resume: "rev" });`,
			"resume_ambiguous",
			'`agent()` option `resume: "rev"` names 2 conversations (calls #1, #2, made with the same label): a child continues one. Give each call its own label (`label: "rev-" + i`) and continue the one you mean (3:12)',
		],
		[
			"a call still running",
			`const pending = agent("Survey", { label: "rev", timeoutMs: 60000 });\nawait agent("Fix", { resume: "rev" });`,
			"resume_unavailable",
			'`agent()` option `resume: "rev"`: call #1 is still running: `await` it before continuing it (a continued child starts from its finished conversation) (3:12)',
		],
		[
			"a failed call",
			`await agent("Review", { label: "rev" });\nawait agent("Fix", { resume: "rev" });`,
			"resume_unavailable",
			'`agent()` option `resume: "rev"`: call #1 failed (it broke), so there is no answered conversation to continue. Check its result for null (or catch its error) and start a fresh call instead (3:12)',
		],
		[
			"another agent type",
			`await agent("Read", { label: "rev", agent: "reviewer" });\nawait agent("Fix", { resume: "rev", agent: "other" });`,
			"agent_options_invalid",
			'`agent()` option `resume: "rev"` continues a `reviewer` child, and `agent: "other"` asks for another type: a conversation keeps its agent type. Drop `agent`, or start a fresh call (3:12)',
		],
	];
	for (const [what, body, code, message] of refusals) {
		it(`refused: ${what}, with its code, what to do and where`, async () => {
			const { result } = await run(body, (prompt) =>
				prompt === "Review" ? { fail: "it broke" } : prompt === "Survey" ? { text: "late", delayMs: 1000 } : "ok",
			);
			expect(result.status).toBe("failed");
			expect(result.error?.code).toBe(code);
			expect(result.error?.message).toBe(message);
		});
	}

	it("refused: a call that ran isolated in a worktree (its worktree is gone)", async () => {
		const runner: WorkflowAgentRunner = async (request) => ({
			id: "c1",
			type: request.agentType,
			status: "completed",
			result: "changed",
			worktree: { path: "/tmp/wt", branch: "workflows/r1/rev", kept: true },
		});
		const result = await runWorkflowScript(
			`${HEADER}await agent("Change", { label: "rev", isolation: "worktree" });\nawait agent("More", { resume: "rev" });`,
			{ agentRunner: runner },
		);
		expect(result.error?.code).toBe("resume_unavailable");
		expect(result.error?.message).toBe(
			'`agent()` option `resume: "rev"`: call #1 ran isolated in a worktree, which was removed when it ended (what it changed is on branch `workflows/r1/rev`, when it changed anything): a continued child would work in another checkout than the one its conversation speaks of. Start a fresh isolated call and give it what the first one said, or run the first one without `isolation` (3:12)',
		);
	});
});
