/**
 * What a dry run hands the script in place of the world: an agent runner that answers every call without a model
 * (`dryAgentResult`), tools that run only when they cannot change anything, and an `ask()` handler that answers as a
 * person who takes the defaults would. Each remembers what it did, for the plan.
 */
import type {
	WorkflowAgentRequest,
	WorkflowAgentRunner,
	WorkflowAskHandler,
	WorkflowQuestion,
	WorkflowTool,
} from "../core/types.ts";
import { type DryDraw, dryAgentResult, TYPICAL_DRAW } from "./answer.ts";
import { confinedTool } from "./confine.ts";

/** Tools that only read: a dry run runs them for real, so a script that lists files fans out as it will. */
export const READ_ONLY_TOOLS: readonly string[] = ["read", "ls", "grep", "find"];

/** The agent call as the plan keeps it: what the runner was asked, and the model it names. */
export interface DryRunnerCall {
	request: WorkflowAgentRequest;
	/** The model the call would run on, as far as it can be named without pi; absent: the host's default. */
	model?: string;
}

/**
 * A runner that answers every first attempt with `dryAgentResult`. The answer waits until no call has been queued
 * for a millisecond, so every call a `parallel()` starts is queued before the first is answered (the plan reads
 * fan-outs so), even when the sandbox's messages reach the host in several batches on a busy machine.
 */
export function createDryRunner(
	modelOf?: (request: WorkflowAgentRequest) => string | undefined,
	draw: DryDraw = TYPICAL_DRAW,
): {
	runner: WorkflowAgentRunner;
	calls: DryRunnerCall[];
} {
	const calls: DryRunnerCall[] = [];
	let queued = 0;
	const runner: WorkflowAgentRunner = async (request) => {
		queued++;
		if (request.attempt === 1) {
			const model = (modelOf ?? namedModel)(request);
			calls.push({ request, ...(model !== undefined ? { model } : {}) });
		}
		let before: number;
		do {
			before = queued;
			await new Promise((resolve) => setTimeout(resolve, 1));
		} while (queued !== before);
		return dryAgentResult(request, draw);
	};
	return { runner, calls };
}

/** The model a request names itself: the call's `model`, its `tier`, else the script's `meta.model`. */
export function namedModel(request: WorkflowAgentRequest): string | undefined {
	if (request.model !== undefined) return request.model;
	if (request.tier !== undefined) return `tier ${request.tier}`;
	return request.defaultModel;
}

/** The text a fenced tool gives the script; `details.dryRun` marks it. */
export function fencedToolOutput(name: string): string {
	return `[dry run] ${name} was not run`;
}

/**
 * The tools of a dry run: the host's read-only ones and those it lends on purpose run for real, the read-only ones
 * confined to the project (`cwd`); `bash`, where the host has it or `fence` names it, is `sandboxedBash` when there is
 * one (the real run's may write, this one cannot); every other tool the host has, and each name in `fence`, gives a marked
 * placeholder. Returns the names that were fenced too.
 */
export function dryTools(
	host: Readonly<Record<string, WorkflowTool>>,
	lend: readonly string[],
	fence: readonly string[],
	cwd: string,
	sandboxedBash?: WorkflowTool,
): { tools: Record<string, WorkflowTool>; fenced: Set<string> } {
	const tools: Record<string, WorkflowTool> = {};
	const fenced = new Set<string>();
	for (const name of new Set([...Object.keys(host), ...fence])) {
		if (name === "bash" && sandboxedBash) {
			tools[name] = sandboxedBash;
			continue;
		}
		const real = Object.hasOwn(host, name) ? host[name] : undefined;
		if (real && READ_ONLY_TOOLS.includes(name)) {
			tools[name] = confinedTool(name, real, cwd);
			continue;
		}
		if (real && lend.includes(name)) {
			tools[name] = real;
			continue;
		}
		fenced.add(name);
		tools[name] = async () => ({ output: fencedToolOutput(name), isError: false, details: { dryRun: true } });
	}
	return { tools, fenced };
}

/** Where a dry run's answer to an `ask()` came from. */
export type DryAnswerSource = "given" | "default" | "first choice" | "placeholder";

/** Answers given for a dry run's questions: by question text, or in the order the script asks. */
export type DryAnswers = Readonly<Record<string, string>> | readonly string[];

/**
 * An `ask()` handler that answers at once: the answer given for the question (by its text, or by its place in
 * order), else its default, else its first choice, else a placeholder text that names it.
 */
export function createDryAsk(answers: DryAnswers | undefined): {
	ask: WorkflowAskHandler;
	sources: Map<number, DryAnswerSource>;
} {
	const sources = new Map<number, DryAnswerSource>();
	const ask: WorkflowAskHandler = (question: WorkflowQuestion) => {
		const { answer, source } = dryAnswer(question, answers);
		sources.set(question.index, source);
		return answer;
	};
	return { ask, sources };
}

function dryAnswer(
	question: WorkflowQuestion,
	answers: DryAnswers | undefined,
): { answer: string; source: DryAnswerSource } {
	const given = Array.isArray(answers)
		? (answers as readonly string[])[question.index]
		: answers && Object.hasOwn(answers, question.question)
			? (answers as Record<string, string>)[question.question]
			: undefined;
	if (given !== undefined) return { answer: given, source: "given" };
	if (question.default !== undefined) return { answer: question.default, source: "default" };
	const first = question.choices?.[0];
	if (first !== undefined) return { answer: first, source: "first choice" };
	return { answer: `[dry run] answer to question #${question.index + 1}`, source: "placeholder" };
}
