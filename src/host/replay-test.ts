/**
 * Testing a script against a run that happened: the current script runs with every `agent()`, `tool()` and `ask()`
 * answered from the run's journal (read only: nothing is recorded, no child starts, no tool runs, zero tokens). A
 * call the journal has no entry for is a divergence, answered as in a dry run and explained as a resume's miss is
 * (the nearest recorded call and what differs); a recorded call the script no longer makes is one too.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, type SerializedWorkflowError, WorkflowError } from "../errors.ts";
import type { ToolStartedEvent } from "../runtime/core/events.ts";
import { stableJson } from "../runtime/core/json.ts";
import type {
	JsonValue,
	WorkflowAgentRequest,
	WorkflowJournal,
	WorkflowJournalEntry,
	WorkflowQuestion,
	WorkflowResolver,
	WorkflowRunResult,
	WorkflowTool,
} from "../runtime/core/types.ts";
import {
	createDryAsk,
	dryAgentResult,
	RESERVED_TOOLS,
	type ReplaySchemaMiss,
	runWorkflowScript,
} from "../runtime/index.ts";
import { loadRunCassette, type ReplayCassette } from "./cassette.ts";
import {
	explainAgentMiss,
	explainAskMiss,
	explainToolMiss,
	kindOf,
	Recorded,
	type ReplayDivergence,
} from "./replay-divergence.ts";

export type { ReplayDivergence } from "./replay-divergence.ts";

/** Options of `testWorkflowAgainstRun`: the script (`source` + `filename`, or `path`) and the run (`runId` or `cassette`). */
export interface ReplayTestOptions {
	/** The script's text. With it, `filename` names it in positions. */
	source?: string;
	/** The script's file name for positions. Default: `path`, else `workflow.js`. */
	filename?: string;
	/** The script's file, read when `source` is not given (relative to `cwd`). */
	path?: string;
	/** The run to test against, from the project's run store. */
	runId?: string;
	/** Or what was kept of it (`loadRunCassette`, or a `.cassette.json` file's contents). */
	cassette?: ReplayCassette;
	/** The project: its run store, and the script's working directory. */
	cwd: string;
	/** Where run records live. Default: `<agentDir>/workflow-runs` (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
	runsRoot?: string;
	/** The script's args. Default: the recorded run's. */
	args?: JsonValue;
	/** Accept any value the script completes with. Default: false (it must be the recorded value). */
	anyValue?: boolean;
	/** Finds the scripts `workflow(name)` runs. Default: none (a nested workflow fails as with no resolver). */
	resolveWorkflow?: WorkflowResolver;
	/** Agent types the static pass accepts. Default: any. */
	agentTypes?: readonly string[];
	signal?: AbortSignal;
}

/** A recorded call the script did not make (and no divergence names as its nearest). */
export interface UnusedRecordedCall {
	kind: "agent" | "tool" | "ask";
	key: string;
	label?: string;
	/** Its 0-based index in the recorded run, when the journal line says. */
	index?: number;
}

/** What `testWorkflowAgainstRun` found. */
export interface ReplayTestReport {
	/** Every call matched, no recorded call was left unmade, and the script completed with the recorded value (or any, with `anyValue`). */
	ok: boolean;
	/** The recorded run's id. */
	runId: string;
	/** How the script ended under test. */
	status: WorkflowRunResult["status"];
	error?: SerializedWorkflowError;
	/** Calls answered from the recorded run. */
	matched: number;
	divergences: ReplayDivergence[];
	unusedRecorded: UnusedRecordedCall[];
	value?: JsonValue;
	recordedValue?: JsonValue;
	/** How the recorded run ended. */
	recordedStatus: ReplayCassette["status"];
	/** The script completed, as the recorded run did, with the same value (compared as canonical JSON). */
	valueMatches: boolean;
	anyValue: boolean;
	/** Journal lines of the recorded run that could not be read: their calls show as divergences. */
	unreadable?: string[];
	/**
	 * `tool()` steps made with `replay: false` (a gate) answered from the recorded run: a resume runs them again, a
	 * test runs nothing.
	 */
	noReplaySteps: number;
}

/**
 * Runs the script with every `agent()`, `tool()` and `ask()` answered from a recorded run's journal, and reports
 * each call that has no answer there, each recorded call it no longer makes, and whether it ended with the recorded
 * value. Nothing runs for real (no child, no tool, no model, no credentials) and the recorded run is not written to.
 */
export async function testWorkflowAgainstRun(options: ReplayTestOptions): Promise<ReplayTestReport> {
	const script = scriptOf(options);
	const cassette =
		options.cassette ??
		(options.runId !== undefined
			? await loadRunCassette({
					cwd: options.cwd,
					runId: options.runId,
					...(options.runsRoot ? { runsRoot: options.runsRoot } : {}),
				})
			: undefined);
	if (!cassette) throw new TypeError("testWorkflowAgainstRun needs `runId` or `cassette`");
	const recorded = new Recorded(cassette.journal);
	const misses = new Misses();
	// A question the recorded run has no answer for is answered as a dry run answers it.
	const dryAsk = createDryAsk(undefined).ask;
	const args = options.args !== undefined ? options.args : cassette.args;
	const result = await runWorkflowScript(script.source, {
		filename: script.filename,
		cwd: options.cwd,
		journal: readOnlyJournal(recorded),
		agentRunner: async (request) => {
			misses.agent(request);
			return dryAgentResult(request);
		},
		tools: replayTools(recorded, misses),
		ask: (question, context) => {
			misses.ask(question);
			return dryAsk(question, context);
		},
		onProgress: (event) => {
			if (event.type === "tool_started") misses.toolStarted(event);
			if (event.type === "log") misses.log(event.data);
		},
		...(args !== undefined ? { args } : {}),
		...(options.resolveWorkflow ? { resolveWorkflow: options.resolveWorkflow } : {}),
		...(options.agentTypes ? { agentTypes: options.agentTypes } : {}),
		...(options.signal ? { signal: options.signal } : {}),
	});
	return reportOf(cassette, recorded, misses, result, options.anyValue === true);
}

function reportOf(
	cassette: ReplayCassette,
	recorded: Recorded,
	misses: Misses,
	result: WorkflowRunResult,
	anyValue: boolean,
): ReplayTestReport {
	// After the run, so a miss is paired with a recorded call no later call matched.
	const divergences = misses.calls.map((miss) =>
		miss.kind === "agent"
			? explainAgentMiss(recorded, miss.request, misses.schemaErrors(miss.request.key))
			: miss.kind === "tool"
				? explainToolMiss(recorded, miss.ref)
				: explainAskMiss(recorded, miss.question),
	);
	const unusedRecorded = recorded.unused().map((entry) => unusedCall(entry));
	const completed = result.status === "completed";
	const valueMatches =
		completed &&
		cassette.status === "completed" &&
		stableJson(result.value ?? null) === stableJson(cassette.value ?? null);
	return {
		ok: divergences.length === 0 && unusedRecorded.length === 0 && completed && (anyValue || valueMatches),
		runId: cassette.runId,
		status: result.status,
		...(result.error ? { error: result.error } : {}),
		matched: recorded.hits - divergences.filter((d) => recorded.get(d.key) !== undefined).length,
		divergences,
		unusedRecorded,
		...(result.value !== undefined ? { value: result.value } : {}),
		...(cassette.value !== undefined ? { recordedValue: cassette.value } : {}),
		recordedStatus: cassette.status,
		valueMatches,
		anyValue,
		...(cassette.unreadable?.length ? { unreadable: cassette.unreadable } : {}),
		noReplaySteps: misses.noReplaySteps,
	};
}

function unusedCall(entry: WorkflowJournalEntry): UnusedRecordedCall {
	const index = (entry.identity as { index?: unknown } | undefined)?.index;
	return {
		kind: kindOf(entry),
		key: entry.key,
		...(typeof entry.label === "string" ? { label: entry.label } : {}),
		...(typeof index === "number" ? { index } : {}),
	};
}

function scriptOf(options: ReplayTestOptions): { source: string; filename: string } {
	if (options.source !== undefined) {
		return { source: options.source, filename: options.filename ?? options.path ?? "workflow.js" };
	}
	if (options.path === undefined) throw new TypeError("testWorkflowAgainstRun needs `source` or `path`");
	const path = resolve(options.cwd, options.path);
	try {
		return { source: readFileSync(path, "utf8"), filename: options.filename ?? path };
	} catch (error) {
		throw new WorkflowError(
			"workflow_not_found",
			`Cannot read the workflow ${path} (${errorMessage(error)}). Name a script file that exists`,
			{ details: { path } },
		);
	}
}

/** The recorded journal as the runtime reads it: lookups are noted, records go nowhere (the run stays as it was). */
function readOnlyJournal(recorded: Recorded): WorkflowJournal {
	return {
		lookup: (key) => recorded.lookup(key),
		record: async () => {},
	};
}

/**
 * A tool for every name that never runs: a `replay: false` call the recorded run made gets its recorded result
 * (a test, unlike a resume, runs nothing);
 * any other call reaching it missed the journal, and gets a marked placeholder. A Proxy, because the script may
 * call a tool the recorded run never lent.
 */
function replayTools(recorded: Recorded, misses: Misses): Readonly<Record<string, WorkflowTool>> {
	const toolFor =
		(name: string): WorkflowTool =>
		async () => {
			// tool_started is emitted just before the host's tool is called: it names this call.
			const ref = misses.lastToolStarted;
			const entry = ref ? recorded.lookup(ref.key) : undefined;
			if (ref && entry?.kind === "tool" && isToolResult(entry.value)) {
				// Only a `replay: false` step reaches the host with a recorded result: the runtime replays the rest.
				misses.noReplaySteps++;
				return entry.value;
			}
			if (ref) misses.tool(ref);
			return {
				output: `[replay test] tool(${JSON.stringify(name)}) did not run: the recorded run has no result for this call`,
				isError: false,
			};
		};
	const available = (name: string | symbol): name is string =>
		typeof name === "string" && !RESERVED_TOOLS.includes(name);
	return new Proxy({} as Record<string, WorkflowTool>, {
		get: (_target, name) => (available(name) ? toolFor(name) : undefined),
		has: (_target, name) => available(name),
		getOwnPropertyDescriptor: (_target, name) =>
			available(name) ? { value: toolFor(name), writable: false, enumerable: true, configurable: true } : undefined,
		ownKeys: () => [],
	});
}

/** A journal's recorded `tool()` answer: what a replay hands back as the tool's result. */
export function isToolResult(value: JsonValue): value is { output: string; isError: boolean } {
	return (
		typeof value === "object" &&
		value !== null &&
		!Array.isArray(value) &&
		typeof value.output === "string" &&
		typeof value.isError === "boolean"
	);
}

type Miss =
	| { kind: "agent"; request: WorkflowAgentRequest }
	| { kind: "tool"; ref: ToolStartedEvent }
	| { kind: "ask"; question: WorkflowQuestion };

/** The calls that reached the host (the journal had no answer), once each, in the order they were made. */
class Misses {
	readonly calls: Miss[] = [];
	lastToolStarted: ToolStartedEvent | undefined;
	/** `replay: false` steps answered from the recorded run. */
	noReplaySteps = 0;
	readonly #seen = new Set<string>();
	readonly #schemaErrors = new Map<string, string>();

	agent(request: WorkflowAgentRequest): void {
		// A schema call whose made-up answer missed its schema is tried again: one divergence still.
		if (this.#first(`agent:${request.key}`)) this.calls.push({ kind: "agent", request });
	}

	tool(ref: ToolStartedEvent): void {
		if (this.#first(`tool:${ref.key}`)) this.calls.push({ kind: "tool", ref });
	}

	toolStarted(event: ToolStartedEvent): void {
		this.lastToolStarted = event;
	}

	/** A log line's data: the runtime's word that a recorded answer broke its call's schema (so the call ran). */
	log(data: JsonValue | undefined): void {
		const miss = (data as Partial<ReplaySchemaMiss> | undefined)?.replaySchemaMiss;
		if (miss && typeof miss.key === "string" && typeof miss.errors === "string") {
			this.#schemaErrors.set(miss.key, miss.errors);
		}
	}

	/** What the recorded answer of `key` broke in its schema, when that is why the call missed. */
	schemaErrors(key: string): string | undefined {
		return this.#schemaErrors.get(key);
	}

	ask(question: WorkflowQuestion): void {
		if (this.#first(`ask:${question.key}`)) this.calls.push({ kind: "ask", question });
	}

	#first(id: string): boolean {
		if (this.#seen.has(id)) return false;
		this.#seen.add(id);
		return true;
	}
}
