/**
 * A run's dollar cap as its record keeps it, and the question a person is asked at it, as pi's TUI and the CLI on a
 * terminal both put it. The cap is the run's total, for all its sessions, wherever it is given (`--max-cost`,
 * `maxCostUsd`, the question's raise): a resume that gives none keeps the record's; one that gives a higher total
 * goes on; either way what earlier sessions spent counts, so the same total starts nothing.
 */
import type { SerializedWorkflowError } from "../errors.ts";
import { usdText } from "../runtime/core/cost.ts";
import type { WorkflowAskHandler, WorkflowBudgetOptions, WorkflowCostCapInfo } from "../runtime/core/types.ts";
import type { DurableRun } from "./durable-run.ts";

/** The handler a front end gives `runWorkflowScript` as `onCostCap`. */
export type CostCapAsk = (info: WorkflowCostCapInfo) => Promise<number | undefined>;

/**
 * The run's cap and earlier spend for `runWorkflowScript`'s `budget`, recorded for the next resume. `given` is what
 * the caller asked for now (`--max-cost`, `maxCostUsd`): the run's total cap, earlier sessions' spend included.
 * Without it, the record's cap holds, else `fallback` (a session's default cap).
 */
export function recordedCostBudget(
	durable: DurableRun,
	given: number | undefined,
	fallback?: number,
): Pick<WorkflowBudgetOptions, "costUsd" | "priorCostUsd"> {
	const earlier = durable.earlierSpend;
	const cap = given ?? earlier.capUsd ?? fallback;
	durable.setCostCap(cap);
	return {
		...(cap !== undefined ? { costUsd: cap } : {}),
		...(earlier.usd > 0 ? { priorCostUsd: earlier.usd } : {}),
	};
}

/** `ask` with every raise kept in the run's record, so a resume holds at the raised cap. */
export function recordRaises(durable: DurableRun, ask: CostCapAsk): CostCapAsk {
	return async (info) => {
		const cap = await ask(info);
		if (typeof cap === "number" && Number.isFinite(cap) && cap > info.spentUsd) durable.setCostCap(cap);
		return cap;
	};
}

/** "Spent $1.20 of the $1.00 cap; about $0.80 more to finish (estimate)." and what the person may do. */
export function costCapQuestion(info: WorkflowCostCapInfo): { title: string; message: string } {
	const unknown = info.unpriced ? ` (and ${info.unpriced} replies of models with no known price)` : "";
	const estimate =
		info.estimateMoreUsd !== undefined
			? `; about ${usdText(info.estimateMoreUsd)} more to finish (estimate)`
			: "; what the rest costs is not known";
	return {
		title: `Workflow ${info.workflow} reached its cost cap`,
		message: `Spent ${usdText(info.spentUsd)}${unknown} of the ${usdText(info.capUsd)} cap${estimate}. No new agent starts until you answer; agents already running finish. Raise the cap to go on where the run is, or stop (the run stays resumable).`,
	};
}

/** Caps to offer: enough for the estimate (and a fifth more), when there is one, and double the cap or the spend. */
export function suggestedCaps(info: WorkflowCostCapInfo): number[] {
	const candidates = [
		...(info.estimateMoreUsd !== undefined ? [info.spentUsd + info.estimateMoreUsd * 1.2] : []),
		// Running children may have taken the spend well past the cap.
		Math.max(info.capUsd, info.spentUsd) * 2,
	];
	const caps = candidates.map(roundUp).filter((cap) => cap > info.spentUsd);
	return [...new Set(caps)].sort((a, b) => a - b);
}

/**
 * The total cap a resume of a run stopped at its cap (`cost_cap`) needs to start anything: double the cap or the
 * spend, as the question offers. Undefined for any other ending, or a record without the figures.
 */
export function capToResume(error: SerializedWorkflowError | undefined): number | undefined {
	if (error?.code !== "cost_cap") return undefined;
	const { limit, spent } = error.details ?? {};
	if (typeof limit !== "number" || typeof spent !== "number") return undefined;
	return roundUp(Math.max(limit, spent) * 2);
}

/**
 * The \`workflow\` call that resumes run \`id\`: after its cap, with the higher total it needs (the same one would
 * start nothing).
 */
export function resumeCall(id: string, error: SerializedWorkflowError | undefined): string {
	const cap = capToResume(error);
	return cap === undefined
		? `workflow({ resume: "${id}" })`
		: `workflow({ resume: "${id}", maxCostUsd: ${dollarsArgument(cap)} }) (maxCostUsd is the run's total cap)`;
}

/** An amount as a command line takes it: "0.00006", never "6e-5". */
export function dollarsArgument(usd: number): string {
	const text = String(usd);
	return text.includes("e") ? usd.toFixed(12).replace(/\.?0+$/, "") : text;
}

/** A dollar amount a person typed ("2", "$2.50"), when it is one above `spentUsd`. */
export function parseCap(text: string, spentUsd: number): number | undefined {
	const trimmed = text.trim();
	if (!/^\$?\d+(\.\d+)?$/.test(trimmed)) return undefined;
	const value = Number(trimmed.replace(/^\$/, ""));
	return Number.isFinite(value) && value > spentUsd ? value : undefined;
}

/** Up to two significant digits, never down: $0.0123 → $0.013, $1.234 → $1.3, $12.3 → $13. */
function roundUp(usd: number): number {
	if (!(usd > 0)) return 0;
	const step = 10 ** (Math.floor(Math.log10(usd)) - 1);
	return Number((Math.ceil(usd / step - 1e-9) * step).toPrecision(2));
}

/** The answer that stops the run when the cap is asked for as text (also what an empty answer gives). */
const STOP = "stop";

/**
 * `onCostCap` over a front end's text questions (`ask()`'s handler: the CLI's terminal prompt, a pi background run's
 * pending question): a typed amount above what was spent raises the cap, "stop" or nothing stops; anything else is
 * said with `say` and asked again.
 */
export function askCostCapAsText(ask: WorkflowAskHandler, say: (line: string) => void): CostCapAsk {
	return async (info) => {
		const { title, message } = costCapQuestion(info);
		const suggested = suggestedCaps(info).map((cap) => usdText(cap));
		const examples = suggested.length > 0 ? ` such as ${suggested.join(" or ")}` : "";
		const question = `${title}. ${message}\n  New cap in US dollars${examples}, or "stop"`;
		for (let index = 0; ; index++) {
			const asked = { key: `cost-cap#${index}`, index, question, default: STOP };
			const answer = await ask(asked, { signal: info.signal });
			if (answer === undefined || answer.trim().toLowerCase() === STOP) return undefined;
			const cap = parseCap(answer, info.spentUsd);
			if (cap !== undefined) return cap;
			say(`"${answer.trim()}" is not a dollar amount above ${usdText(info.spentUsd)}; give one, or stop`);
		}
	};
}
