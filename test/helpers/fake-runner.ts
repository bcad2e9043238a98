/**
 * A deterministic `WorkflowAgentRunner` for runtime tests: scripted answers, delays and failures, a record of every
 * request, and counters that show concurrency and whether any call is left running.
 */
import type {
	WorkflowAgentRequest,
	WorkflowAgentResult,
	WorkflowAgentRunner,
	WorkflowProviderLimit,
} from "../../src/runtime/index.ts";

/** What the script of a fake child says for one request. */
export type FakeAnswer =
	| string
	| {
			text?: string;
			structured?: unknown;
			fail?: string;
			/** Fail because the provider asked to wait (the result carries `providerLimit`). */
			limit?: WorkflowProviderLimit;
			/** Resolve after this many ms (abort-aware). */
			delayMs?: number;
			/** Never resolve unless aborted. */
			hang?: boolean;
			tokens?: number;
			toolUses?: number;
			/** What the child's replies cost, in US dollars (as a runner reads it from its provider). */
			costUsd?: number;
			/** Replies with no known price. */
			unpriced?: number;
			/** The model the child ran on. */
			model?: string;
	  };

export interface FakeRunner {
	runner: WorkflowAgentRunner;
	requests: WorkflowAgentRequest[];
	/** Calls running right now. */
	readonly running: number;
	/** Most calls that ran at once. */
	readonly maxRunning: number;
	/** Calls that saw their signal abort. */
	readonly aborted: number;
}

/** Answers every request with `answer(request)`; default answer echoes the prompt. */
export function createFakeRunner(
	answer: (request: WorkflowAgentRequest) => FakeAnswer = (r) => `done: ${r.prompt}`,
): FakeRunner {
	const requests: WorkflowAgentRequest[] = [];
	let running = 0;
	let maxRunning = 0;
	let aborted = 0;
	let nextId = 0;
	const runner: WorkflowAgentRunner = async (request, { signal }) => {
		requests.push(request);
		running++;
		maxRunning = Math.max(maxRunning, running);
		const id = `fake-${nextId++}`;
		try {
			const scripted = answer(request);
			const spec = typeof scripted === "string" ? { text: scripted } : scripted;
			if (spec.hang || spec.delayMs !== undefined) {
				const stopped = await wait(spec.hang ? undefined : spec.delayMs, signal);
				if (stopped) {
					aborted++;
					return { id, type: request.agentType, status: "stopped", error: "aborted" };
				}
			}
			const tokens = spec.tokens ?? 10;
			const usage = { input: tokens / 2, output: tokens / 2, total: tokens };
			const spent: Pick<WorkflowAgentResult, "cost" | "model"> = {
				...(spec.costUsd !== undefined || spec.unpriced !== undefined
					? { cost: { usd: spec.costUsd ?? 0, ...(spec.unpriced ? { unpriced: spec.unpriced } : {}) } }
					: {}),
				...(spec.model !== undefined ? { model: spec.model } : {}),
			};
			if (spec.limit !== undefined) {
				return {
					id,
					type: request.agentType,
					status: "failed",
					error: spec.limit.message,
					providerLimit: spec.limit,
					usage,
					...spent,
				};
			}
			if (spec.fail !== undefined) {
				return { id, type: request.agentType, status: "failed", error: spec.fail, usage, ...spent };
			}
			const result: WorkflowAgentResult = {
				id,
				type: request.agentType,
				status: "completed",
				result: spec.text ?? (spec.structured !== undefined ? JSON.stringify(spec.structured) : ""),
				usage,
				...spent,
				toolUses: spec.toolUses ?? 0,
			};
			if (spec.structured !== undefined) result.structuredOutput = spec.structured;
			return result;
		} finally {
			running--;
		}
	};
	return {
		runner,
		requests,
		get running() {
			return running;
		},
		get maxRunning() {
			return maxRunning;
		},
		get aborted() {
			return aborted;
		},
	};
}

/** Resolves true when aborted, false when the delay passed (never, for undefined). */
function wait(ms: number | undefined, signal: AbortSignal): Promise<boolean> {
	if (signal.aborted) return Promise.resolve(true);
	return new Promise((resolve) => {
		const timer = ms === undefined ? undefined : setTimeout(() => done(false), ms);
		const onAbort = () => done(true);
		function done(abortedNow: boolean) {
			if (timer) clearTimeout(timer);
			signal.removeEventListener("abort", onAbort);
			resolve(abortedNow);
		}
		signal.addEventListener("abort", onAbort, { once: true });
	});
}

/** A minimal valid header, so each test varies one thing. */
export const HEADER = `export const meta = { name: "t", description: "test workflow" };\n`;
