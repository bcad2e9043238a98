/**
 * The last N log entries of a run in a ring buffer, with a count of the ones that fell out. Adding is O(1); a
 * snapshot is built once per change.
 */
import type { WorkflowProgressLog } from "./envelope.ts";

/** A bounded window onto a run's log. */
export class RecentLogs {
	private readonly ring: WorkflowProgressLog[] = [];
	/** Where the oldest entry sits once the ring is full. */
	private head = 0;
	private seen = 0;
	private cached: WorkflowProgressLog[] | undefined = [];
	private readonly capacity: number;

	constructor(capacity: number) {
		this.capacity = capacity;
	}

	/** Entries seen but no longer kept. */
	get dropped(): number {
		return this.seen - this.ring.length;
	}

	add(entry: WorkflowProgressLog): void {
		this.seen++;
		this.cached = undefined;
		if (this.capacity <= 0) return;
		if (this.ring.length < this.capacity) {
			this.ring.push(entry);
			return;
		}
		this.ring[this.head] = entry;
		this.head = (this.head + 1) % this.capacity;
	}

	/** Kept entries, oldest first. */
	snapshot(): WorkflowProgressLog[] {
		this.cached ??= [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
		return this.cached;
	}
}
