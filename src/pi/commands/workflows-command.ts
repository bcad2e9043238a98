/**
 * `/workflows`: this project's runs for people. In the TUI a selector lists them (running first); choosing one
 * shows it and, for a run of this session, offers its running children (steer, skip, restart) and to stop it.
 * Elsewhere the same list is printed as text. `/workflows steer|skip|restart …` act on a child in any mode, and
 * `/workflows answer [runId] <answer>` answers a run's open `ask()` question; `/workflows delete <runId>` and
 * `/workflows prune …` remove old records (delete-command.ts). An ended run's children's conversations are offered
 * with it, and `/workflows conversation <runId> [#child]` lists or shows them in any mode.
 */
import type { ExtensionCommandContext, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { callIndexOf, callNumber, errorMessage, WorkflowError } from "../../errors.ts";
import type { RetentionSettings } from "../../host/auto-prune.ts";
import { childConversations, conversationLabel, conversationsText } from "../../host/child-conversations.ts";
import type { RunRegistry } from "../../host/registry.ts";
import { describeRun, listRuns, listRunsWithUsage, usageText } from "../../host/views.ts";
import { formatBytes } from "../../progress/bytes-text.ts";
import { formatWorkflowProgress, type WorkflowProgressEnvelope } from "../../progress/index.ts";
import type { RunStore } from "../../runs/index.ts";
import { changesRun } from "../runs/changes-run.ts";
import { showConversation } from "../runs/conversation-view.ts";
import { questionTitle, questionWithDetails } from "../runs/questions.ts";
import { reportRun } from "../runs/report-run.ts";
import { withVisibleUi } from "../runs/visible-ui.ts";
import { chooseChildAction, isChildSubcommand, runChildSubcommand } from "./child-command.ts";
import { isRetentionSubcommand, RETENTION_VERBS, runRetentionSubcommand } from "./delete-command.ts";
import { follow } from "./follow.ts";

export const RUNS_COMMAND_NAME = "workflows";

/** What an ended run's menu offers besides the run itself and its children's conversations. */
const REPORT = "Report: write its timeline as one HTML file";
const CHANGES = "Changes: what each child wrote, edited and ran";

/** A `/workflows <word> …` verb another room supplies (`run`, `save`): it gets the words after its own. */
export type WorkflowsSubcommand = (rest: string, ctx: ExtensionCommandContext) => Promise<void>;

/** What the command needs from the extension. */
export interface WorkflowsCommandOptions {
	registry: RunRegistry;
	storeFor: (cwd: string) => RunStore;
	/** Reads the `workflows.retention` setting, for `prune` without a rule. Default: none (the store's default rule). */
	retention?: () => RetentionSettings;
	/** More verbs by their first word. Default: none. */
	subcommands?: Record<string, WorkflowsSubcommand>;
	/** Completions of what follows a verb of `subcommands` (`run <name> …`), by verb. Default: none. */
	completions?: Record<string, (rest: string) => { value: string; label: string; description?: string }[] | null>;
}

/** The command's definition for `pi.registerCommand`. */
export function createWorkflowsCommand(
	options: WorkflowsCommandOptions,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
	return {
		description:
			"Workflow runs of this project: watch, stop, resume; steer, skip or restart a running child; answer a run's question (answer [runId] <answer>); run or save a saved workflow; run an eval (eval <file|name>); delete a run or prune old ones",
		getArgumentCompletions: (prefix) => {
			const space = prefix.indexOf(" ");
			if (space >= 0) {
				const verb = prefix.slice(0, space);
				const complete = Object.hasOwn(options.completions ?? {}, verb) ? options.completions?.[verb] : undefined;
				const items = complete?.(prefix.slice(space + 1));
				return items ? items.map((item) => ({ ...item, value: `${verb} ${item.value}` })) : null;
			}
			const verbs = [
				...Object.keys(options.subcommands ?? {}),
				"answer",
				"report",
				"steer",
				"pause",
				"skip",
				"restart",
				"conversation",
				...RETENTION_VERBS,
			];
			const items = verbs
				.filter((verb) => verb.startsWith(prefix))
				.map((verb) => ({ value: `${verb} `, label: verb }));
			return items.length > 0 ? items : null;
		},
		handler: async (args, piCtx) => {
			// Everything this command shows is a run's (names, labels, questions, failures), so all of it is made visible.
			const ctx = withVisibleUi(piCtx);
			try {
				const [verb = "", ...rest] = args.trim().split(/(?<=^\S+)\s+/);
				const sub = Object.hasOwn(options.subcommands ?? {}, verb) ? options.subcommands?.[verb] : undefined;
				if (sub) await sub(rest.join(" "), ctx);
				else if (verb === "conversation") await conversationSubcommand(rest.join(" "), options, ctx);
				else if (isAnswer(args)) ctx.ui.notify(answerSubcommand(args, options.registry), "info");
				else if (verb === "report") ctx.ui.notify(await reportSubcommand(rest.join(" "), options, ctx.cwd), "info");
				else if (isChildSubcommand(args)) ctx.ui.notify(await runChildSubcommand(args, options.registry), "info");
				else if (isRetentionSubcommand(args)) {
					const store = options.storeFor(ctx.cwd);
					ctx.ui.notify(await runRetentionSubcommand(args, options.registry, store, options.retention), "info");
				} else await showRuns(options, ctx);
			} catch (error) {
				ctx.ui.notify(`/workflows: ${errorMessage(error)}`, "error");
			}
		},
	};
}

async function showRuns({ registry, storeFor }: WorkflowsCommandOptions, ctx: ExtensionCommandContext): Promise<void> {
	const store = storeFor(ctx.cwd);
	const list = await listRunsWithUsage(store, registry);
	let rows = list.rows;
	if (rows.length === 0) {
		ctx.ui.notify("No workflow runs in this project yet.", "info");
		return;
	}
	const usage = usageText(list, "/workflows prune");
	if (ctx.mode !== "tui") {
		ctx.ui.notify(`${rows.map((row) => row.text).join("\n")}\n${usage}`, "info");
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
				`Workflow runs · ${list.runs} recorded, ${formatBytes(list.bytes)} on disk (/workflows prune)`,
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
		await showEnded(store, registry, row.id, ctx);
		return;
	}
	// A run that waits for the person asks first: that is what it needs from them.
	const open = live.questions?.list()[0];
	if (open) {
		const title = questionTitle(`Run ${row.id} asks: `, open);
		const answer = open.choices
			? await ctx.ui.select(title, open.choices)
			: await ctx.ui.input(title, open.default ?? "your answer");
		if (answer === undefined) return;
		ctx.ui.notify(
			registry.answer(row.id, answer === "" && open.default !== undefined ? open.default : answer),
			"info",
		);
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

/**
 * An ended run: a menu of what it says of itself, its report, its ledger of changes, and its children's
 * conversations (when kept).
 */
async function showEnded(
	store: RunStore,
	registry: RunRegistry,
	id: string,
	ctx: ExtensionCommandContext,
): Promise<void> {
	const conversations = await childConversations(await store.open(id)).catch(() => []);
	const summary = "The run: its phases, agents and failures";
	const options = [summary, REPORT, CHANGES, ...conversations.map((c) => `Conversation: ${conversationLabel(c)}`)];
	const chosen = await ctx.ui.select(`Run ${id}`, options);
	if (chosen === undefined) return;
	if (chosen === REPORT) {
		ctx.ui.notify(await reportRun(store, id), "info");
		return;
	}
	if (chosen === CHANGES) {
		ctx.ui.notify(await changesRun(store, id), "info");
		return;
	}
	const conversation = conversations[options.indexOf(chosen) - 3];
	if (conversation) await showConversation(ctx, conversation);
	else ctx.ui.notify(await describeRun(store, registry, id), "info");
}

/**
 * `conversation <runId> [#child | children/<file>]`: the run's conversation files, or one of them (a call's last
 * session when a call is named). Throws `child_not_found` for a child that kept none.
 */
async function conversationSubcommand(
	rest: string,
	{ storeFor }: WorkflowsCommandOptions,
	ctx: ExtensionCommandContext,
): Promise<void> {
	const [runId, child] = rest.trim().split(/\s+/);
	if (!runId) {
		throw new WorkflowError(
			"run_not_found",
			"`conversation` needs a run id: /workflows conversation <runId> [#child]. /workflows lists the runs",
		);
	}
	const conversations = await childConversations(await storeFor(ctx.cwd).open(runId));
	if (!child) {
		ctx.ui.notify(`Run ${runId}\n${conversationsText(conversations)}`, "info");
		return;
	}
	const index = callIndexOf(child);
	const found = conversations.find((c) => c.path === child) ?? conversations.filter((c) => c.index === index).at(-1);
	if (!found) {
		const kept = conversations.map((c) => `${callNumber(c.index)} ${c.label}`);
		throw new WorkflowError(
			"child_not_found",
			`Run ${runId} kept no conversation for \`${child}\`. Kept: ${kept.length > 0 ? [...new Set(kept)].join(", ") : "none"}`,
			{ details: { runId, child } },
		);
	}
	await showConversation(ctx, found);
}

/** `report <runId>`: writes the run's HTML report and says where. */
async function reportSubcommand(rest: string, options: WorkflowsCommandOptions, cwd: string): Promise<string> {
	const runId = rest.trim();
	if (runId === "") return "Which run? /workflows report <runId> (/workflows lists them)";
	return reportRun(options.storeFor(cwd), runId);
}

const ANSWER = /^\s*answer(?:\s+|$)/;

function isAnswer(args: string): boolean {
	return ANSWER.test(args);
}

/** `answer [runId] <answer>`: the rest of the line is the answer, spaces and all. */
function answerSubcommand(args: string, registry: RunRegistry): string {
	const rest = args.replace(ANSWER, "");
	const first = /^(\S+)\s*(.*)$/s.exec(rest);
	const named = first?.[1] !== undefined && registry.get(first[1]) ? first[1] : undefined;
	const answer = named !== undefined ? (first?.[2] ?? "") : rest;
	if (answer.trim() === "") {
		const waiting = registry
			.list()
			.flatMap((run) => (run.questions?.list() ?? []).map((q) => `${run.id}: ${questionWithDetails(q)}`));
		return waiting.length === 0
			? "No workflow run of this session is waiting for an answer"
			: `Waiting for an answer:\n${waiting.join("\n")}\nAnswer with /workflows answer [runId] <answer>`;
	}
	return registry.answer(named, answer);
}

/** What the stop confirmation shows of a run, less its clocks: the phase and each call's state. */
function progressSignature(envelope: WorkflowProgressEnvelope): string {
	const calls = envelope.agentCalls.map((call) => `${call.index}:${call.status}:${call.activity ?? ""}`);
	return `${envelope.currentPhase ?? ""} ${calls.join(" ")}`;
}
