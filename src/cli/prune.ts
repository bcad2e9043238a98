/**
 * `pi-workflows runs --prune [--dry-run] [--keep <n>] [--older-than <days>] [--all] [--json]`: applies the retention
 * rule to this project's run records. Without `--keep` and `--older-than` the rule of pi's `workflows.retention`
 * setting (project `.pi/settings.json` over `<agentDir>/settings.json`), else the default (the newest 50 and the
 * last 30 days kept); with either flag, that criterion alone; with both, a run goes only past both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readRetentionSettings } from "../host/auto-prune.ts";
import { pruneText } from "../host/prune-text.ts";
import type { RetentionRule, RunStore } from "../runs/index.ts";
import { integerFlag, type ParsedArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

/** The flags only `--prune` takes. */
export const PRUNE_ONLY_FLAGS = ["dry-run", "keep", "older-than", "all"] as const;

/** Prunes; exit code 1 when a run could not be deleted. */
export async function pruneCommand(args: ParsedArgs, store: RunStore, ctx: CliContext): Promise<number> {
	const flags = pruneRule(args);
	const named = flags.keep !== undefined || flags.olderThanDays !== undefined;
	const rule = named ? flags : { ...settingRule(ctx), ...flags };
	const result = await store.prune(rule, { dryRun: args.flags.has("dry-run") });
	if (args.flags.has("json")) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
	else
		ctx.stdout.write(
			`${pruneText(result, {
				all: "--all",
				deleteOne: "pi-workflows runs --delete <runId>",
				everything: "pi-workflows runs --prune --keep 0 --all",
			})}\n`,
		);
	return result.failed.length > 0 ? 1 : 0;
}

/**
 * The rule of the `workflows.retention` setting when no flag gives one: what pi prunes at session start is what the
 * command prunes. A setting it cannot read is an error, not the default: that rule might delete what it was set to keep.
 */
function settingRule(ctx: CliContext): RetentionRule {
	const value = retentionSetting(ctx.cwd, ctx.agentDir);
	if (value === undefined) return {};
	const setting = readRetentionSettings({ workflows: { retention: value } });
	if (setting.problems.length > 0) {
		throw usageError(
			`${setting.problems.join("; ")}: nothing was pruned. Fix the setting, or say the rule with --keep <n> and --older-than <days>`,
		);
	}
	return setting.rule;
}

/** `workflows.retention` of the project's settings file, else the global one's; undefined when neither sets it. */
function retentionSetting(cwd: string, agentDir: string): unknown {
	for (const file of [join(cwd, ".pi", "settings.json"), join(agentDir, "settings.json")]) {
		let settings: { workflows?: { retention?: unknown } } | undefined;
		try {
			settings = JSON.parse(readFileSync(file, "utf8"));
		} catch {
			// No file, or one pi itself will say is broken: it sets nothing here.
			continue;
		}
		const value = settings?.workflows?.retention;
		if (value !== undefined) return value;
	}
	return undefined;
}

/** The rule the flags give. */
export function pruneRule(args: ParsedArgs): RetentionRule {
	if (!args.flags.has("prune")) {
		const stray = PRUNE_ONLY_FLAGS.find((name) => args.flags.has(name));
		if (stray)
			throw usageError(
				`--${stray} goes with --prune: pi-workflows runs --prune --${stray}${stray === "keep" ? " 20" : stray === "older-than" ? " 14" : ""}`,
			);
	}
	const keep = integerFlag(args, "keep", 0, 1_000_000);
	const olderThanDays = integerFlag(args, "older-than", 0, 100_000);
	return {
		...(keep !== undefined ? { keep } : {}),
		...(olderThanDays !== undefined ? { olderThanDays } : {}),
		...(args.flags.has("all") ? { all: true } : {}),
	};
}
