/**
 * The question a person is asked in pi's TUI before one `parallel()`/`pipeline()` call starts many agents: how
 * many, what the run spent so far and per agent, and what that many more would cost at that rate.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { WorkflowFanOutInfo } from "../../runtime/core/types.ts";
import { spentSoFar, usdText } from "../../runtime/index.ts";
import { visibleUi } from "../runs/visible-ui.ts";

/** Title and text of the dialog. */
export function fanOutQuestion(info: WorkflowFanOutInfo): { title: string; message: string } {
	const what =
		info.kind === "pipeline"
			? `pipeline() with ${info.items} items (up to ${info.agents} agents)`
			: `parallel() with ${info.items} items`;
	const estimate =
		info.averageUsd !== undefined
			? ` At that rate ${info.agents} more cost about ${usdText(info.averageUsd * info.agents)}.`
			: "";
	const cap = info.costLimitUsd !== undefined ? ` The run's cap is ${usdText(info.costLimitUsd)}.` : "";
	return {
		title: `Workflow ${info.workflow}: start ${info.agents} agents?`,
		message: `It is about to start ${what}. So far: ${spentSoFar(info)}.${estimate}${cap} Yes goes on (you are not asked again in this run); No stops the workflow here, with its finished calls saved.`,
	};
}

/** `confirmFanOut` for a run started in pi's TUI; undefined elsewhere (print, JSON and RPC modes never ask). */
export function tuiFanOutConfirm(ctx: ExtensionContext): ((info: WorkflowFanOutInfo) => Promise<boolean>) | undefined {
	if (ctx.mode !== "tui" || !ctx.hasUI) return undefined;
	return (info) => {
		const { title, message } = fanOutQuestion(info);
		// The title names the script's workflow as it wrote it.
		return visibleUi(ctx.ui).confirm(title, message, { signal: info.signal });
	};
}
