/**
 * The run's cost cap on a terminal: when the run reaches it, the person is asked on stderr for a higher cap (Enter
 * stops), through the same one-prompt-at-a-time handler as `ask()`. Without a terminal nobody is asked: the run
 * stops at its cap, resumable.
 */
import { type CostCapAsk, costCapQuestion, parseCap, suggestedCaps } from "../host/cost-cap.ts";
import { usdText } from "../runtime/core/cost.ts";
import type { WorkflowAskHandler } from "../runtime/core/types.ts";

/** The answer that stops the run (also what an empty line gives). */
const STOP = "stop";

/** `onCostCap` for a CLI run: undefined without a terminal (no person: the run stops at its cap). */
export function createTerminalCostCap(
	input: { isTTY?: boolean } | undefined,
	ask: WorkflowAskHandler,
	say: (line: string) => void,
): CostCapAsk | undefined {
	if (!input?.isTTY) return undefined;
	return async (info) => {
		const { title, message } = costCapQuestion(info);
		const suggested = suggestedCaps(info).map((cap) => usdText(cap));
		const examples = suggested.length > 0 ? ` such as ${suggested.join(" or ")}` : "";
		const question = `${title}. ${message}\n  New cap in US dollars${examples}, or Enter to stop`;
		for (let index = 0; ; index++) {
			const answer = await ask(
				{ key: `cost-cap#${index}`, index, question, default: STOP },
				{ signal: info.signal },
			);
			if (answer === undefined || answer.trim().toLowerCase() === STOP) return undefined;
			const cap = parseCap(answer, info.spentUsd);
			if (cap !== undefined) return cap;
			say(`  "${answer.trim()}" is not a dollar amount above ${usdText(info.spentUsd)}; type one, or Enter to stop`);
		}
	};
}
