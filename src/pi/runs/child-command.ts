/**
 * The per-child half of `/workflows`: the subcommands `steer`, `pause`, `skip` and `restart` (typed, so they work
 * in every mode), and the TUI menu of a live run's running and queued children that leads to the same actions.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { WorkflowError } from "../../errors.ts";
import { idleText } from "../../progress/format.ts";
import type { ChildAction } from "../children/controls.ts";
import type { LiveRun, RunRegistry } from "./registry.ts";

/** How the subcommands are typed, for messages. */
export const CHILD_USAGE =
	"/workflows steer [runId] <child> <message> · /workflows pause|skip|restart [runId] <child> " +
	'(child: its number #3, key, or label, quoted for steer: "fix db"; runId may be left out while one run is live)';

const ACTIONS: readonly ChildAction[] = ["steer", "pause", "skip", "restart"];

/** True when `args` starts with a per-child subcommand. */
export function isChildSubcommand(args: string): boolean {
	return (ACTIONS as readonly string[]).includes(args.trim().split(/\s+/)[0] ?? "");
}

/**
 * Runs `steer|pause|skip|restart [runId] <child> [message]` and resolves with what was done, in words. Throws
 * `run_not_found` (no such live run, or several and none named), the registry's child errors, or
 * `child_not_found` for a subcommand without a child.
 */
export async function runChildSubcommand(args: string, registry: RunRegistry): Promise<string> {
	const words = args.trim().split(/\s+/);
	const action = words.shift() as ChildAction;
	const live = registry.list();
	let runId: string | undefined;
	if (words[0] !== undefined && registry.get(words[0])) runId = words.shift();
	else if (live.length === 1) runId = live[0]?.id;
	if (!runId) {
		const ids = live.map((run) => run.id);
		throw new WorkflowError(
			"run_not_found",
			ids.length === 0
				? "No workflow run is running in this session"
				: `Several runs are live (${ids.join(", ")}): name one, as in /workflows ${action} <runId> <child>`,
			{ details: { running: ids } },
		);
	}
	const rest = words.join(" ");
	// A quoted child is a label with spaces; unquoted, skip and restart take the rest of the line, steer one word.
	const quoted = /^(["'])(.*?)\1\s*(.*)$/s.exec(rest);
	const [child, text] = quoted
		? [quoted[2], quoted[3]]
		: action === "steer"
			? [words[0], words.slice(1).join(" ")]
			: [rest, undefined];
	if (!child) throw new WorkflowError("child_not_found", `\`${action}\` needs a child. ${CHILD_USAGE}`);
	return registry.controlChild(runId, child, action, text);
}

/**
 * The TUI menu of a live run: "Stop the run" first, then one entry per running or queued child; a child leads to
 * its actions (a message is asked for with an input). Resolves with what was done, "stop" when the person chose
 * to stop the run, or undefined when they backed out.
 */
export async function chooseChildAction(
	run: LiveRun,
	registry: RunRegistry,
	ctx: ExtensionCommandContext,
): Promise<string | "stop" | undefined> {
	const now = Date.now();
	const children = run
		.envelope()
		.agentCalls.filter((call) => !call.cached && (call.status === "running" || call.status === "queued"));
	const STOP = "Stop the run";
	const rows = children.map((call) => {
		const state = call.status === "queued" ? "queued" : (call.activity ?? "running");
		const idle = idleText(call, now);
		return `#${call.index} ${call.label} · ${state}${idle ? `, ${idle}` : ""}`;
	});
	const chosen = await ctx.ui.select(`Run ${run.id}`, [STOP, ...rows]);
	if (chosen === STOP) return "stop";
	const call = children[rows.indexOf(chosen ?? "")];
	if (!call) return undefined;
	const labels: Record<ChildAction, string> = {
		steer:
			call.activity === "paused"
				? "Send it a message (it goes on with it)"
				: "Send it a message (read at its next turn)",
		pause: "Pause it (stop its turn; it waits for a message)",
		skip: "Skip it (its agent() gives null)",
		restart: "Restart it (a fresh attempt)",
	};
	const picked = await ctx.ui.select(`#${call.index} ${call.label}`, Object.values(labels));
	const action = ACTIONS.find((candidate) => labels[candidate] === picked);
	if (!action) return undefined;
	let text: string | undefined;
	if (action === "steer") {
		text = await ctx.ui.input(`Message for #${call.index} ${call.label}`, "what the child should know or do");
		if (!text?.trim()) return undefined;
	}
	return registry.controlChild(run.id, `#${call.index}`, action, text);
}
