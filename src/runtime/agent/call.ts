/**
 * One `agent()` call: check options, charge the budget, wait in the queue, ask the runner (re-asking with the
 * validation errors for schema calls), record the outcome. Child failures resolve to null and enter the census;
 * author errors and hard limits throw a `WorkflowError` into the script.
 */
import { errorMessage, unknownAgentTypeError, WorkflowError } from "../../errors.ts";
import { firstFrameIn } from "../call-site.ts";
import type { WorkflowAgentCallRef } from "../events.ts";
import type { ScriptScope } from "../run-context.ts";
import type { CompiledSchema } from "../schema/session.ts";
import type { JsonValue, WorkflowTokenUsage, WorkflowWorktree } from "../types.ts";
import { type Attempt, addUsage, attemptOnce, buildRequest, ORPHANED } from "./attempt.ts";
import { type AgentCallOptions, checkAgentOptions, checkPrompt } from "./options.ts";
import { PREVIEW_CHARS, preview, shorten } from "./preview.ts";
import { journal, replay, replayable } from "./replay.ts";
import { callIdentity, explainMiss } from "./replay-miss.ts";

/** Attempts a schema call gets in all before `agent()` throws `schema_unmet`. */
export const SCHEMA_ATTEMPTS = 5;

/** Runs one `agent(prompt, opts)` call made at the guest stack `stack` (its line names it when it is cut off). */
export async function runAgentCall(
	scope: ScriptScope,
	rawPrompt: JsonValue,
	rawOptions: JsonValue,
	stack: string,
): Promise<JsonValue> {
	const { run } = scope;
	run.census.call();
	let prompt: string;
	let options: AgentCallOptions;
	let schema: CompiledSchema | undefined;
	let compiling: Promise<CompiledSchema> | undefined;
	try {
		prompt = checkPrompt(rawPrompt);
		options = checkAgentOptions(rawOptions);
		if (run.agentTypes && !run.agentTypes.includes(options.agentType)) {
			throw unknownAgentTypeError(options.agentType, run.agentTypes);
		}
		compiling = options.schema ? run.schemas.compileAgent(options.schema) : undefined;
	} catch (error) {
		// Refused before it was queued (author error, limit, cancelled run): it never started.
		run.census.refused();
		throw error;
	}

	// Taken before the schema compiles (in the schema worker), so calls keep the key and index of the order made.
	const site = firstFrameIn(stack, scope.filename);
	const ref: WorkflowAgentCallRef = {
		key: scope.keys.next(identityOf(prompt, options)),
		index: run.nextCallIndex++,
		label: options.label ?? shorten(prompt, 60),
		agentType: options.agentType,
		...((options.phase ?? scope.phases.current) ? { phase: options.phase ?? scope.phases.current } : {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	};
	// Until it ends, the call is among what its script would cut off by returning: from here, so a call still
	// compiling its schema when the script returns is named too.
	const untrack = scope.life.track({
		kind: "agent",
		name: ref.label,
		filename: scope.filename,
		...(site ?? {}),
		index: ref.index,
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	});
	try {
		schema = await compiling;
		if (run.signal.aborted) throw run.signal.reason;
		run.budget.chargeAgentCall();
	} catch (error) {
		untrack();
		if (schema) run.schemas.release(schema);
		run.census.refused();
		throw error;
	}
	run.emit({
		type: "agent_queued",
		...ref,
		promptPreview: shorten(prompt, PREVIEW_CHARS),
		hasSchema: schema !== undefined,
		...(options.model ? { model: options.model } : {}),
	});
	// What a journal line records of the call's key, to explain a later miss; nothing to record without a journal.
	const identity = run.journal ? callIdentity({ prompt, ...options }, ref.index) : undefined;
	const journaled = replayable(run, ref.key, schema !== undefined);
	if (journaled) {
		untrack();
		if (typeof journaled.value === "string") {
			run.census.note("text", { what: `agent \`${ref.label}\``, filename: scope.filename, ...site });
		}
		if (schema) run.schemas.release(schema);
		return replay(run, ref, journaled);
	}
	if (identity) explainMiss(run, ref, identity);
	const started = Date.now();
	let attempts = 0;
	let usage: WorkflowTokenUsage | undefined;
	let reachedRunner = false;
	const fail = (
		cause: string,
		code: string | undefined,
		thrown: boolean,
		agentId?: string,
		worktree?: WorkflowWorktree,
	) => {
		run.census.failed(
			{
				kind: "agent",
				index: ref.index,
				key: ref.key,
				label: ref.label,
				agentType: ref.agentType,
				...(ref.phase ? { phase: ref.phase } : {}),
				cause,
				...(code ? { code } : {}),
				...(worktree ? { worktree } : {}),
			},
			{ skipped: !reachedRunner, ...(usage ? { usage } : {}) },
		);
		run.emit({
			type: "agent_failed",
			...ref,
			...(agentId ? { agentId } : {}),
			error: cause,
			...(code ? { code } : {}),
			thrown,
			skipped: !reachedRunner,
			...(usage ? { usage } : {}),
			durationMs: Date.now() - started,
			...(worktree ? { worktree } : {}),
		});
	};

	try {
		const outcome = await run.queue.run(async () => {
			reachedRunner = true;
			run.census.started();
			let feedback: string | undefined;
			const maxAttempts = schema ? SCHEMA_ATTEMPTS : 1 + options.retries;
			let last: Attempt = { kind: "failed", cause: "never ran" };
			for (let attempt = 1; attempt <= maxAttempts; attempt++) {
				if (scope.life.signal.aborted) throw scope.life.signal.reason;
				if (attempt === 1) run.emit({ type: "agent_started", ...ref, attempt });
				else
					run.emit({
						type: "agent_retry",
						...ref,
						attempt,
						reason: last.kind === "failed" ? last.cause : (feedback ?? ""),
					});
				last = await attemptOnce(scope, ref, buildRequest(scope, ref, prompt, options, attempt, feedback), schema);
				attempts = attempt;
				usage = addUsage(usage, last.result?.usage);
				if (last.kind === "answer") break;
				if (last.kind === "schema_miss") feedback = last.errors;
				// A failed child is tried again only when the script asked for retries, and never one the user skipped.
				else if (attempt > options.retries || last.final) break;
			}
			return last;
		}, scope.life.signal);

		if (outcome.kind === "answer") {
			// On disk before the script sees it: a crash after this point cannot lose the answer.
			await journal(run, ref, outcome.value, usage, outcome.result.id, identity);
			run.census.completed(usage);
			if (typeof outcome.value === "string") {
				run.census.note("text", { what: `agent \`${ref.label}\``, filename: scope.filename, ...site });
			}
			run.emit({
				type: "agent_finished",
				...ref,
				agentId: outcome.result.id,
				resultPreview: preview(outcome.value),
				...(usage ? { usage } : {}),
				...(outcome.result.toolUses !== undefined ? { toolUses: outcome.result.toolUses } : {}),
				durationMs: Date.now() - started,
				attempts,
				...(outcome.result.worktree ? { worktree: outcome.result.worktree } : {}),
			});
			return outcome.value;
		}
		if (outcome.kind === "schema_miss") {
			const error = new WorkflowError(
				"schema_unmet",
				`\`agent()\` answer still does not match its schema after ${SCHEMA_ATTEMPTS} attempts: ${outcome.errors}`,
				{ details: { attempts: SCHEMA_ATTEMPTS, errors: outcome.errors, key: ref.key } },
			);
			fail(error.message, error.code, true, outcome.result.id, outcome.result.worktree);
			throw error;
		}
		fail(outcome.cause, outcome.code, false, outcome.result?.id, outcome.result?.worktree);
		run.census.note("null", {
			what: `agent \`${ref.label}\``,
			filename: scope.filename,
			...site,
			cause: outcome.cause,
		});
		return null;
	} catch (error) {
		if (error instanceof WorkflowError && error.code === "schema_unmet") throw error;
		const coded = error instanceof WorkflowError ? error : undefined;
		const orphaned = !run.signal.aborted && scope.life.signal.aborted;
		fail(orphaned ? ORPHANED : (coded?.message ?? errorMessage(error)), coded?.code, true);
		throw error;
	} finally {
		untrack();
		// Tokens count against the budget whatever became of the call.
		if (usage) run.budget.spendTokens(usage.total);
		if (schema) run.schemas.release(schema);
	}
}

/** What makes two calls the same call: not the label or phase, which are display. */
function identityOf(prompt: string, options: AgentCallOptions): unknown {
	return {
		prompt,
		agentType: options.agentType,
		schema: options.schema,
		model: options.model,
		thinking: options.thinking,
		tools: options.tools,
		isolation: options.isolation,
	};
}
