/**
 * The CLI's progress on stderr, fed the events and envelopes of a real run: on a terminal a block redrawn in place
 * (cursor up over the last block, a moving star spinner, live clock, lines cut to the width); elsewhere one plain
 * line per event and no escape codes.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createProgressView } from "../../src/cli/progress-view.ts";
import { STAR_FRAMES, TICK_MS } from "../../src/progress/format.ts";
import { createWorkflowProgressTracker, type WorkflowProgressEnvelope } from "../../src/progress/index.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { controlsIn, HOSTILE, HOSTILE_BLOCK, HOSTILE_LINE, HOSTILE_LITERAL } from "../helpers/controls.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const SOURCE = `export const meta = { name: "view", description: "progress for the CLI" };
phase("fan-out");
const answers = await parallel(["a", "b"].map((x) => () => agent("echo " + x, { label: "a label long enough to be cut at forty columns " + x })));
phase("log");
log("all answered");
return answers;`;

/** A real run's events, each with the envelope the tracker made of it, and the final envelope. */
async function recordRun() {
	const tracker = createWorkflowProgressTracker();
	const steps: Array<{ event: WorkflowProgressEvent; envelope: WorkflowProgressEnvelope }> = [];
	const fake = createFakeRunner((r) => r.prompt.toUpperCase());
	const result = await runWorkflowScript(SOURCE, {
		agentRunner: fake.runner,
		onProgress: (event) => {
			tracker.updateFromProgressEvent(event);
			steps.push({ event, envelope: tracker.getEnvelope() });
		},
	});
	return { steps, final: tracker.complete(result).envelope };
}

function fakeStream(isTTY: boolean, columns = 40) {
	const chunks: string[] = [];
	return { chunks, stream: { isTTY, columns, rows: 30, write: (chunk: string) => chunks.push(chunk) > 0 } };
}

afterEach(() => {
	vi.useRealTimers();
});

describe("the CLI progress view", () => {
	it("on a terminal: redraws the block in place every tick with the next spinner frame, lines cut to the width", async () => {
		const { steps, final } = await recordRun();
		vi.useFakeTimers();
		let clock = steps[0]?.envelope.startedAt ?? 0;
		const { chunks, stream } = fakeStream(true);
		const view = createProgressView(stream as never, () => clock);
		// Half-way: the first agent running.
		const running = steps.findIndex((step) => step.event.type === "agent_started");
		for (const step of steps.slice(0, running + 1)) view.update(step.event, step.envelope);

		vi.advanceTimersByTime(TICK_MS);
		const first = chunks.join("");
		const firstLines = first.trimEnd().split("\n");
		expect(first.startsWith("\x1b[")).toBe(false);
		expect(firstLines[0]).toMatch(
			new RegExp(`^${STAR_FRAMES[Math.floor(clock / TICK_MS) % STAR_FRAMES.length]} Workflow view: running`),
		);
		expect(first).toContain("fan-out");
		for (const line of firstLines) expect([...line].length).toBeLessThanOrEqual(39);
		expect(first).toContain("…");

		chunks.length = 0;
		clock += TICK_MS;
		vi.advanceTimersByTime(TICK_MS);
		const second = chunks.join("");
		// Up over the whole previous block, then clear to the end of the screen.
		expect(second.startsWith(`\x1b[${firstLines.length}A\r\x1b[J`)).toBe(true);
		expect(second).toContain(`${STAR_FRAMES[Math.floor(clock / TICK_MS) % STAR_FRAMES.length]} Workflow view`);

		chunks.length = 0;
		view.message("Stopping…");
		expect(chunks.join("")).toContain(`\x1b[${firstLines.length}A\r\x1b[JStopping…\n`);

		chunks.length = 0;
		view.finish(final);
		const last = chunks.join("");
		expect(last).toContain("Workflow view: completed");
		expect(last).not.toMatch(new RegExp(`[${STAR_FRAMES.join("")}]`));
		chunks.length = 0;
		vi.advanceTimersByTime(10 * TICK_MS);
		expect(chunks).toEqual([]);
	});

	it("elsewhere: one plain line per event a person follows, the summary at the end, no escape codes", async () => {
		const { steps, final } = await recordRun();
		const { chunks, stream } = fakeStream(false);
		const view = createProgressView(stream as never);
		for (const step of steps) view.update(step.event, step.envelope);
		view.finish(final);
		const text = chunks.join("");
		expect(text).not.toContain("\x1b");
		const lines = text.trimEnd().split("\n");
		expect(lines[0]).toBe("Workflow view: started");
		expect(lines[1]).toBe("Phase fan-out");
		expect(lines.filter((line) => line.startsWith("  ▸ a label long enough"))).toHaveLength(2);
		expect(lines.filter((line) => line.startsWith("  ✓ a label long enough"))).toHaveLength(2);
		expect(lines).toContain("Phase log");
		expect(lines).toContain("  › all answered");
		expect(lines.at(-1)).toMatch(/^Workflow view completed in .*: 2 agents \(2 completed\)/);
	});
});

describe("the CLI progress view: provider waits", () => {
	it("elsewhere: one line when a wait starts (the limit, the call, when the next try is) and one when it is over", async () => {
		let tries = 0;
		const fake = createFakeRunner(() =>
			++tries === 1 ? { limit: { kind: "rate_limit", message: "429 rate limit exceeded", retryAfterMs: 30 } } : "ok",
		);
		const { chunks, stream } = fakeStream(false);
		const view = createProgressView(stream as never);
		const tracker = createWorkflowProgressTracker();
		await runWorkflowScript(
			`export const meta = { name: "w", description: "d" };\nreturn await agent("a", { label: "fix a" });`,
			{
				agentRunner: fake.runner,
				onProgress: (event) => {
					tracker.updateFromProgressEvent(event);
					view.update(event, tracker.getEnvelope());
				},
			},
		);
		const lines = chunks.join("").split("\n");
		expect(lines).toContain(
			"  ⏸ waiting for the provider: rate limited (fix a), next try in 30ms · 429 rate limit exceeded",
		);
		expect(lines.some((line) => /^ {2}▸ the provider wait is over \(\d+ms\); children start again$/.test(line))).toBe(
			true,
		);
		expect(lines).toContain("  ↻ fix a: the provider wait is over (rate limited)");
	});
});

const HOSTILE_SOURCE = `export const meta = { name: "hostile", description: "escapes in everything it shows" };
const bad = ${HOSTILE_LITERAL};
phase("phase " + bad);
const answer = await ask("Delete the production database?" + bad, { choices: ["yes" + bad, "no"] });
const done = await agent("echo", { label: "label " + bad });
log("log " + bad);
return { answer, done };`;

/** A real run of `HOSTILE_SOURCE` whose person picks the first choice and whose child answers with escapes too. */
async function recordHostileRun() {
	const tracker = createWorkflowProgressTracker();
	const steps: Array<{ event: WorkflowProgressEvent; envelope: WorkflowProgressEnvelope }> = [];
	const fake = createFakeRunner(() => `done ${HOSTILE}`);
	const result = await runWorkflowScript(HOSTILE_SOURCE, {
		agentRunner: fake.runner,
		ask: (question) => question.choices?.[0],
		onProgress: (event) => {
			tracker.updateFromProgressEvent(event);
			steps.push({ event, envelope: tracker.getEnvelope() });
		},
	});
	expect(result.status).toBe("completed");
	return { steps, final: tracker.complete(result).envelope };
}

describe("the CLI progress view: what the script wrote reaches the terminal visible, never as escapes", () => {
	it("elsewhere: labels, phases, the question, its answer and logs show ^[ and ^G, not ESC and BEL", async () => {
		const { steps, final } = await recordHostileRun();
		const { chunks, stream } = fakeStream(false);
		const view = createProgressView(stream as never);
		for (const step of steps) view.update(step.event, step.envelope);
		view.finish(final);
		const text = chunks.join("");
		expect(controlsIn(text)).toEqual([]);
		expect(text).toContain(`Phase phase ${HOSTILE_LINE}`);
		expect(text).toContain(`  ? waiting for you: Delete the production database?${HOSTILE_LINE}`);
		expect(text).toContain(`  ✓ answered: yes${HOSTILE_LINE}`);
		expect(text).toContain(`  ▸ label ${HOSTILE_LINE}`);
		expect(text).toContain(`  › log ${HOSTILE_LINE}`);
	});

	it("on a terminal: the live block shows the script's text visible; its only escapes are the view's own redraw", async () => {
		const { steps } = await recordHostileRun();
		vi.useFakeTimers();
		const { chunks, stream } = fakeStream(true, 200);
		const view = createProgressView(stream as never, () => steps[0]?.envelope.startedAt ?? 0);
		// While the question waits: the block shows it and the phase.
		const asking = steps.findIndex((step) => step.event.type === "ask_started");
		for (const step of steps.slice(0, asking + 1)) view.update(step.event, step.envelope);
		vi.advanceTimersByTime(TICK_MS);
		const block = chunks.join("");
		expect(controlsIn(block)).toEqual([]);
		expect(block).toContain(`Waiting for you: Delete the production database?${HOSTILE_LINE}`);
		expect(block).toContain(`phase ${HOSTILE_BLOCK}`);
		view.finish(steps.at(-1)?.envelope as WorkflowProgressEnvelope);
		const last = chunks.join("").slice(block.length);
		// The redraw's own "up and clear" is the one escape; nothing of the script's.
		const redraw = `\x1b[${block.trimEnd().split("\n").length}A\r\x1b[J`;
		expect(last.startsWith(redraw)).toBe(true);
		expect(controlsIn(last.slice(redraw.length))).toEqual([]);
		expect(last).toContain(`log ${HOSTILE_LINE}`);
		expect(last).toContain(`label ${HOSTILE_LINE}`);
	});

	it("elsewhere: each call that ends says where the run stands against its plan, and time left or that it is not known", async () => {
		const tracker = createWorkflowProgressTracker();
		tracker.forecastWith(
			{
				calls: [
					{
						phase: "fan-out",
						label: "a label long enough to be cut at forty columns a",
						agentType: "general-purpose",
						count: 3,
					},
				],
			},
			undefined,
		);
		const { chunks, stream } = fakeStream(false);
		const view = createProgressView(stream as never);
		const fake = createFakeRunner((r) => r.prompt.toUpperCase());
		await runWorkflowScript(SOURCE, {
			agentRunner: fake.runner,
			onProgress: (event) => {
				tracker.updateFromProgressEvent(event);
				view.update(event, tracker.getEnvelope());
			},
		});
		const ended = chunks
			.join("")
			.split("\n")
			.filter((line) => line.startsWith("  ✓ "));
		expect(ended).toHaveLength(2);
		// The plan has three calls of the first label; the run made one of each, the second outside the plan: the
		// expected total grows to 2 made + 2 still planned once that call is seen.
		const standing = ended.map((line) => line.split(" · ").slice(-1)[0]);
		expect(standing[0]).toMatch(/^1 of ~[34] calls, time left: not known yet$/);
		expect(standing[1]).toBe("2 of ~4 calls, time left: not known yet");
	});
});
