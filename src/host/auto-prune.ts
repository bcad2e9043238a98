/**
 * The automatic prune: when a pi session starts, the project's run records past the retention rule go, in the
 * background (nothing waits for it, and it never touches a live run: the store takes each run's lock before it
 * deletes it), at most `AUTO_PRUNE_MAX` runs per start. The `workflows.retention` setting tunes it:
 * `{ "auto": false }` (or `false`) turns it off; `keep` and `olderThanDays` change the rule.
 */
import { formatBytes } from "../progress/bytes-text.ts";
import type { PruneResult, RetentionRule, RunStore } from "../runs/index.ts";

/** Runs one automatic prune deletes at most: a project with a backlog is cleared over a few session starts. */
export const AUTO_PRUNE_MAX = 100;

/** What `workflows.retention` says. */
export interface RetentionSettings {
	/** False when the person turned the automatic prune off. */
	auto: boolean;
	/** The rule to apply; empty for the default one. */
	rule: RetentionRule;
	/** What could not be used, for a warning; a setting with problems turns the automatic prune off. */
	problems: string[];
}

/** Reads `workflows.retention` from pi's merged settings (`settings` is what `pi.getSettings()` gives). */
export function readRetentionSettings(settings: unknown): RetentionSettings {
	const workflows = (settings as { workflows?: unknown } | null | undefined)?.workflows;
	const value = (workflows as { retention?: unknown } | null | undefined)?.retention;
	if (value === undefined || value === true) return { auto: true, rule: {}, problems: [] };
	if (value === false) return { auto: false, rule: {}, problems: [] };
	const shape = "`workflows.retention` must be false or { auto?: boolean, keep?: number, olderThanDays?: number }";
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		return { auto: false, rule: {}, problems: [shape] };
	}
	const { auto, keep, olderThanDays, ...extra } = value as Record<string, unknown>;
	const problems: string[] = [];
	const rule: RetentionRule = {};
	const whole = (name: string, given: unknown) => {
		if (given === undefined) return undefined;
		if (typeof given === "number" && Number.isInteger(given) && given >= 0) return given;
		problems.push(`\`workflows.retention.${name}\` must be a whole number, 0 or more, got ${JSON.stringify(given)}`);
		return undefined;
	};
	const count = whole("keep", keep);
	const days = whole("olderThanDays", olderThanDays);
	if (count !== undefined) rule.keep = count;
	if (days !== undefined) rule.olderThanDays = days;
	if (auto !== undefined && typeof auto !== "boolean") {
		problems.push(`\`workflows.retention.auto\` must be true or false, got ${JSON.stringify(auto)}`);
	}
	for (const name of Object.keys(extra)) problems.push(`\`workflows.retention.${name}\` is not a setting (${shape})`);
	// A rule the person got wrong might delete what they meant to keep: nothing is pruned until it is fixed.
	return { auto: auto !== false && problems.length === 0, rule, problems };
}

/** What the session is told: problems with the setting, and what was pruned. */
export type AutoPruneNotify = (message: string, level: "info" | "warning") => void;

/** Prunes `store` as the setting says; resolves with what it did (undefined when off). Never rejects. */
export async function autoPrune(
	store: RunStore,
	settings: RetentionSettings,
	notify: AutoPruneNotify,
): Promise<PruneResult | undefined> {
	for (const problem of settings.problems) notify(`pi-workflows: ${problem}; old runs are not pruned`, "warning");
	if (!settings.auto) return undefined;
	try {
		const result = await store.prune(settings.rule, { maxDeletions: AUTO_PRUNE_MAX });
		if (result.deleted.length > 0) {
			notify(
				`pi-workflows: pruned ${result.deleted.length} old workflow ${result.deleted.length === 1 ? "run" : "runs"} (${formatBytes(result.bytes)}); set workflows.retention to { "auto": false } to keep them`,
				"info",
			);
		}
		if (result.failed.length > 0) {
			notify(`pi-workflows: could not prune ${result.failed[0]?.id}: ${result.failed[0]?.error}`, "warning");
		}
		return result;
	} catch (error) {
		notify(
			`pi-workflows: pruning old runs failed: ${error instanceof Error ? error.message : String(error)}`,
			"warning",
		);
		return undefined;
	}
}
