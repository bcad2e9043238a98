/**
 * `pi-workflows runs --prune [--dry-run] [--keep <n>] [--older-than <days>] [--all] [--json]`: applies the retention
 * rule to this project's run records. Without `--keep` and `--older-than` the default rule (the newest 50 and the
 * last 30 days kept); with either, that criterion alone; with both, a run goes only past both.
 */
import { pruneText } from "../pi/runs/prune-text.ts";
import type { RetentionRule, RunStore } from "../runs/index.ts";
import { integerFlag, type ParsedArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

/** The flags only `--prune` takes. */
export const PRUNE_ONLY_FLAGS = ["dry-run", "keep", "older-than", "all"] as const;

/** Prunes; exit code 1 when a run could not be deleted. */
export async function pruneCommand(args: ParsedArgs, store: RunStore, ctx: CliContext): Promise<number> {
	const rule = pruneRule(args);
	const result = await store.prune(rule, { dryRun: args.flags.has("dry-run") });
	if (args.flags.has("json")) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
	else ctx.stdout.write(`${pruneText(result, { all: "--all" })}\n`);
	return result.failed.length > 0 ? 1 : 0;
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
