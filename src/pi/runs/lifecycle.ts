/**
 * Runs announce themselves to other extensions on pi's event bus (`pi.events`): `workflows:run_started`,
 * `workflows:agent_finished`, `workflows:tool_finished` and `workflows:run_ended`. A small stable contract
 * (docs/host-api.md, "Events for other extensions"): plain JSON, fields only ever added. Announcements wait for the run's id
 * and keep their order; a listener that throws changes nothing in the run.
 */
import type { WorkflowProgressEvent, WorkflowRunResult } from "../../runtime/index.ts";

/** The event names, as listeners subscribe to them. */
export const LIFECYCLE_EVENTS = {
	runStarted: "workflows:run_started",
	agentFinished: "workflows:agent_finished",
	toolFinished: "workflows:tool_finished",
	runEnded: "workflows:run_ended",
} as const;

/** Where announcements go: pi's `pi.events.emit`. */
export type Announce = (channel: string, data: unknown) => void;

/** One run's announcer: `event` for each progress event, `ended` once with the result. */
export interface RunAnnouncer {
	event(event: WorkflowProgressEvent): void;
	ended(result: WorkflowRunResult): void;
}

/** Announces one run; `runId` resolves once its record exists (undefined when it could not be made). */
export function runAnnouncer(
	announce: Announce,
	runId: Promise<string | undefined>,
	name: () => string,
	background: boolean,
): RunAnnouncer {
	let chain: Promise<unknown> = runId;
	const send = (channel: string, data: (id: string | undefined) => Record<string, unknown>) => {
		chain = chain.then(async () => {
			const id = await runId;
			try {
				announce(channel, { runId: id ?? null, name: name(), ...data(id) });
			} catch {
				// Another extension's listener failing is its own business, never the run's.
			}
		});
	};
	return {
		event(event) {
			if (event.type === "run_start") {
				send(LIFECYCLE_EVENTS.runStarted, () => ({ cwd: event.cwd, background, time: event.time }));
			} else if (event.type === "agent_finished") {
				send(LIFECYCLE_EVENTS.agentFinished, () => ({
					key: event.key,
					index: event.index,
					label: event.label,
					agentType: event.agentType,
					durationMs: event.durationMs,
					tokens: event.usage?.total ?? 0,
					...(event.cost ? { cost: event.cost } : {}),
					cached: event.cached === true,
					time: event.time,
				}));
			} else if (event.type === "tool_finished") {
				send(LIFECYCLE_EVENTS.toolFinished, () => ({
					key: event.key,
					index: event.index,
					tool: event.name,
					label: event.label,
					isError: event.isError,
					durationMs: event.durationMs,
					...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}),
					cached: event.cached === true,
					time: event.time,
				}));
			}
		},
		ended(result) {
			send(LIFECYCLE_EVENTS.runEnded, () => ({
				status: result.status,
				counts: result.counts,
				tools: result.tools ?? { calls: 0, replayed: 0, errors: 0, failed: 0 },
				tokens: result.usage.total,
				usage: result.usage,
				cost: result.cost,
				...(result.replayedCost ? { replayedCost: result.replayedCost } : {}),
				durationMs: result.durationMs,
				...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
			}));
		},
	};
}
