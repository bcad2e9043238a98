/**
 * A runner's `reportChild` report (and its result's `abandoned` count), copied once into plain data: a report goes out
 * in an `agent_child` progress event, which carries JSON data only, so a Proxy, a getter or an odd field type from a
 * runner cannot reach the listeners.
 */
import { types } from "node:util";
import { readCost } from "../core/cost.ts";
import type { WorkflowAgentChild, WorkflowChildState, WorkflowWorktree } from "../core/types.ts";

const TEXT = ["id", "type", "description", "activity", "model", "error"] as const;
const COUNTS = ["lastActivityAt", "startedAt", "endedAt", "turns", "maxTurns", "toolUses", "tokens"] as const;
const STATES: readonly WorkflowChildState[] = [
	"queued",
	"starting",
	"active",
	"quiet",
	"stalled",
	"paused",
	"finished",
	"failed",
	"stopped",
];

/**
 * The known fields of `raw` that have the right type (text, finite non-negative numbers, a known status); others are
 * left out. Undefined for a report that is not an object, is a Proxy, lacks a text `id`, `type` or `description` or
 * a known `status`, or whose fields cannot be read.
 */
export function readChildReport(raw: unknown): WorkflowAgentChild | undefined {
	if (raw === null || typeof raw !== "object" || types.isProxy(raw)) return undefined;
	const child: Record<string, unknown> = {};
	try {
		for (const name of TEXT) {
			const value = ownValue(raw, name);
			if (typeof value === "string") child[name] = value;
		}
		for (const name of COUNTS) {
			const value = ownValue(raw, name);
			if (typeof value === "number" && Number.isFinite(value) && value >= 0) child[name] = value;
		}
		const status = ownValue(raw, "status");
		if (STATES.includes(status as WorkflowChildState)) child.status = status;
		const worktree = readWorktree(ownValue(raw, "worktree"));
		if (worktree) child.worktree = worktree;
		const rawCost = ownValue(raw, "cost");
		if (rawCost !== null && typeof rawCost === "object" && !types.isProxy(rawCost)) {
			const fields = ["usd", "billedUsd", "unpriced"].map((name) => [name, ownValue(rawCost, name)]);
			const cost = readCost(Object.fromEntries(fields));
			if (cost) child.cost = cost;
		}
	} catch {
		// An exotic object whose descriptors cannot be read is dropped like any other unreadable report.
		return undefined;
	}
	const complete = child.id !== undefined && child.type !== undefined && child.description !== undefined;
	return complete && child.status !== undefined ? (child as unknown as WorkflowAgentChild) : undefined;
}

/** Files a worktree report keeps: enough to say what changed, bounded however many the child touched. */
const MAX_FILES = 100;

/**
 * A runner's worktree report (on a child report or a result) as plain data: text `path` and `branch`, a boolean
 * `kept`, up to 100 text `files`, a count and a commit; undefined when it is not an object with a path and a branch.
 */
export function readWorktree(raw: unknown): WorkflowWorktree | undefined {
	if (raw === null || typeof raw !== "object" || types.isProxy(raw)) return undefined;
	try {
		const path = ownValue(raw, "path");
		const branch = ownValue(raw, "branch");
		if (typeof path !== "string" || typeof branch !== "string") return undefined;
		const worktree: WorkflowWorktree = { path, branch };
		const kept = ownValue(raw, "kept");
		if (typeof kept === "boolean") worktree.kept = kept;
		const files = ownValue(raw, "files");
		if (Array.isArray(files) && !types.isProxy(files)) {
			const names = files.slice(0, MAX_FILES).filter((file): file is string => typeof file === "string");
			worktree.files = names;
		}
		const count = ownValue(raw, "fileCount");
		if (typeof count === "number" && Number.isInteger(count) && count >= 0) worktree.fileCount = count;
		const commit = ownValue(raw, "commit");
		if (typeof commit === "string") worktree.commit = commit;
		return worktree;
	} catch {
		return undefined;
	}
}

/** An own data property's value; a getter is not run. */
function ownValue(object: object, name: string): unknown {
	const descriptor = Object.getOwnPropertyDescriptor(object, name);
	return descriptor && "value" in descriptor ? descriptor.value : undefined;
}

/** How many attempts a runner's result says it abandoned: a positive integer, else 0 (a getter that throws too). */
export function readAbandoned(result: unknown): number {
	if (result === null || typeof result !== "object" || types.isProxy(result)) return 0;
	try {
		const count: unknown = (result as { abandoned?: unknown }).abandoned;
		return typeof count === "number" && Number.isInteger(count) && count > 0 ? count : 0;
	} catch {
		return 0;
	}
}
