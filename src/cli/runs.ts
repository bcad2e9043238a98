/**
 * `pi-workflows runs [--json]`: this project's run records, newest first, as `/workflows` lists them, with the space
 * they take; `--prune` applies the retention rule (prune.ts).
 * `pi-workflows runs <runId> [--json]`: one run as `/workflows` shows it, and its children's conversation files.
 * `pi-workflows runs <runId> --changes [--json]`: its ledger of changes, by file and by call (src/report/changes.ts).
 */

import { childConversations, conversationsText } from "../host/child-conversations.ts";
import { deletedText } from "../host/prune-text.ts";
import { RunRegistry } from "../host/registry.ts";
import { installedLines, installedWorkflows } from "../host/verify.ts";
import { describeRun, listRunsWithUsage, usageText } from "../host/views.ts";
import { visibleText } from "../progress/visible-text.ts";
import { changesOfRecord, changesText } from "../report/index.ts";
import { createRunStore } from "../runs/index.ts";
import { type FlagSpec, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";
import { PRUNE_ONLY_FLAGS, pruneCommand, pruneRule } from "./prune.ts";

const RUNS_FLAGS: readonly FlagSpec[] = [
	{ name: "json" },
	{ name: "changes" },
	{ name: "prune" },
	{ name: "delete" },
	...PRUNE_ONLY_FLAGS.map((name) => ({ name, value: name === "keep" || name === "older-than" })),
];

export async function runsCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, RUNS_FLAGS, "runs");
	const [runId, extra] = args.positionals;
	if (extra !== undefined) throw usageError("`runs` takes at most a run id: pi-workflows runs [<runId>] [--json]");
	const store = createRunStore({ cwd: ctx.cwd, root: `${ctx.agentDir}/workflow-runs` });
	// --keep and the like without --prune are a mistake to point out, not to ignore.
	pruneRule(args);
	if (args.flags.has("prune")) {
		if (runId !== undefined)
			throw usageError(
				`\`runs --prune\` takes no run id: pi-workflows runs --prune [--dry-run]; to delete that one run: pi-workflows runs --delete ${runId}`,
			);
		return pruneCommand(args, store, ctx);
	}
	if (args.flags.has("delete")) return deleteCommand(runId, args.flags.has("json"), ctx, store);
	if (args.flags.has("changes")) {
		if (runId === undefined)
			throw usageError("`runs --changes` needs a run id: pi-workflows runs <runId> --changes [--json]");
		return showChanges(runId, args.flags.has("json"), ctx, store);
	}
	if (runId !== undefined) return showRun(runId, args.flags.has("json"), ctx, store);
	if (args.flags.has("json")) {
		ctx.stdout.write(`${JSON.stringify((await store.list()).map(withRunId), null, 2)}\n`);
		return 0;
	}
	// No live runs in this process: every run is the store's, and one held by another process says so.
	const list = await listRunsWithUsage(store, new RunRegistry());
	const rows = list.rows;
	// The workflows pi packages brought, with their source and digest: what a run of `<package>:<name>` would run.
	const installed = installedLines(installedWorkflows({ cwd: ctx.cwd, agentDir: ctx.agentDir }));
	const tail = installed.length > 0 ? `\n${visibleText(installed.join("\n"))}\n` : "";
	if (rows.length === 0) {
		ctx.stdout.write(`No workflow runs in this project yet.\n${tail}`);
		return 0;
	}
	ctx.stdout.write(
		`${rows.map((row) => row.text).join("\n")}\n${usageText(list, "pi-workflows runs --prune")}\nResume one that failed or stopped: pi-workflows resume <runId>\n${tail}`,
	);
	return 0;
}

/**
 * `runs --delete <runId>`: that run's folder, however recent or resumable (the person named it), through the store's
 * safe delete: under the run's lock, so a run another process holds is refused (\`run_busy\`, naming it).
 */
async function deleteCommand(
	runId: string | undefined,
	json: boolean,
	ctx: CliContext,
	store: ReturnType<typeof createRunStore>,
): Promise<number> {
	if (runId === undefined) {
		throw usageError("`runs --delete` needs the id of the run to delete: pi-workflows runs --delete <runId>");
	}
	const deleted = await store.delete(runId);
	ctx.stdout.write(json ? `${JSON.stringify(withRunId(deleted), null, 2)}\n` : `${deletedText(deleted)}\n`);
	return 0;
}

/** One run: what `/workflows` shows of it, then each child's conversation file (as JSON with `--json`). */
async function showRun(
	runId: string,
	json: boolean,
	ctx: CliContext,
	store: ReturnType<typeof createRunStore>,
): Promise<number> {
	const record = await store.open(runId);
	const conversations = await childConversations(record);
	if (json) {
		const summary = (await store.list()).find((candidate) => candidate.id === runId);
		const shown = summary ? withRunId(summary) : { runId };
		ctx.stdout.write(`${JSON.stringify({ ...shown, dir: record.dir, conversations }, null, 2)}\n`);
		return 0;
	}
	const text = await describeRun(store, new RunRegistry(), runId);
	// Children's labels are the script's, as the run's text is (describeRun shows it so already).
	ctx.stdout.write(`${text}\n${visibleText(conversationsText(conversations))}\n`);
	return 0;
}

/** The run's ledger: which call wrote, edited or ran what (as JSON with `--json`). */
async function showChanges(
	runId: string,
	json: boolean,
	ctx: CliContext,
	store: ReturnType<typeof createRunStore>,
): Promise<number> {
	const changes = await changesOfRecord(await store.open(runId));
	if (json) ctx.stdout.write(`${JSON.stringify(changes, null, 2)}\n`);
	// Paths, labels and commands are the children's and the script's: shown without terminal controls.
	else ctx.stdout.write(`${visibleText(changesText(changes))}\n`);
	return 0;
}

/**
 * A run as JSON with its id as \`runId\`, the name \`run --json\` and \`test --json\` use; \`id\`, the store's own
 * name, stays beside it for readers written against it.
 */
function withRunId<T extends { id: string }>(run: T): { runId: string } & T {
	return { runId: run.id, ...run };
}
