/**
 * The per-child half of `/workflows`: the subcommands `steer`, `pause`, `skip` and `restart` (typed, so they work
 * in every mode), and the TUI menu of a live run's running and queued children that leads to the same actions.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { ChildAction } from "../../children/controls.ts";
import { callNumber, WorkflowError } from "../../errors.ts";
import type { LiveRun, RunRegistry } from "../../host/registry.ts";
import type { WorkflowProgressAgentCall } from "../../progress/envelope.ts";
import { idleText } from "../../progress/format.ts";
import { follow } from "./follow.ts";

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
 * its actions (a message is asked for with an input). The menu follows the run: drawn again when its children
 * change, closed when the run ends. Resolves with what was done, "stop" when the person chose to stop the run,
 * "ended" when the run ended while a dialog was open, or undefined when they backed out.
 */
export async function chooseChildAction(
	run: LiveRun,
	registry: RunRegistry,
	ctx: ExtensionCommandContext,
): Promise<string | "stop" | "ended" | undefined> {
	const STOP = "Stop the run";
	let children: WorkflowProgressAgentCall[] = [];
	let rows: string[] = [];
	const menu = await follow(
		(signal) => {
			children = menuChildren(run);
			rows = children.map((call) => childRow(call, Date.now()));
			return ctx.ui.select(`Run ${run.id}`, [STOP, ...rows], { signal });
		},
		// Idle times move every second; the menu is drawn again only when a child starts, ends or changes state.
		{
			ended: run.settled,
			signature: () =>
				menuChildren(run)
					.map((call) => childRow(call))
					.join("\n"),
		},
	);
	if (menu.kind === "ended") return "ended";
	if (menu.answer === STOP) return "stop";
	const call = children[rows.indexOf(menu.answer ?? "")];
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
	const picked = await follow(
		(signal) => ctx.ui.select(`${callNumber(call.index)} ${call.label}`, Object.values(labels), { signal }),
		{ ended: run.settled },
	);
	if (picked.kind === "ended") return "ended";
	const action = ACTIONS.find((candidate) => labels[candidate] === picked.answer);
	if (!action) return undefined;
	let text: string | undefined;
	if (action === "steer") {
		const typed = await follow(
			(signal) =>
				ctx.ui.input(`Message for ${callNumber(call.index)} ${call.label}`, "what the child should know or do", {
					signal,
				}),
			{ ended: run.settled },
		);
		if (typed.kind === "ended") return "ended";
		text = typed.answer;
		if (!text?.trim()) return undefined;
	}
	return registry.controlChild(run.id, callNumber(call.index), action, text);
}

/** The run's calls a person can act on: running and queued ones that a child answers (not replayed ones). */
function menuChildren(run: LiveRun): WorkflowProgressAgentCall[] {
	return run
		.envelope()
		.agentCalls.filter((call) => !call.cached && (call.status === "running" || call.status === "queued"));
}

/** "#1 fix auth · quiet, idle 20.0s"; without `now`, no idle time (what the menu's signature compares). */
function childRow(call: WorkflowProgressAgentCall, now?: number): string {
	const state = call.status === "queued" ? "queued" : (call.activity ?? "running");
	const idle = now !== undefined ? idleText(call, now) : undefined;
	return `${callNumber(call.index)} ${call.label} · ${state}${idle ? `, ${idle}` : ""}`;
}
