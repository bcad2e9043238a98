/**
 * What one `agent()` call spent and became across its attempts (tokens, dollars, model, conversations), and the
 * census entry and progress event that say how it ended.
 */
import { errorMessage, type SourceLocation, WorkflowError } from "../../errors.ts";
import { addCost } from "../core/cost.ts";
import type { WorkflowAgentCallRef } from "../core/events.ts";
import type { ScriptScope } from "../core/run-context.ts";
import type {
	JsonValue,
	WorkflowAgentResult,
	WorkflowCallIdentity,
	WorkflowCost,
	WorkflowTokenUsage,
} from "../core/types.ts";
import { addUsage, ORPHANED } from "./attempt.ts";
import { preview } from "./preview.ts";
import { journal } from "./replay.ts";

/** What a record names its call by. */
export interface RecordedCall {
	readonly ref: Readonly<WorkflowAgentCallRef>;
	/** Where in the script the call was made. */
	readonly site: SourceLocation | undefined;
	/** What a journal line records of the call's key, to explain a later miss; none without a journal. */
	readonly identity: WorkflowCallIdentity | undefined;
}

/** A call that gave the script text where it may have meant an object, into the census. */
export function noteText(scope: ScriptScope, call: RecordedCall): void {
	scope.run.census.note("text", { what: `agent \`${call.ref.label}\``, filename: scope.filename, ...call.site });
}

/** One call from the moment it is queued: what its attempts add up to, and how it ended. */
export class AgentCallRecord {
	readonly #scope: ScriptScope;
	readonly #call: RecordedCall;
	readonly #started = Date.now();
	#attempts = 0;
	#usage: WorkflowTokenUsage | undefined;
	#cost: WorkflowCost | undefined;
	#model: string | undefined;
	/** Every attempt's conversation files, in order. */
	readonly #transcripts: string[] = [];
	/** Until then, a failure is a skip: no child started. */
	#reachedRunner = false;

	constructor(scope: ScriptScope, call: RecordedCall) {
		this.#scope = scope;
		this.#call = call;
	}

	/** Whether the call's first child started (else a failure is a skip). */
	get started(): boolean {
		return this.#reachedRunner;
	}

	/** The model that answered and the conversation files so far, for a call that may be continued. */
	conversation(): { model?: string; transcripts?: string[] } {
		return { ...(this.#model ? { model: this.#model } : {}), ...this.#written() };
	}

	/** The call's first child is about to start. */
	reachRunner(): void {
		this.#reachedRunner = true;
		this.#scope.run.census.started();
	}

	/** Attempt number `attempt` ended: what its child spent, ran on and wrote counts toward the call's. */
	add(attempt: number, result: WorkflowAgentResult | undefined): void {
		this.#attempts = attempt;
		this.#usage = addUsage(this.#usage, result?.usage);
		this.#cost = addCost(this.#cost, result?.cost);
		this.#model = result?.model ?? this.#model;
		this.#transcripts.push(...(result?.transcripts ?? []));
	}

	/** The call's answer: on disk before the script sees it, so a crash after this point cannot lose it. */
	async answered(value: JsonValue, result: WorkflowAgentResult): Promise<JsonValue> {
		const { run } = this.#scope;
		const { ref } = this.#call;
		// Without a journal, nothing to write and nothing to wait for.
		if (run.host.journal) {
			await journal(
				run,
				ref,
				value,
				{
					...this.#spent(),
					...(result.id !== undefined ? { agentId: result.id } : {}),
					...this.#written(),
				},
				this.#call.identity,
			);
		}
		run.census.completed(this.#usage, this.#cost);
		const { fallbackFrom } = result;
		if (this.#model && fallbackFrom) {
			run.census.fallback({
				index: ref.index,
				key: ref.key,
				label: ref.label,
				agentType: ref.agentType,
				...(ref.phase ? { phase: ref.phase } : {}),
				model: this.#model,
				limited: fallbackFrom,
			});
		}
		if (typeof value === "string") noteText(this.#scope, this.#call);
		if (run.heard) {
			run.emit({
				type: "agent_finished",
				...ref,
				agentId: result.id,
				resultPreview: preview(value),
				...this.#spent(),
				...(result.toolUses !== undefined ? { toolUses: result.toolUses } : {}),
				durationMs: Date.now() - this.#started,
				attempts: this.#attempts,
				...(result.worktree ? { worktree: result.worktree } : {}),
				...(fallbackFrom ? { fallbackFrom } : {}),
				...this.#written(),
			});
		}
		return value;
	}

	/** A child that failed: the script gets null, and the census says why. */
	nulled(cause: string, code: string | undefined, result: WorkflowAgentResult | undefined): null {
		this.failed(cause, code, false, result);
		const { ref, site } = this.#call;
		this.#scope.run.census.note("null", {
			what: `agent \`${ref.label}\``,
			filename: this.#scope.filename,
			...site,
			cause,
		});
		return null;
	}

	/** The call threw into the script (a limit, the run cancelled, its script returned without it). */
	threw(error: unknown): void {
		const { run, life } = this.#scope;
		const coded = error instanceof WorkflowError ? error : undefined;
		const orphaned = !run.signal.aborted && life.signal.aborted;
		this.failed(orphaned ? ORPHANED : (coded?.message ?? errorMessage(error)), coded?.code, true);
	}

	/** The call ended without an answer, `thrown` into the script or not: into the census and the progress events. */
	failed(cause: string, code: string | undefined, thrown: boolean, result?: WorkflowAgentResult): void {
		const { run, filename } = this.#scope;
		const { ref, site } = this.#call;
		const agentId = result?.id;
		const worktree = result?.worktree;
		const skipped = !this.#reachedRunner;
		run.census.failed(
			{
				kind: "agent",
				index: ref.index,
				key: ref.key,
				label: ref.label,
				agentType: ref.agentType,
				...(ref.phase ? { phase: ref.phase } : {}),
				cause,
				filename,
				...site,
				...(code ? { code } : {}),
				...(worktree ? { worktree } : {}),
			},
			{ skipped, ...(this.#usage ? { usage: this.#usage } : {}), ...(this.#cost ? { cost: this.#cost } : {}) },
		);
		run.emit({
			type: "agent_failed",
			...ref,
			...(agentId ? { agentId } : {}),
			error: cause,
			...(code ? { code } : {}),
			thrown,
			skipped,
			...this.#spent(),
			durationMs: Date.now() - this.#started,
			...(worktree ? { worktree } : {}),
			...this.#written(),
		});
	}

	/** The call's tokens, dollars and model, as far as it has them. */
	#spent(): { usage?: WorkflowTokenUsage; cost?: WorkflowCost; model?: string } {
		return {
			...(this.#usage ? { usage: this.#usage } : {}),
			...(this.#cost ? { cost: this.#cost } : {}),
			...(this.#model ? { model: this.#model } : {}),
		};
	}

	/** The call's conversation files, when its children wrote any. */
	#written(): { transcripts?: string[] } {
		return this.#transcripts.length > 0 ? { transcripts: this.#transcripts } : {};
	}
}
