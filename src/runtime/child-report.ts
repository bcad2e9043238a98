/**
 * A runner's `reportChild` report, copied once into plain data: it goes out in an `agent_child` progress event,
 * which carries JSON data only, so a Proxy, a getter or an odd field type from a runner cannot reach the listeners.
 */
import { types } from "node:util";
import type { WorkflowAgentChild, WorkflowChildState } from "./types.ts";

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
	} catch {
		// An exotic object whose descriptors cannot be read is dropped like any other unreadable report.
		return undefined;
	}
	const complete = child.id !== undefined && child.type !== undefined && child.description !== undefined;
	return complete && child.status !== undefined ? (child as unknown as WorkflowAgentChild) : undefined;
}

/** An own data property's value; a getter is not run. */
function ownValue(object: object, name: string): unknown {
	const descriptor = Object.getOwnPropertyDescriptor(object, name);
	return descriptor && "value" in descriptor ? descriptor.value : undefined;
}
