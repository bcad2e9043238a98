/**
 * `/workflows delete <runId>` and `/workflows prune [dry-run] [keep <n>] [older-than <days>] [all]`: the retention
 * verbs of `/workflows`. A run of this session that is still running is refused here, saying how to stop it; one
 * held by another process is refused by the store (`run_busy`), which names that process.
 */
import { WorkflowError } from "../../errors.ts";
import type { RetentionSettings } from "../../host/auto-prune.ts";
import { deletedText, pruneText } from "../../host/prune-text.ts";
import type { RunRegistry } from "../../host/registry.ts";
import type { RetentionRule, RunStore } from "../../runs/index.ts";

/** The verbs this file answers. */
export const RETENTION_VERBS = ["delete", "prune"] as const;

/** True when `/workflows <args>` is one of the retention verbs. */
export function isRetentionSubcommand(args: string): boolean {
	return (RETENTION_VERBS as readonly string[]).includes(args.trim().split(/\s+/)[0] ?? "");
}

/**
 * Runs `delete <runId>` or `prune …` and resolves with what was done, in words; throws what a person must fix.
 * `retention` reads the `workflows.retention` setting, whose rule a `prune` without `keep`/`older-than` applies.
 */
export async function runRetentionSubcommand(
	args: string,
	registry: RunRegistry,
	store: RunStore,
	retention?: () => RetentionSettings,
): Promise<string> {
	const [verb, ...words] = args.trim().split(/\s+/);
	if (verb === "delete") return deleteSubcommand(words, registry, store);
	return pruneSubcommand(words, store, retention);
}

async function deleteSubcommand(words: string[], registry: RunRegistry, store: RunStore): Promise<string> {
	const [runId, ...extra] = words;
	if (runId === undefined || extra.length > 0) {
		throw new WorkflowError(
			"run_id_invalid",
			"`delete` takes one run id: /workflows delete <runId> (/workflows lists the runs and their ids)",
		);
	}
	if (registry.get(runId)) {
		throw new WorkflowError(
			"run_busy",
			`Run \`${runId}\` is running in this session: a live run is never deleted. Stop it first (/workflows → the run → stop it, or workflow_runs({ action: "stop", runId: "${runId}" })), then delete it`,
			{ details: { runId } },
		);
	}
	return deletedText(await store.delete(runId));
}

const PRUNE_USAGE = "/workflows prune [dry-run] [keep <n>] [older-than <days>] [all]";

async function pruneSubcommand(
	words: string[],
	store: RunStore,
	retention: (() => RetentionSettings) | undefined,
): Promise<string> {
	const rule: RetentionRule = {};
	let dryRun = false;
	let all = false;
	for (let i = 0; i < words.length; i++) {
		const word = (words[i] ?? "").replace(/^--/, "");
		if (word === "dry-run") dryRun = true;
		else if (word === "all") all = true;
		else if (word === "keep" || word === "older-than") {
			const text = words[++i] ?? "";
			if (!/^\d+$/.test(text)) {
				throw new WorkflowError("cli_usage", `\`${word}\` needs a whole number, got "${text}": ${PRUNE_USAGE}`);
			}
			if (word === "keep") rule.keep = Number(text);
			else rule.olderThanDays = Number(text);
		} else throw new WorkflowError("cli_usage", `\`prune\` has no option \`${word}\`: ${PRUNE_USAGE}`);
	}
	// Neither criterion given: the setting's rule, as the automatic prune applies it (the store's default without one).
	// A setting that cannot be read deletes nothing: its rule might delete what it was set to keep.
	const setting = rule.keep === undefined && rule.olderThanDays === undefined ? retention?.() : undefined;
	if (setting && setting.problems.length > 0) {
		throw new WorkflowError(
			"cli_usage",
			`${setting.problems.join("; ")}: nothing was pruned. Fix the setting in pi's settings.json, or say the rule: /workflows prune keep <n> older-than <days>`,
		);
	}
	if (setting) Object.assign(rule, setting.rule);
	const result = await store.prune({ ...rule, ...(all ? { all } : {}) }, { dryRun });
	return pruneText(result, {
		all: "/workflows prune all",
		deleteOne: "/workflows delete <runId>",
		everything: "/workflows prune keep 0 all",
	});
}
