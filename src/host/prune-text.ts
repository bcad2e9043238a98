/**
 * What a prune or a delete did, as text for `pi-workflows runs --prune` and `/workflows prune|delete`. Pi-free: the
 * CLI uses it as it is.
 */
import { formatBytes } from "../progress/bytes-text.ts";
import { type DeletedRun, type PruneResult, RESUMABLE_DAYS, type RetentionRule } from "../runs/index.ts";

/** Rows listed per part; the rest are counted. */
const SHOWN = 20;

/** How the words of a host name the options: `--all` on the command line, `all` in `/workflows prune`. */
export interface PruneWords {
	/** How to let recent resumable runs go too. */
	all: string;
	/** How to delete one run, by its id (`<runId>` in it). */
	deleteOne: string;
	/** How to delete every run but running ones. */
	everything: string;
}

/** The rule in words: "keeping the newest 50 and everything from the last 30 days". */
export function ruleText(rule: RetentionRule): string {
	const parts = [
		...(rule.keep !== undefined ? [`the newest ${rule.keep}`] : []),
		...(rule.olderThanDays !== undefined
			? [`everything from the last ${rule.olderThanDays} ${rule.olderThanDays === 1 ? "day" : "days"}`]
			: []),
	];
	return parts.length === 0 ? "keeping nothing by count or age" : `keeping ${parts.join(" and ")}`;
}

/** The whole report of one prune. */
export function pruneText(result: PruneResult, words: PruneWords): string {
	const rule = result.rule;
	const lines: string[] = [];
	const count = (n: number) => `${n} ${n === 1 ? "run" : "runs"}`;
	// `all` reads as "every run": say it is the recent resumable ones, and how to delete one run or every run.
	const all = rule.all
		? `; ${words.all} lets resumable runs from the last ${RESUMABLE_DAYS} days go too, not every run`
		: "";
	if (result.deleted.length === 0) {
		lines.push(`Nothing to prune (${ruleText(rule)}${all}).`);
		if (rule.all) lines.push(`To delete one run: ${words.deleteOne}; every run: ${words.everything}.`);
	} else {
		lines.push(
			result.dryRun
				? `Would delete ${count(result.deleted.length)}, ${formatBytes(result.bytes)} (dry run: nothing was deleted; ${ruleText(rule)}${all}):`
				: `Deleted ${count(result.deleted.length)}, ${formatBytes(result.bytes)} (${ruleText(rule)}${all}):`,
		);
		for (const run of result.deleted.slice(0, SHOWN)) {
			lines.push(
				`  ${run.id} · ${run.name ?? "?"} · ${run.status} · started ${run.createdAt.slice(0, 10)} · ${formatBytes(run.bytes)}`,
			);
		}
		if (result.deleted.length > SHOWN) lines.push(`  … and ${result.deleted.length - SHOWN} more`);
	}
	if (result.kept.length > 0) {
		lines.push("Kept although the rule would let them go:");
		for (const run of result.kept.slice(0, SHOWN)) lines.push(`  ${run.id} · ${run.why}`);
		if (result.kept.length > SHOWN) lines.push(`  … and ${result.kept.length - SHOWN} more`);
		if (result.kept.some((run) => run.reason === "resumable")) {
			lines.push(`  Resumable runs stay a week; ${words.all} lets them go too (a running one never goes).`);
		}
	}
	if (result.failed.length > 0) {
		lines.push("Could not delete:");
		for (const run of result.failed) lines.push(`  ${run.id}: ${run.error}`);
	}
	if (result.deferred > 0) lines.push(`${count(result.deferred)} more left for the next prune.`);
	lines.push(
		`${result.dryRun ? "Would keep" : "Kept"}: ${count(result.remaining.runs)}, ${formatBytes(result.remaining.bytes)}.`,
	);
	return lines.join("\n");
}

/** One run deleted. */
export function deletedText(deleted: DeletedRun): string {
	return `Deleted run ${deleted.id} (${formatBytes(deleted.bytes)}).`;
}
