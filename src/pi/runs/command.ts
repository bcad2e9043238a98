/**
 * `/workflows`: this project's runs for people. In the TUI a selector lists them (running first); choosing one
 * shows it and, for a run of this session, offers its running children (steer, skip, restart) and to stop it.
 * Elsewhere the same list is printed as text. `/workflows steer|skip|restart …` act on a child in any mode.
 */
import type { ExtensionCommandContext, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../../errors.ts";
import { formatWorkflowProgress, type WorkflowProgressEnvelope } from "../../progress/index.ts";
import type { RunStore } from "../../runs/index.ts";
import { chooseChildAction, isChildSubcommand, runChildSubcommand } from "./child-command.ts";
import { follow } from "./follow.ts";
import type { RunRegistry } from "./registry.ts";
import { describeRun, listRuns } from "./views.ts";

export const RUNS_COMMAND_NAME = "workflows";

/** What the command needs from the extension. */
export interface WorkflowsCommandOptions {
	registry: RunRegistry;
	storeFor: (cwd: string) => RunStore;
}

/** The command's definition for `pi.registerCommand`. */
export function createWorkflowsCommand(
	options: WorkflowsCommandOptions,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
	return {
		description: "Workflow runs of this project: watch, stop, resume; steer, skip or restart a running child",
		handler: async (args, ctx) => {
			try {
				if (isChildSubcommand(args)) ctx.ui.notify(await runChildSubcommand(args, options.registry), "info");
				else await showRuns(options, ctx);
			} catch (error) {
				ctx.ui.notify(`/workflows: ${errorMessage(error)}`, "error");
			}
		},
	};
}

async function showRuns({ registry, storeFor }: WorkflowsCommandOptions, ctx: ExtensionCommandContext): Promise<void> {
	const store = storeFor(ctx.cwd);
	let rows = await listRuns(store, registry);
	if (rows.length === 0) {
		ctx.ui.notify("No workflow runs in this project yet.", "info");
		return;
	}
	if (ctx.mode !== "tui") {
		ctx.ui.notify(rows.map((row) => row.text).join("\n"), "info");
		return;
	}
	// The list follows the session's live runs: one that ends while it is open moves to the ended ones.
	const liveIds = () =>
		registry
			.list()
			.map((run) => run.id)
			.join(" ");
	let first = true;
	const listed = await follow(
		async (signal) => {
			if (!first) rows = await listRuns(store, registry);
			first = false;
			return ctx.ui.select(
				"Workflow runs",
				rows.map((row) => row.text),
				{ signal },
			);
		},
		{ signature: liveIds },
	);
	const row = listed.kind === "answer" ? rows.find((candidate) => candidate.text === listed.answer) : undefined;
	if (!row) return;
	const live = registry.get(row.id);
	if (!live) {
		ctx.ui.notify(await describeRun(store, registry, row.id), "info");
		return;
	}
	const ended = async () =>
		ctx.ui.notify(
			`Run ${row.id} ended while this menu was open.\n${await describeRun(store, registry, row.id)}`,
			"info",
		);
	// A run with children to steer gets a menu first; stopping the whole run stays one choice away.
	const hasChildren = live.children && live.envelope().agentCalls.some((call) => call.status === "running");
	if (hasChildren) {
		const done = await chooseChildAction(live, registry, ctx);
		if (done === undefined) return;
		if (done === "ended") return ended();
		if (done !== "stop") {
			ctx.ui.notify(done, "info");
			return;
		}
	}
	// The person answers with Yes or No: the tool call that stops a run is for the model, not for this dialog.
	const confirmed = await follow(
		(signal) =>
			ctx.ui.confirm(`Stop run ${row.id}?`, formatWorkflowProgress(live.envelope(), { now: Date.now() }), {
				signal,
			}),
		{ ended: live.settled, signature: () => progressSignature(live.envelope()) },
	);
	if (confirmed.kind === "ended") return ended();
	if (confirmed.answer) {
		live.stop("Stopped from /workflows");
		await live.settled;
		ctx.ui.notify(await describeRun(store, registry, row.id), "info");
	}
}

/** What the stop confirmation shows of a run, less its clocks: the phase and each call's state. */
function progressSignature(envelope: WorkflowProgressEnvelope): string {
	const calls = envelope.agentCalls.map((call) => `${call.index}:${call.status}:${call.activity ?? ""}`);
	return `${envelope.currentPhase ?? ""} ${calls.join(" ")}`;
}
