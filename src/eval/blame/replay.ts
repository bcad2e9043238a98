/**
 * One replay of the failed run's script for blame: every `agent()` call answered from the two runs' journals (a
 * swapped call from the passing run's matching call), `tool()` and `ask()` from their recorded results, in the real
 * sandbox. Nothing is recorded, no child starts, no tool runs, no model is asked.
 */
import { isToolResult } from "../../host/replay-test.ts";
import type { WorkflowAgentCallRef } from "../../runtime/core/events.ts";
import type {
	JsonValue,
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowJournalEntry,
	WorkflowResolver,
	WorkflowRunResult,
	WorkflowTool,
} from "../../runtime/core/types.ts";
import { createDryAsk, dryAgentResult, RESERVED_TOOLS, runWorkflowScript } from "../../runtime/index.ts";
import type { ScriptFile } from "../spec.ts";
import type { RunAnswers } from "./answers.ts";

/** A swap to a made-up answer (a dry run's: a sample of the call's schema, or a text naming it), for blame without a passing run. */
export const DRY_ANSWER = "dry";

/** What a swapped call is answered with: the passing run's answer, or a dry run's. */
export type SwapAnswer = WorkflowJournalEntry | typeof DRY_ANSWER;

/** Where a replay's answers came from, counted over its `agent()` calls. */
export interface AnswerSources {
	/** The swapped call(s): the passing run's answer. */
	swapped: number;
	/** Unchanged calls: the failed run's answer under the same key. */
	failedByKey: number;
	/** Calls whose prompt the swap changed, the passing run having made that very call. */
	passingByKey: number;
	/** Calls whose prompt the swap changed to one neither run made: the failed run's call of that label and place. */
	failedByLabel: number;
}

/** What the two runs and the script are, for every replay of one blame. */
export interface ReplayInput {
	script: ScriptFile;
	args?: JsonValue;
	cwd: string;
	failed: RunAnswers;
	passing: RunAnswers;
	/** Keys of calls that had no answer in the failed run (their child failed): they fail again in every replay. */
	unanswered: ReadonlySet<string>;
	resolveWorkflow?: WorkflowResolver;
	signal?: AbortSignal;
}

export interface ReplayOutcome {
	result: WorkflowRunResult;
	/** The `agent()` calls the script made, in order. */
	calls: WorkflowAgentCallRef[];
	sources: AnswerSources;
	/** Calls neither run made nor has a call of their label for: what they were answered with is made up. */
	diverged: string[];
	/** Keys of calls that reached no recorded answer (in the baseline: the failed run's failed calls). */
	unanswered: string[];
	/** What the answers used cost when they ran. */
	recordedCostUsd: number;
}

/**
 * Replays with `swaps` (a failed call's key → the passing run's answer for it). `baseline`: no swap, and a call
 * without a recorded answer fails as its child did, rather than counting as a divergence.
 */
export async function replayWithSwaps(
	input: ReplayInput,
	swaps: ReadonlyMap<string, SwapAnswer>,
	baseline = false,
): Promise<ReplayOutcome> {
	const answers = new SwapAnswers(input, swaps, baseline);
	const calls = new Map<string, WorkflowAgentCallRef>();
	const stepMiss = (what: string) => answers.diverged.push(what);
	const dryAsk = createDryAsk(undefined).ask;
	const tools = replayTools(input, stepMiss);
	const result = await runWorkflowScript(input.script.source, {
		filename: input.script.filename,
		cwd: input.cwd,
		journal: { lookup: (key) => answers.lookup(key), record: async () => {} },
		agentRunner: (request) => answers.run(request),
		tools: tools.tools,
		ask: (question, context) => {
			stepMiss(`ask(${JSON.stringify(question.question)})`);
			return dryAsk(question, context);
		},
		onProgress: (event) => {
			if (event.type === "tool_started") tools.started(event.key);
			if ((event.type === "agent_finished" || event.type === "agent_failed") && !calls.has(event.key)) {
				const { key, index, label, agentType } = event;
				calls.set(key, { key, index, label, agentType, ...(event.workflow ? { workflow: event.workflow } : {}) });
			}
		},
		...(input.args !== undefined ? { args: input.args } : {}),
		...(input.resolveWorkflow ? { resolveWorkflow: input.resolveWorkflow } : {}),
		...(input.signal ? { signal: input.signal } : {}),
	});
	const { sources, diverged, unanswered, recordedCostUsd } = answers;
	const ordered = [...calls.values()].sort((a, b) => a.index - b.index);
	return { result, calls: ordered, sources, diverged, unanswered, recordedCostUsd };
}

/**
 * Where each `agent()` call of one replay gets its answer. Through the journal (by key): the swap, then the failed
 * run's own answer, then the passing run's (a prompt the swap changed). Through the runner (no key matched): a dry
 * swap, a call whose child failed in the failed run (failed again), else the failed run's call of that label.
 */
class SwapAnswers {
	readonly sources: AnswerSources = { swapped: 0, failedByKey: 0, passingByKey: 0, failedByLabel: 0 };
	readonly diverged: string[] = [];
	readonly unanswered: string[] = [];
	recordedCostUsd = 0;
	readonly #labelPositions = new Map<string, number>();

	readonly input: ReplayInput;
	readonly swaps: ReadonlyMap<string, SwapAnswer>;
	readonly baseline: boolean;

	constructor(input: ReplayInput, swaps: ReadonlyMap<string, SwapAnswer>, baseline: boolean) {
		this.input = input;
		this.swaps = swaps;
		this.baseline = baseline;
	}

	lookup(key: string): WorkflowJournalEntry | undefined {
		const { input } = this;
		const swapped = this.swaps.get(key);
		// A dry answer needs the call's schema, which only the runner's request has.
		if (swapped === DRY_ANSWER) return undefined;
		if (swapped) return this.#used(swapped, "swapped");
		const step = input.failed.step(key) ?? input.passing.step(key);
		if (step) return step;
		const failed = input.failed.agent(key);
		if (failed) return this.#used(failed.entry, "failedByKey");
		const passing = this.baseline ? undefined : input.passing.agent(key);
		return passing ? this.#used(passing.entry, "passingByKey") : undefined;
	}

	async run(request: WorkflowAgentRequest): Promise<WorkflowAgentResult> {
		if (this.swaps.get(request.key) === DRY_ANSWER) {
			// A schema call retried after its answer missed the schema is still the one swap.
			if (request.attempt === 1) this.sources.swapped++;
			return dryAgentResult(request);
		}
		if (this.baseline || this.input.unanswered.has(request.key)) {
			if (!this.unanswered.includes(request.key)) this.unanswered.push(request.key);
			return failedChild(request, "this call's child failed in the recorded run");
		}
		const position = this.#labelPositions.get(request.label) ?? 0;
		this.#labelPositions.set(request.label, position + 1);
		const answer = this.input.failed.byLabel(request.label, request.index, position);
		if (!answer) {
			this.diverged.push(request.label);
			return failedChild(request, "neither run made this call");
		}
		return answered(request, this.#used(answer.entry, "failedByLabel").value);
	}

	#used(entry: WorkflowJournalEntry, source: keyof AnswerSources): WorkflowJournalEntry {
		this.sources[source]++;
		this.recordedCostUsd += entry.cost?.usd ?? 0;
		return entry;
	}
}

function answered(request: WorkflowAgentRequest, value: JsonValue): WorkflowAgentResult {
	const text = typeof value === "string" ? value : JSON.stringify(value);
	return {
		id: `blame-${request.index}`,
		type: request.agentType,
		status: "completed",
		result: text,
		...(request.schema ? { structuredOutput: value } : {}),
		usage: { input: 0, output: 0, total: 0 },
		durationMs: 0,
	};
}

function failedChild(request: WorkflowAgentRequest, why: string): WorkflowAgentResult {
	return {
		id: `blame-${request.index}`,
		type: request.agentType,
		status: "failed",
		error: `[blame] ${why}`,
		// Retrying a recorded failure gives the same failure: the replay does not try again.
		noRetry: true,
		usage: { input: 0, output: 0, total: 0 },
		durationMs: 0,
	};
}

/**
 * A tool for every name that never runs: a `replay: false` step gets its recorded result (failed run, else passing);
 * a step neither run made is a divergence, given a marked placeholder. A Proxy: the script may name any tool.
 */
function replayTools(
	input: ReplayInput,
	miss: (what: string) => void,
): { tools: Readonly<Record<string, WorkflowTool>>; started: (key: string) => void } {
	let lastStarted: string | undefined;
	const toolFor =
		(name: string): WorkflowTool =>
		async () => {
			const entry = lastStarted ? (input.failed.step(lastStarted) ?? input.passing.step(lastStarted)) : undefined;
			if (entry?.kind === "tool" && isToolResult(entry.value)) return entry.value;
			miss(`tool(${JSON.stringify(name)})`);
			return {
				output: `[blame] tool(${JSON.stringify(name)}) did not run: neither run has its result`,
				isError: false,
			};
		};
	const available = (name: string | symbol): name is string =>
		typeof name === "string" && !RESERVED_TOOLS.includes(name);
	const tools = new Proxy({} as Record<string, WorkflowTool>, {
		get: (_target, name) => (available(name) ? toolFor(name) : undefined),
		has: (_target, name) => available(name),
		getOwnPropertyDescriptor: (_target, name) =>
			available(name) ? { value: toolFor(name), writable: false, enumerable: true, configurable: true } : undefined,
		ownKeys: () => [],
	});
	return { tools, started: (key) => (lastStarted = key) };
}
