/**
 * Shared pieces of the hostile suite: running a script the way a host does (real QuickJS, a scripted runner),
 * the outcome each case must have, a well-behaved bystander run that must stay correct beside a hostile one, and
 * the guards every hostile file installs: the host's event loop is never blocked for long, nothing is left alive.
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { WorkflowErrorCode } from "../../src/errors.ts";
import {
	runWorkflowScript,
	type WorkflowAgentRequest,
	type WorkflowProgressEvent,
	type WorkflowRunOptions,
	type WorkflowRunResult,
} from "../../src/runtime/index.ts";
import { sandboxStats, shutdownSandboxPool } from "../../src/sandbox/index.ts";
import { createFakeRunner, type FakeAnswer, type FakeRunner, HEADER } from "../helpers/fake-runner.ts";
import { watchHostBlocking } from "../helpers/host-cpu.ts";

export { HEADER };

/** What a hostile case must end with: a completed run with this value, or a coded error naming what happened. */
export type Expectation =
	| { value: unknown }
	| { code: WorkflowErrorCode; message: string | RegExp; status?: WorkflowRunResult["status"] };

/** Options of one hostile run: run options, plus the scripted runner's answers. */
export interface HostileOptions extends Partial<WorkflowRunOptions> {
	answer?: (request: WorkflowAgentRequest) => FakeAnswer;
}

/** One row of a table: name, script body (after a valid header), expected outcome, options. */
export type HostileCase = [name: string, script: string, expect: Expectation, options?: HostileOptions];

/** A finished hostile run: its result, every progress event in order, and the runner it used. */
export interface HostileRun {
	result: WorkflowRunResult;
	events: WorkflowProgressEvent[];
	fake: FakeRunner;
}

/** Runs `script` (a body; the header is added) with a scripted runner (unless `agentRunner` is given), recording events. */
export async function runHostile(script: string, options: HostileOptions = {}): Promise<HostileRun> {
	const { answer, onProgress, ...rest } = options;
	const fake = createFakeRunner(answer);
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${script}`, {
		agentRunner: fake.runner,
		onProgress: (event) => {
			events.push(event);
			onProgress?.(event);
		},
		...rest,
	});
	return { result, events, fake };
}

/**
 * Checks the outcome a user sees (status, code, message fragment or value), and that the run still reported
 * correctly: exactly one `run_end`, last, with the result's status; no runner call left running.
 */
export function expectOutcome(run: HostileRun, expectation: Expectation): void {
	const { result, events, fake } = run;
	if ("value" in expectation) {
		expect(result.error, "the run should have completed").toBeUndefined();
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(expectation.value);
	} else {
		expect(result.error?.code, result.error?.message ?? "the run should have failed").toBe(expectation.code);
		expect(result.status).toBe(expectation.status ?? (expectation.code === "cancelled" ? "stopped" : "failed"));
		if (typeof expectation.message === "string") expect(result.error?.message).toContain(expectation.message);
		else expect(result.error?.message).toMatch(expectation.message);
	}
	expect(events.filter((event) => event.type === "run_end")).toHaveLength(1);
	expect(events.at(-1)).toMatchObject({ type: "run_end", status: result.status, counts: result.counts });
	expect(fake.running, "runner calls left running").toBe(0);
}

/** Runs one table row and checks it. */
export async function checkCase(script: string, expectation: Expectation, options?: HostileOptions) {
	const run = await runHostile(script, options);
	expectOutcome(run, expectation);
	return run;
}

/** A well-behaved workflow: a phase, two agents in parallel, a log entry and a budget read. */
const BYSTANDER = `phase("bystander");
const r = await parallel([() => agent("b1"), () => agent("b2")]);
log("bystander done", { n: r.length });
return { r, used: budget.agentCalls.used };`;

/**
 * Options for a case that pushes thousands of calls or tens of MB through the bridge in one stretch: at load 20 such
 * a stretch outlasted the default 5 s slice, which is not what these cases test.
 */
export const LOAD_PROOF: HostileOptions = { limits: { syncSliceMs: 120_000 } };

/** Runs `hostile` with a normal workflow beside it in the same process, and checks the bystander was unaffected. */
export async function beside<T>(hostile: () => Promise<T>): Promise<T> {
	const [value, calm] = await Promise.all([hostile(), runHostile(BYSTANDER)]);
	expectOutcome(calm, { value: { r: ["done: b1", "done: b2"], used: 2 } });
	expect(calm.events.filter((event) => event.type === "log").map((event) => event.message)).toEqual([
		"bystander done",
	]);
	return value;
}

/**
 * Most CPU time the host thread may spend between two ticks of a 10 ms timer in a hostile file: how long host code
 * held the event loop, as a count of the host's own work. The faults this guards against held it for 1–5 s; a
 * healthy run stays far below 100 ms. CPU time rather than the timer's lateness, because a loaded machine delays a
 * timer by hundreds of milliseconds without the host doing anything wrong, and it does not add to the host's CPU.
 */
export const MAX_EVENT_LOOP_DELAY_MS = 500;

/**
 * Installs the per-file guards: after each test no sandbox, run or leased worker is left and every QuickJS
 * engine was freed cleanly; after the file, host code never held the event loop for `maxDelayMs` of the host's CPU
 * time or more (a bound on the host's responsiveness that machine load does not move, with the test that came
 * closest named).
 */
export function guardHost(maxDelayMs = MAX_EVENT_LOOP_DELAY_MS): void {
	const delay = watchHostBlocking();
	let worst = { ms: 0, test: "(none)" };
	beforeAll(() => delay.enable());
	afterEach((context) => {
		const ms = delay.max;
		if (ms > worst.ms) worst = { ms, test: context.task.name };
		delay.reset();
		const stats = sandboxStats();
		expect(stats.liveSandboxes, "sandboxes left").toBe(0);
		expect(stats.activeRuns, "sandbox runs left").toBe(0);
		expect(stats.leasedWorkers, "workers still leased").toBe(0);
		expect(stats.idleWorkers, "idle workers beyond the pool's size").toBeLessThanOrEqual(2);
		expect(stats.engineDisposeFailures, stats.lastEngineDisposeError).toBe(0);
	});
	afterAll(async () => {
		delay.disable();
		await shutdownSandboxPool();
		expect(
			worst.ms,
			`host code held the event loop for ${Math.round(worst.ms)} ms of CPU time, in "${worst.test}"`,
		).toBeLessThan(maxDelayMs);
	});
}
