/**
 * `agent(prompt, { resume: "label" })`: which earlier call of the script a child continues. Each script keeps the
 * calls it labelled; a continued call takes its label by default, so `resume` with the same label again goes on
 * from the newest link of the chain. A label must name one conversation that answered, ran in place and is done.
 */
import { callNumber, type SourceLocation, WorkflowError } from "../../errors.ts";
import type { WorkflowAgentCallRef } from "../core/events.ts";
import type { WorkflowContinuation } from "../core/types.ts";

/** What a continued call takes from the call it continues. */
export interface ContinuedCall extends WorkflowContinuation {
	agentType: string;
	/** The model that answered, as `provider/id`. */
	model?: string;
}

/** One labelled call, from when it is planned until it ends. */
interface LabelledCall {
	ref: WorkflowAgentCallRef;
	state: "running" | "answered" | "failed";
	/** Why it failed; whether it never started. */
	cause?: string;
	skipped?: boolean;
	model?: string;
	transcripts?: string[];
	/** The branch of an isolated child's worktree. */
	branch?: string;
	/** A later call continues this one: the chain's newest link is that call. */
	continued?: boolean;
}

/** How a labelled call ended, as its record knows it. */
export type CallEnding =
	| { kind: "answered"; model?: string; transcripts?: string[]; branch?: string }
	| { kind: "failed"; cause: string; skipped: boolean };

/** The labelled calls of one script (a nested workflow has its own). */
export class LabelledCalls {
	readonly #byLabel = new Map<string, LabelledCall[]>();

	/** A call with an explicit label is planned: `end` says how it ended. Calls with no label cannot be continued. */
	add(ref: WorkflowAgentCallRef, label: string | undefined): (ending: CallEnding) => void {
		if (label === undefined) return () => {};
		const call: LabelledCall = { ref, state: "running" };
		const list = this.#byLabel.get(label) ?? [];
		list.push(call);
		this.#byLabel.set(label, list);
		return (ending) => {
			if (call.state !== "running") return;
			if (ending.kind === "failed") {
				Object.assign(call, { state: "failed", cause: ending.cause, skipped: ending.skipped });
				return;
			}
			call.state = "answered";
			if (ending.model) call.model = ending.model;
			if (ending.transcripts?.length) call.transcripts = ending.transcripts;
			if (ending.branch) call.branch = ending.branch;
		};
	}

	/**
	 * The call `resume: label` continues, marked continued (so the next `resume` of the label goes on from the new
	 * call); throws when the label names none, several, or one that cannot be continued.
	 */
	take(label: string, location: SourceLocation | undefined): ContinuedCall {
		const option = `\`agent()\` option \`resume: ${JSON.stringify(label)}\``;
		const heads = (this.#byLabel.get(label) ?? []).filter((call) => !call.continued);
		if (heads.length === 0) {
			const known = [...this.#byLabel.keys()].map((name) => JSON.stringify(name));
			const labels = known.length > 0 ? ` (labels so far: ${known.join(", ")})` : "";
			throw new WorkflowError(
				"resume_not_found",
				`${option} names no earlier call: no \`agent()\` call before it has \`label: ${JSON.stringify(label)}\`${labels}. Give the call to continue that label and \`await\` it before this one`,
				{ location, details: { resume: label } },
			);
		}
		if (heads.length > 1) {
			const which = heads.map((call) => callNumber(call.ref.index)).join(", ");
			throw new WorkflowError(
				"resume_ambiguous",
				`${option} names ${heads.length} conversations (calls ${which}, made with the same label): a child continues one. Give each call its own label (\`label: ${JSON.stringify(`${label}-`)} + i\`) and continue the one you mean`,
				{ location, details: { resume: label, calls: heads.map((call) => call.ref.index) } },
			);
		}
		const [call] = heads as [LabelledCall];
		const refusal = whyNot(call);
		if (refusal) {
			throw new WorkflowError("resume_unavailable", `${option}: call ${callNumber(call.ref.index)} ${refusal}`, {
				location,
				details: { resume: label, call: call.ref.index },
			});
		}
		call.continued = true;
		return {
			key: call.ref.key,
			index: call.ref.index,
			label,
			agentType: call.ref.agentType,
			...(call.model ? { model: call.model } : {}),
			...(call.transcripts ? { transcripts: call.transcripts } : {}),
		};
	}
}

/** Why a call cannot be continued, said after its number; undefined when it can. */
function whyNot(call: LabelledCall): string | undefined {
	if (call.state === "running") {
		return "is still running: `await` it before continuing it (a continued child starts from its finished conversation)";
	}
	if (call.state === "failed") {
		const how = call.skipped ? "was skipped before its child started" : `failed (${call.cause})`;
		return `${how}, so there is no answered conversation to continue. Check its result for null (or catch its error) and start a fresh call instead`;
	}
	if (call.branch !== undefined) {
		return `ran isolated in a worktree, which was removed when it ended (what it changed is on branch \`${call.branch}\`, when it changed anything): a continued child would work in another checkout than the one its conversation speaks of. Start a fresh isolated call and give it what the first one said, or run the first one without \`isolation\``;
	}
	return undefined;
}
