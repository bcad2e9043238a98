/** A run's `tool()` steps for the tracker: the running ones by key, and how the finished ones went. */
import type { ToolFailedEvent, ToolFinishedEvent, ToolStartedEvent } from "../runtime/core/events.ts";
import type { WorkflowProgressToolRun, WorkflowProgressToolSteps } from "./envelope.ts";

export class ToolSteps {
	private readonly running = new Map<string, WorkflowProgressToolRun>();
	private done = 0;
	private errors = 0;
	private failed = 0;

	apply(event: ToolStartedEvent | ToolFinishedEvent | ToolFailedEvent): void {
		if (event.type === "tool_started") {
			this.running.set(event.key, {
				key: event.key,
				name: event.name,
				label: event.label,
				startedAt: event.time,
				...(event.phase !== undefined ? { phase: event.phase } : {}),
			});
			return;
		}
		this.running.delete(event.key);
		if (event.type === "tool_failed") this.failed++;
		else this.done++;
		if (event.type === "tool_finished" && event.isError) this.errors++;
	}

	/** The run ended: no step runs any more. */
	stopAll(): void {
		this.running.clear();
	}

	snapshot(): WorkflowProgressToolSteps {
		return { running: [...this.running.values()], done: this.done, errors: this.errors, failed: this.failed };
	}
}
