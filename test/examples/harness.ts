/**
 * Runs an example from examples/workflows through the real runtime with scripted children: answers are routed by
 * agent type, label, prompt or phase, and a request no route answers is recorded so the test can fail on it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type {
	LogEvent,
	WorkflowAgentRequest,
	WorkflowAgentRunner,
	WorkflowProgressEvent,
	WorkflowRunOptions,
	WorkflowRunResult,
} from "../../src/runtime/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { sandboxStats } from "../../src/sandbox/index.ts";
import { createFakeRunner, type FakeAnswer, type FakeRunner } from "../helpers/fake-runner.ts";

/** The folder the examples live in. */
export const EXAMPLES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples/workflows");

/** Every example script, by file name. */
export function exampleFiles(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith(".js"))
		.sort();
}

/** Which requests a route answers; every given field must match. A label string matches exactly, a prompt string as a substring. */
export interface RouteMatch {
	agentType?: string;
	label?: string | RegExp;
	prompt?: string | RegExp;
	phase?: string;
}

/** One scripted route: the answer may depend on the request and on how many times this route answered before. */
export interface Route {
	when: RouteMatch;
	answer: FakeAnswer | ((request: WorkflowAgentRequest, count: number) => FakeAnswer);
	/** Holds the child until this settles: orders children by events instead of by timing. */
	waitFor?: () => Promise<unknown>;
}

/** A fake runner that answers by routes, plus the requests no route answered. */
export interface ScriptedRunner extends FakeRunner {
	unmatched: WorkflowAgentRequest[];
}

/** A runner whose children answer by the first matching route; an unmatched request fails as a child. */
export function createScriptedRunner(routes: Route[]): ScriptedRunner {
	const unmatched: WorkflowAgentRequest[] = [];
	const counts = new Map<Route, number>();
	const fake = createFakeRunner((request) => {
		const route = routes.find((candidate) => matches(candidate.when, request));
		if (!route) {
			unmatched.push(request);
			return { fail: `no scripted answer for ${request.agentType} \`${request.label}\`` };
		}
		const count = counts.get(route) ?? 0;
		counts.set(route, count + 1);
		return typeof route.answer === "function" ? route.answer(request, count) : route.answer;
	});
	const answer = fake.runner;
	const runner: WorkflowAgentRunner = async (request, context) => {
		await routes.find((candidate) => matches(candidate.when, request))?.waitFor?.();
		return answer(request, context);
	};
	return Object.assign(fake, { runner, unmatched });
}

/** What `runExample` gives back: the run's result, its events, and the children's requests in call order. */
export interface ExampleRun {
	result: WorkflowRunResult;
	events: WorkflowProgressEvent[];
	/** Requests sorted by call index (first attempts only), so tests can read them in the script's order. */
	calls: WorkflowAgentRequest[];
	logs: LogEvent[];
	runner: ScriptedRunner;
}

/** Options of `runExample`: the run options besides the runner, which comes from `routes`. */
export type ExampleRunOptions = Omit<WorkflowRunOptions, "agentRunner" | "onProgress" | "filename"> & {
	routes: Route[];
};

/** Reads an example's source. */
export function exampleSource(file: string): string {
	return readFileSync(join(EXAMPLES_DIR, file), "utf8");
}

/** Runs `examples/workflows/<file>` with scripted children; throws if the run left a child, sandbox or worker behind. */
export async function runExample(file: string, options: ExampleRunOptions): Promise<ExampleRun> {
	const { routes, ...rest } = options;
	const runner = createScriptedRunner(routes);
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(exampleSource(file), {
		cwd: EXAMPLES_DIR,
		...rest,
		agentRunner: runner.runner,
		filename: join(EXAMPLES_DIR, file),
		onProgress: (event) => events.push(event),
	});
	const { liveSandboxes, activeRuns, leasedWorkers } = sandboxStats();
	if (runner.running > 0 || liveSandboxes > 0 || activeRuns > 0 || leasedWorkers > 0) {
		const left = { children: runner.running, liveSandboxes, activeRuns, leasedWorkers };
		throw new Error(`${file} left things running: ${JSON.stringify(left)}`);
	}
	const calls = runner.requests.filter((request) => request.attempt === 1).sort((a, b) => a.index - b.index);
	const logs = events.filter((event): event is LogEvent => event.type === "log");
	return { result, events, calls, logs, runner };
}

/** The calls whose label matches. */
export function callsLabelled(run: ExampleRun, label: string | RegExp): WorkflowAgentRequest[] {
	return run.calls.filter((call) => matchText(label, call.label));
}

/** The one call with that label; throws when there is not exactly one. */
export function callLabelled(run: ExampleRun, label: string | RegExp): WorkflowAgentRequest {
	const found = callsLabelled(run, label);
	if (found.length !== 1) throw new Error(`expected one call labelled ${String(label)}, found ${found.length}`);
	return found[0] as WorkflowAgentRequest;
}

/** Phase names in the order they started (repeats kept). */
export function phasesStarted(run: ExampleRun): string[] {
	return run.events.flatMap((event) => (event.type === "phase_start" ? [event.phase] : []));
}

function matches(when: RouteMatch, request: WorkflowAgentRequest): boolean {
	if (when.agentType !== undefined && when.agentType !== request.agentType) return false;
	if (when.phase !== undefined && when.phase !== request.phase) return false;
	if (when.label !== undefined && !matchText(when.label, request.label)) return false;
	if (typeof when.prompt === "string" && !request.prompt.includes(when.prompt)) return false;
	if (when.prompt instanceof RegExp && !when.prompt.test(request.prompt)) return false;
	return true;
}

function matchText(pattern: string | RegExp, text: string): boolean {
	return typeof pattern === "string" ? pattern === text : pattern.test(text);
}
