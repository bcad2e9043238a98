/**
 * Per-child control of one run: the handles of its running children (steer, pause, skip, restart), a skip waiting
 * for a queued call, and how a person's name for a child (`#3`, `3`, its label, its call key) becomes one of them,
 * with coded errors for a child that is unknown or no longer running.
 */
import { callIndexOf, callNumber, WorkflowError } from "../errors.ts";
import type { WorkflowProgressAgentCall, WorkflowProgressEnvelope } from "../progress/index.ts";

/** What can be done to one running child (the supervisor of its `agent()` call implements it). */
export interface ChildControl {
	/** Queues `text` for the child: pi delivers it at the child's next turn boundary; a paused child goes on with it. */
	steer(text: string): Promise<void>;
	/** Stops the child's current turn and holds it (`paused`) until a steer gives it a message. */
	pause(): void;
	/** Ends the child: `agent()` gives null, cause "skipped by the user". */
	skip(): void;
	/** Stops the child and starts a fresh attempt; the script gets that attempt's answer. */
	restart(): void;
}

/** The actions, as `/workflows`, `workflow_runs` and the registry name them. */
export type ChildAction = "steer" | "pause" | "skip" | "restart";

/** The running children of one run, by call key. */
export class ChildControls {
	readonly #live = new Map<string, ChildControl>();
	readonly #skipWhenStarted = new Set<string>();

	/** A child of the call `key` is running; the returned function says it ended. */
	add(key: string, control: ChildControl): () => void {
		this.#live.set(key, control);
		return () => {
			if (this.#live.get(key) === control) this.#live.delete(key);
		};
	}

	get(key: string): ChildControl | undefined {
		return this.#live.get(key);
	}

	/** True once, when a skip was asked for the call `key` while it was still queued. */
	takeSkip(key: string): boolean {
		return this.#skipWhenStarted.delete(key);
	}

	/**
	 * Does `action` to the child `ref` names among the run's calls. Resolves with what was done, in words.
	 * Throws `child_not_found`, `child_not_running` or `steer_message_empty`.
	 */
	async act(envelope: WorkflowProgressEnvelope, ref: string, action: ChildAction, text?: string): Promise<string> {
		const call = findCall(envelope, ref);
		const name = `\`${call.label}\` (${callNumber(call.index)})`;
		if (action === "steer" && !text?.trim()) {
			throw new WorkflowError("steer_message_empty", `Nothing to send to ${name}: give the message after the child`);
		}
		const control = this.#live.get(call.key);
		if (!control) {
			if (call.status === "queued" && action === "skip") {
				this.#skipWhenStarted.add(call.key);
				return `Skipped ${name} before it started: its agent() call gives null.`;
			}
			const state = call.status === "queued" ? "has not started yet" : `has already ${call.status}`;
			throw new WorkflowError(
				"child_not_running",
				`${name} ${state}; only a running child can be ${pastTense(action)}`,
				{
					details: { key: call.key, index: call.index, status: call.status },
				},
			);
		}
		if (action === "steer") {
			await control.steer(text as string);
			return call.activity === "paused"
				? `Sent to ${name}: it goes on with the message.`
				: `Sent to ${name}: it reads the message at its next turn.`;
		}
		if (action === "pause") {
			control.pause();
			return `Pausing ${name}: its turn stops and it waits; steer it with a message to go on.`;
		}
		if (action === "skip") {
			control.skip();
			return `Skipped ${name}: its agent() call gives null ("skipped by the user").`;
		}
		control.restart();
		return `Restarting ${name}: a fresh attempt; the script gets its answer.`;
	}
}

/** The call `ref` names: `#3` or `3` (its number, from 1: `callNumber`), its call key, or its label (case-insensitive, unique). */
export function findCall(envelope: WorkflowProgressEnvelope, ref: string): WorkflowProgressAgentCall {
	const wanted = ref.trim();
	const calls = envelope.agentCalls.filter((call) => !call.cached);
	const index = callIndexOf(wanted);
	const byIndex = index !== undefined ? calls.find((call) => call.index === index) : undefined;
	if (byIndex) return byIndex;
	const byKey = calls.find((call) => call.key === wanted);
	if (byKey) return byKey;
	const byLabel = calls.filter((call) => call.label.toLowerCase() === wanted.toLowerCase());
	if (byLabel.length === 1) return byLabel[0];
	const running = calls.filter((call) => call.status === "running" || call.status === "queued");
	const list =
		running.length > 0 ? running.map((call) => `${callNumber(call.index)} ${call.label}`).join(", ") : "none";
	const why = byLabel.length > 1 ? `${byLabel.length} calls are labelled \`${wanted}\`; use its number` : "no call";
	throw new WorkflowError(
		"child_not_found",
		`${why === "no call" ? `No agent call \`${wanted}\` in this run` : why}. Running or queued: ${list}`,
		{ details: { ref: wanted, running: running.map((call) => call.index) } },
	);
}

function pastTense(action: ChildAction): string {
	return { steer: "steered", pause: "paused", skip: "skipped", restart: "restarted" }[action];
}
