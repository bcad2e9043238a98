/**
 * The question a person is asked in pi (the TUI, or a front end over RPC) when a run reaches its dollar cap: what
 * it spent of the cap and, when known, what the rest may cost; raise the cap to one of the offered amounts or one
 * typed in, or stop. The run is parked meanwhile (no new child starts).
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { askCostCapAsText, type CostCapAsk, costCapQuestion, parseCap, suggestedCaps } from "../host/cost-cap.ts";
import { visibleUi } from "../pi/runs/visible-ui.ts";
import type { WorkflowAskHandler } from "../runtime/core/types.ts";
import { usdText } from "../runtime/index.ts";

const ANOTHER = "Raise it to another amount…";
const STOP = "Stop here (the run stays resumable)";

/**
 * `onCostCap` for a run in a session with dialogs: a select (and an input for another amount) for a blocking run; for
 * a background run, whose dialogs must not block the session, a pending question through the run's `ask` handler,
 * answered with `/workflows answer`. Undefined in print and JSON modes: no one is asked, and the run stops at its
 * cap, resumable.
 */
export function piCostCap(ctx: ExtensionContext, background: boolean, ask: WorkflowAskHandler): CostCapAsk | undefined {
	if (!ctx.hasUI) return undefined;
	if (background) return askCostCapAsText(ask, (line) => visibleUi(ctx.ui).notify(line, "warning"));
	return async (info) => {
		const { title, message } = costCapQuestion(info);
		const caps = suggestedCaps(info);
		const raises = caps.map((cap) => `Raise the cap to ${usdText(cap)}`);
		const ui = visibleUi(ctx.ui);
		const picked = await ui.select(`${title}. ${message}`, [...raises, ANOTHER, STOP], { signal: info.signal });
		if (picked === undefined || picked === STOP) return undefined;
		const offered = raises.indexOf(picked);
		if (offered >= 0) return caps[offered];
		for (;;) {
			const typed = await ui.input(
				`New cap for workflow ${info.workflow}, in US dollars above ${usdText(info.spentUsd)} (empty: stop)`,
				caps[0] !== undefined ? usdText(caps[0]) : "",
				{ signal: info.signal },
			);
			if (typed === undefined || typed.trim() === "") return undefined;
			const cap = parseCap(typed, info.spentUsd);
			if (cap !== undefined) return cap;
			ui.notify(`"${typed.trim()}" is not a dollar amount above ${usdText(info.spentUsd)}`, "warning");
		}
	};
}
