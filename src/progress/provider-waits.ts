/** A run's provider waits for the tracker: the one in force, and the count and total so far. */
import type { ProviderWaitEndedEvent, ProviderWaitStartedEvent } from "../runtime/core/events.ts";
import type { WorkflowProviderWait, WorkflowProviderWaits } from "./envelope.ts";

export class ProviderWaits {
	/** The wait in force. Replaced, never changed in place: envelopes share it. */
	current: WorkflowProviderWait | undefined;
	/** Replaced, never changed in place, as `current`. */
	totals: WorkflowProviderWaits | undefined;

	/** A wait starts or lengthens (`message` capped by the caller); a lengthened one keeps its start and counts once. */
	started(event: ProviderWaitStartedEvent, message: string): void {
		this.current = {
			kind: event.kind,
			message,
			since: this.current?.since ?? event.time,
			until: event.until,
			...(event.retryAfterMs !== undefined ? { retryAfterMs: event.retryAfterMs } : {}),
			...(event.call ? { label: event.call.label } : {}),
		};
		this.totals = {
			count: (this.totals?.count ?? 0) + (event.lengthened ? 0 : 1),
			totalMs: event.totalWaitMs,
			maxMs: event.maxWaitMs,
		};
	}

	ended(event: ProviderWaitEndedEvent): void {
		this.current = undefined;
		this.totals = { ...(this.totals ?? { count: 1 }), totalMs: event.totalWaitMs };
	}

	/** The run ended: no wait is in force, and the totals of its result, when it gave them, are the last word. */
	runEnded(totals: { count: number; totalMs: number } | undefined): void {
		this.current = undefined;
		if (totals) this.totals = { ...this.totals, ...totals };
	}
}
