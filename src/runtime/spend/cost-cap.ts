/**
 * The run's dollar cap as a gate every child passes before it starts. Under the cap it passes at once. At the cap
 * the run parks: no child starts, children already running finish and count, and the host's `onCostCap` asks a
 * person for a higher cap (one question for the whole run, however many calls wait). A raise lets the waiting
 * calls start where the run was; a stop, a failed question or no one to ask stops the run `stopped` (code
 * `cost_cap`) with its finished calls kept, so it can be resumed. The script never gets this as an error to handle:
 * phase budgets and token totals are the script's own, and they throw `budget_exhausted` into it.
 */
import { errorMessage, WorkflowError } from "../../errors.ts";
import { untilAborted } from "../core/abort-watch.ts";
import { usdText } from "../core/cost.ts";
import { emitLog, type RunContext } from "../core/run-context.ts";
import type { WorkflowCostCapInfo } from "../core/types.ts";

/** The host's question: a higher cap to go on, undefined to stop. */
export type CostCapHandler = (info: WorkflowCostCapInfo) => Promise<number | undefined>;

/** One run's cap gate. Made by run.ts; nested workflows share it with their run. */
export class CostCapGate {
	readonly #ask: CostCapHandler | undefined;
	readonly #stop: (reason: WorkflowError) => void;
	readonly #workflow: () => string;
	/** The question in progress, which every call that reaches the cap meanwhile waits for. */
	#deciding: Promise<void> | undefined;
	/** The run's children running now: a stop waits for them, since what they cost is spent already. */
	#running = 0;
	#idle: (() => void)[] = [];

	constructor(options: { ask?: CostCapHandler; stop: (reason: WorkflowError) => void; workflow: () => string }) {
		this.#ask = options.ask;
		this.#stop = options.stop;
		this.#workflow = options.workflow;
	}

	/** Resolves when a child may start; rejects with the run's reason once the run is stopped (at the cap or not). */
	async pass(run: RunContext): Promise<void> {
		while (run.budget.costCapReached) {
			if (run.signal.aborted) throw run.signal.reason;
			this.#deciding ??= this.#decide(run).finally(() => {
				this.#deciding = undefined;
			});
			await untilAborted(this.#deciding, run.signal);
		}
		if (run.signal.aborted) throw run.signal.reason;
	}

	/** A child of the run starts; call the function it returns when it ends. */
	childStarted(): () => void {
		this.#running++;
		let ended = false;
		return () => {
			if (ended) return;
			ended = true;
			this.#running--;
			if (this.#running === 0) for (const wake of this.#idle.splice(0)) wake();
		};
	}

	/** Stops the run once its running children ended, so what they cost is not thrown away. */
	async #stopWhenIdle(run: RunContext, reason: () => WorkflowError): Promise<void> {
		// Said at once: until the running children end, nothing may read as still waiting for a raise.
		const { totalCostUsd, costLimitUsd } = run.budget;
		run.emit({ type: "cost_cap", state: "stopped", spentUsd: totalCostUsd, capUsd: costLimitUsd ?? 0 });
		while (this.#running > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
		this.#stop(reason());
	}

	/** Asks for a higher cap and raises it, or stops the run. Never rejects. */
	async #decide(run: RunContext): Promise<void> {
		const { budget } = run;
		const cap = budget.costLimitUsd ?? 0;
		const spent = budget.totalCostUsd;
		const ask = this.#ask;
		if (!ask) {
			await this.#stopWhenIdle(run, () => costCapStop(run, "no one is here to raise it"));
			return;
		}
		run.emit({ type: "cost_cap", state: "parked", spentUsd: spent, capUsd: cap });
		emitLog(run, {
			level: "warn",
			message: `Cost cap reached: ${usdText(spent)} of ${usdText(cap)} spent. No new agent starts until the cap is raised; agents already running finish`,
		});
		let answer: number | undefined;
		try {
			answer = await ask(info(run, this.#workflow(), spent, cap));
		} catch (error) {
			await this.#stopWhenIdle(run, () =>
				costCapStop(run, `the question could not be asked (${errorMessage(error)})`),
			);
			return;
		}
		if (run.signal.aborted) return;
		if (answer === undefined) {
			await this.#stopWhenIdle(run, () => costCapStop(run, "the person chose to stop"));
			return;
		}
		const now = budget.totalCostUsd;
		if (typeof answer !== "number" || !Number.isFinite(answer) || !(answer > now)) {
			await this.#stopWhenIdle(run, () =>
				costCapStop(run, `the new cap (${String(answer)}) is not a dollar amount above ${usdText(now)}`),
			);
			return;
		}
		budget.raiseCostCap(answer);
		run.emit({ type: "cost_cap", state: "raised", spentUsd: budget.totalCostUsd, capUsd: answer });
		emitLog(run, { level: "info", message: `Cost cap raised to ${usdText(answer)}: the run goes on` });
	}
}

function info(run: RunContext, workflow: string, spentUsd: number, capUsd: number): WorkflowCostCapInfo {
	const { counts } = run.census;
	const unpriced = run.budget.costSpent.unpriced;
	return {
		workflow,
		spentUsd,
		capUsd,
		...(unpriced ? { unpriced } : {}),
		agentsRun: Math.max(0, counts.completed + counts.failed - (counts.replayed ?? 0)),
		signal: run.signal,
	};
}

/** `cost_cap`: what was spent of which cap, why the run stopped there, and how to go on. */
export function costCapStop(run: RunContext, why: string): WorkflowError {
	const spent = run.budget.totalCostUsd;
	const cap = run.budget.costLimitUsd ?? 0;
	return new WorkflowError(
		"cost_cap",
		`Stopped at the run's cost cap: ${usdText(spent)} of ${usdText(cap)} spent, and ${why}. Every finished agent is kept: resume the run with a higher cap, the run's total for all its sessions (the \`workflow\` tool's \`maxCostUsd\`, \`pi-workflows resume --max-cost\`, \`budget.costUsd\`; the same total starts nothing), and its finished calls replay at no cost`,
		{ details: { limit: cap, spent, unit: "usd" } },
	);
}
