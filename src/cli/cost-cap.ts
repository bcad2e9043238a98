/**
 * The run's cost cap on a terminal: when the run reaches it, the person is asked on stderr for a higher cap (Enter
 * stops), through the same one-prompt-at-a-time handler as `ask()`. Without a terminal nobody is asked: the run
 * stops at its cap, resumable.
 */
import { askCostCapAsText, type CostCapAsk } from "../host/cost-cap.ts";
import type { WorkflowAskHandler } from "../runtime/core/types.ts";

/** `onCostCap` for a CLI run: undefined without a terminal (no person: the run stops at its cap). */
export function createTerminalCostCap(
	input: { isTTY?: boolean } | undefined,
	ask: WorkflowAskHandler,
	say: (line: string) => void,
): CostCapAsk | undefined {
	return input?.isTTY ? askCostCapAsText(ask, (line) => say(`  ${line}`)) : undefined;
}
