/**
 * The plan of a dry run: what the script would do with real children, read from the run's progress events and from
 * what its stand-ins were asked. Plain data (the `--json` of `pi-workflows run --dry-run`); plan-text.ts prints it.
 */
import type { SerializedWorkflowError } from "../../errors.ts";
import type { WorkflowProgressEvent } from "../core/events.ts";
import type { JsonValue, WorkflowFanOutInfo, WorkflowRunResult } from "../core/types.ts";
import { valueShape } from "./shape.ts";
import type { DryAnswerSource, DryRunnerCall } from "./stand-ins.ts";

/** The phase of work done outside any `phase()`. */
export const NO_PHASE = "(no phase)";

/** In a phase's `models`: calls that name no model and take the host's default (pi's, unless `--model` names one). */
export const DEFAULT_MODEL = "default";

/** One `agent()` call the run would make: what a cost estimate needs of it. */
export interface WorkflowDryCall {
	/** 0-based order of the call in the run. */
	index: number;
	phase?: string;
	label: string;
	agentType: string;
	/** The model it names (agent file, call, tier, `meta.model`, or the host's default); absent: pi's default. */
	model?: string;
	/**
	 * How wide the fan-out it is part of is, when more than one: the width of the `parallel()`/`pipeline()` that made it
	 * (the functions or items it was given), else (calls joined with `Promise.all`) how many calls were queued together.
	 */
	fanOut?: number;
	/** The call asked for a structured answer. */
	schema?: boolean;
	/** `isolation: "worktree"`: a real run makes a worktree and a branch; the dry run makes none. */
	isolation?: "worktree";
	/** `context: "fork"`: a real child first reads the session's conversation (`WorkflowDryRunPlan.forkTokens`). */
	forks?: true;
	/** The nested workflow that makes it, when not the top-level script. */
	workflow?: string;
	/** A continued call (`resume`): how many calls of its chain came before it, whose conversation it carries. */
	carried?: number;
	/** Where the script (or the nested `workflow`'s file) calls it, 1-based: its `(`. */
	line?: number;
	column?: number;
}

/** One `tool()` step: run for real (a read-only tool, or one lent on purpose) or fenced (a placeholder answered). */
export interface WorkflowDryTool {
	index: number;
	name: string;
	label: string;
	phase?: string;
	ran: boolean;
	/** The step threw (an unknown tool, a limit): its code. */
	failed?: string;
}

/** One `ask()` question and the answer the dry run gave. */
export interface WorkflowDryQuestion {
	index: number;
	question: string;
	phase?: string;
	answer?: string;
	source?: DryAnswerSource;
}

/** A branch of the script with agent() calls that no draw of the stand-ins reached. */
export interface WorkflowDryBranch {
	/** `if`: an `if`'s consequent; `else`: its alternate; `case`: one `case` (or `default`) of a `switch`. */
	kind: "if" | "else" | "case";
	/** Where it starts in the script (its block's `{`, or the `case`), 1-based. */
	line: number;
	column: number;
	/** The agent() calls written in it. */
	agentCalls: number;
}

/** One phase, in the order the run started them. */
export interface WorkflowDryPhase {
	name: string;
	agentCalls: number;
	/** The most agents in flight together in this phase. */
	widestFanOut: number;
	agentTypes: string[];
	/** Models named, in order; `DEFAULT_MODEL` ("default") stands for calls that take the host's default model. */
	models: string[];
	toolsRun: number;
	toolsFenced: number;
	questions: number;
}

/** What `dryRunWorkflowScript` and `pi-workflows run --dry-run --json` give. */
export interface WorkflowDryRunPlan {
	dryRun: true;
	/** The script's `meta.name`. */
	workflow: string;
	/** How the dry run ended: a script that fails in its own code fails here too. */
	status: WorkflowRunResult["status"];
	error?: SerializedWorkflowError;
	/** `sampled`: none were given, so a value the `meta.args` schema accepts was made up. */
	args: "given" | "sampled" | "none";
	/** The made-up args, when `args` is `sampled`: pass them to a real run to make the same calls. */
	sampledArgs?: JsonValue;
	phases: WorkflowDryPhase[];
	calls: WorkflowDryCall[];
	tools: WorkflowDryTool[];
	questions: WorkflowDryQuestion[];
	totals: {
		agentCalls: number;
		widestFanOut: number;
		toolsRun: number;
		toolsFenced: number;
		questions: number;
		worktreeCalls: number;
	};
	/**
	 * How `tool("bash")` ran, when the host asked for the sandbox: `sandboxed` (for real, read-only, no network) or
	 * `fenced` (the machine has no sandbox: counts after a bash step may be short). Absent: fenced as any tool.
	 */
	bash?: "sandboxed" | "fenced";
	/**
	 * The first `bash` step that was fenced (not run): what it would have printed is unknown, so every count made
	 * after it is a floor. `callsBefore`: agent calls queued before it, which are exact; `phases`: the phases active at
	 * it or started after it, whose counts are floors; `line`/`column`: where the script calls it (its file's, or the
	 * nested `workflow`'s).
	 */
	fencedBash?: {
		index: number;
		label: string;
		callsBefore: number;
		phases: string[];
		line?: number;
		column?: number;
		workflow?: string;
	};
	/**
	 * When the stand-ins were drawn more than once (calls with a schema): how many draws, the range each count spans
	 * over them (in all, and agent calls per phase), the phases the script declares (`meta.phases`) or names as a
	 * literal (`phase("x")`, `agent(…, { phase: "x" })`) that no draw reached, and the `if`/`else`/`case` branches
	 * holding agent() calls none of which any draw made (the outermost such branch; where it starts, and how many
	 * calls are written in it).
	 */
	draws?: {
		count: number;
		agentCalls: { low: number; high: number };
		widestFanOut: { low: number; high: number };
		phases: Record<string, { low: number; high: number }>;
		unreached: string[];
		branches: WorkflowDryBranch[];
	};
	/** Tokens of the session's conversation each forked call (`forks`) reads first; absent when none forks. */
	forkTokens?: number;
	/**
	 * When the plan has no agent call: the value the script returned, as JSON cut to 300 characters (a script that
	 * returns early says why, "No research question provided…"), so the plan says why it is empty.
	 */
	returned?: string;
	/** When the plan has no agent call and the script reads `args`: the properties it reads that `meta.args` does not declare. */
	argsRead?: { undeclared: string[] };
	/** The shape of the value the script returned (types, not the made-up values). */
	returns?: string;
	/** Every warning the real run would give: the script's and the run's warnings, limits met, fan-outs asked about. */
	warnings: string[];
}

/** Collects a dry run's plan while it runs: `onEvent` gets every progress event, `onFanOut` the fan-out question. */
export class DryPlanRecorder {
	readonly #calls = new Map<number, WorkflowDryCall>();
	readonly #tools = new Map<number, WorkflowDryTool>();
	readonly #questions = new Map<number, WorkflowDryQuestion>();
	readonly #phases: string[] = [];
	readonly #warnings: string[] = [];
	readonly #fenced: ReadonlySet<string>;
	/** The phase the script is in: `phase()`'s last. */
	#phase: string | undefined;
	#fencedBash: WorkflowDryRunPlan["fencedBash"];
	/** Each `parallel()`/`pipeline()`'s width, by the phase it started in. */
	readonly #fanOuts: { phase: string; width: number }[] = [];
	/** Phases only `agent(…, { phase })` named, never `phase()`. */
	readonly #callNamed = new Set<string>();
	/** Calls queued since the last one ended, and whether a `parallel()`/`pipeline()` gave each its width. */
	#burst: { call: WorkflowDryCall; structural: boolean }[] = [];
	/**
	 * The last `parallel()`/`pipeline()` and how many of its calls have yet to queue: those calls take its width, which
	 * the structure says, where a burst may be cut short by an answer that came between two of its calls.
	 */
	#fan: { width: number; left: number } | undefined;

	constructor(fenced: ReadonlySet<string>) {
		this.#fenced = fenced;
	}

	onEvent(event: WorkflowProgressEvent): void {
		switch (event.type) {
			case "phase_start":
				if (!this.#phases.includes(event.phase)) this.#phases.push(event.phase);
				this.#callNamed.delete(event.phase);
				this.#phase = event.phase;
				this.#fencedBash?.phases.push(event.phase);
				return;
			case "agent_queued":
				this.#queued(event);
				return;
			case "fan_out":
				this.#fanOuts.push({ phase: event.phase ?? NO_PHASE, width: event.width });
				this.#fan = event.width > 1 ? { width: event.width, left: event.width } : undefined;
				return;
			case "agent_finished":
				this.#burst = [];
				return;
			case "agent_failed":
				this.#burst = [];
				if (event.skipped || event.thrown) this.#warnings.push(`\`${event.label}\`: ${event.error}`);
				return;
			case "log":
				if (event.level !== "info") this.#warnings.push(event.message);
				return;
			case "tool_started":
			case "tool_finished":
			case "tool_failed":
				this.#tool(event);
				return;
			case "ask_started":
			case "ask_answered":
			case "ask_failed":
				this.#questions.set(event.index, {
					...this.#questions.get(event.index),
					index: event.index,
					question: event.question,
					...(event.phase ? { phase: event.phase } : {}),
					...(event.type === "ask_answered" ? { answer: event.answer } : {}),
				});
				return;
			default:
				return;
		}
	}

	/** The fan-out question a real run in pi's TUI would put: recorded, answered yes. */
	onFanOut(info: WorkflowFanOutInfo): void {
		const what = info.kind === "pipeline" ? `\`pipeline()\` of ${info.items} items` : `\`parallel()\``;
		this.#warnings.push(
			`${what} would start ${info.agents} agents at once, over the fan-out threshold: pi's TUI asks before starting them`,
		);
	}

	#queued(event: Extract<WorkflowProgressEvent, { type: "agent_queued" }>): void {
		// A phase only calls name (`agent(…, { phase })`) takes its place in the plan where its first call came.
		if (event.phase !== undefined && !this.#phases.includes(event.phase)) {
			this.#phases.push(event.phase);
			this.#callNamed.add(event.phase);
		}
		const call: WorkflowDryCall = {
			index: event.index,
			...(event.phase ? { phase: event.phase } : {}),
			label: event.label,
			agentType: event.agentType,
			...(event.hasSchema ? { schema: true } : {}),
			...(event.workflow ? { workflow: event.workflow } : {}),
			...(event.line !== undefined && event.column !== undefined ? { line: event.line, column: event.column } : {}),
		};
		if (event.continues) call.carried = (this.#calls.get(event.continues.index)?.carried ?? 0) + 1;
		this.#calls.set(event.index, call);
		const structural = this.#fan !== undefined && this.#fan.left > 0;
		if (this.#fan && structural) {
			call.fanOut = this.#fan.width;
			this.#fan.left--;
		}
		this.#burst.push({ call, structural });
		// A call no `parallel()`/`pipeline()` made (`Promise.all` of agent() calls) is as wide as the calls queued with it.
		if (this.#burst.length > 1) {
			for (const member of this.#burst) if (!member.structural) member.call.fanOut = this.#burst.length;
		}
	}

	#tool(event: Extract<WorkflowProgressEvent, { type: "tool_started" | "tool_finished" | "tool_failed" }>): void {
		const step: WorkflowDryTool = {
			...this.#tools.get(event.index),
			index: event.index,
			name: event.name,
			label: event.label,
			...(event.phase ? { phase: event.phase } : {}),
			ran: !this.#fenced.has(event.name),
		};
		if (event.type === "tool_failed") {
			step.ran = false;
			step.failed = event.code;
			this.#warnings.push(`\`tool("${event.name}")\` (${event.label}): ${event.error}`);
		}
		this.#tools.set(event.index, step);
		if (event.type === "tool_finished" && event.name === "bash" && !step.ran && this.#fencedBash === undefined) {
			const phase = event.phase ?? this.#phase ?? NO_PHASE;
			this.#fencedBash = {
				index: event.index,
				label: event.label,
				callsBefore: this.#calls.size,
				phases: [phase],
				...(event.line !== undefined && event.column !== undefined
					? { line: event.line, column: event.column }
					: {}),
				...(event.workflow ? { workflow: event.workflow } : {}),
			};
		}
	}

	/** The plan, once the run ended. */
	finish(
		result: WorkflowRunResult,
		context: {
			runner: readonly DryRunnerCall[];
			answers: ReadonlyMap<number, DryAnswerSource>;
			args: WorkflowDryRunPlan["args"];
			sampledArgs?: JsonValue;
		},
	): WorkflowDryRunPlan {
		const byIndex = new Map(context.runner.map((call) => [call.request.index, call]));
		const calls = [...this.#calls.values()].sort((a, b) => a.index - b.index);
		for (const call of calls) {
			const asked = byIndex.get(call.index);
			if (asked?.model !== undefined) call.model = asked.model;
			if (asked?.request.isolation) call.isolation = asked.request.isolation;
			if (asked?.request.context === "fork") call.forks = true;
		}
		const tools = [...this.#tools.values()].sort((a, b) => a.index - b.index);
		const questions = [...this.#questions.values()].sort((a, b) => a.index - b.index);
		for (const question of questions) {
			const source = context.answers.get(question.index);
			if (source) question.source = source;
		}
		const phases = phasesOf(this.#phases, this.#callNamed, calls, tools, questions, this.#fanOuts);
		return {
			dryRun: true,
			workflow: result.meta?.name ?? "workflow",
			status: result.status,
			...(result.error ? { error: result.error } : {}),
			args: context.args,
			...(context.sampledArgs !== undefined ? { sampledArgs: context.sampledArgs } : {}),
			phases,
			calls,
			tools,
			questions,
			totals: {
				agentCalls: calls.length,
				widestFanOut: Math.max(
					calls.length > 0 ? 1 : 0,
					...this.#fanOuts.map((fan) => fan.width),
					...phases.map((p) => p.widestFanOut),
				),
				toolsRun: tools.filter((t) => t.ran).length,
				toolsFenced: tools.filter((t) => !t.ran).length,
				questions: questions.length,
				worktreeCalls: calls.filter((c) => c.isolation === "worktree").length,
			},
			...(this.#fencedBash
				? { fencedBash: { ...this.#fencedBash, phases: [...new Set(this.#fencedBash.phases)] } }
				: {}),
			...(result.value !== undefined ? { returns: valueShape(result.value as JsonValue) } : {}),
			...(calls.length === 0 && result.value !== undefined ? { returned: cut(JSON.stringify(result.value)) } : {}),
			warnings: folded(this.#warnings),
		};
	}
}

/** One line per distinct warning, in the order first given, with how many times when more than once: "… (×12)". */
function folded(warnings: readonly string[]): string[] {
	const counts = new Map<string, number>();
	for (const warning of warnings) counts.set(warning, (counts.get(warning) ?? 0) + 1);
	return [...counts].map(([warning, n]) => (n > 1 ? `${warning} (×${n})` : warning));
}

/** `text` cut to `max` characters, marked. */
function cut(text: string, max = 300): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The phases in the order the run first saw them (a `phase()`, or the first call that names one). A phase's widest fan-out is the widest `parallel()`/`pipeline()` started in it; a phase only calls
 * name has none of its own, so its calls are as wide as the run's widest fan-out allows, at most as many as they are.
 */
function phasesOf(
	seen: readonly string[],
	callNamed: ReadonlySet<string>,
	calls: readonly WorkflowDryCall[],
	tools: readonly WorkflowDryTool[],
	questions: readonly WorkflowDryQuestion[],
	fanOuts: readonly { phase: string; width: number }[],
): WorkflowDryPhase[] {
	const names = [...seen];
	for (const item of [...tools, ...questions]) {
		if (item.phase !== undefined && !names.includes(item.phase)) names.push(item.phase);
	}
	const unphased = [...calls, ...tools, ...questions].some((item) => item.phase === undefined);
	if (unphased) names.unshift(NO_PHASE);
	const inPhase = (name: string) => (item: { phase?: string }) => (item.phase ?? NO_PHASE) === name;
	const widest = Math.max(0, ...fanOuts.map((fan) => fan.width));
	return names.map((name) => {
		const own = calls.filter(inPhase(name));
		const steps = tools.filter(inPhase(name));
		const structural = fanOuts.filter((fan) => fan.phase === name).map((fan) => fan.width);
		return {
			name,
			agentCalls: own.length,
			widestFanOut: Math.max(
				own.length > 0 ? 1 : 0,
				...structural,
				callNamed.has(name) ? Math.min(own.length, widest) : 0,
			),
			agentTypes: [...new Set(own.map((c) => c.agentType))],
			models: [...new Set(own.map((c) => c.model ?? DEFAULT_MODEL))],
			toolsRun: steps.filter((t) => t.ran).length,
			toolsFenced: steps.filter((t) => !t.ran).length,
			questions: questions.filter(inPhase(name)).length,
		};
	});
}
