/**
 * One `agent()` call: check options, charge the budget, wait in the queue, ask the runner (re-asking with the
 * validation errors for schema calls), record the outcome. Child failures resolve to null and enter the census;
 * author errors and hard limits throw a `WorkflowError` into the script.
 */
import { errorMessage, namespacedAgentType, unknownAgentTypeError, WorkflowError } from "../../errors.ts";
import { firstFrameIn } from "../call-site.ts";
import type { WorkflowAgentCallRef } from "../events.ts";
import { emitLog, type RunContext, type ScriptScope } from "../run-context.ts";
import type { CompiledSchema } from "../schema/session.ts";
import { addCost, usdText } from "../spend/cost.ts";
import type { PhaseBudget } from "../spend/phase-budget.ts";
import type {
	JsonValue,
	WorkflowAgentResult,
	WorkflowCost,
	WorkflowNameMatch,
	WorkflowTokenUsage,
	WorkflowWorktree,
} from "../types.ts";
import { type Attempt, addUsage, attemptOnce, buildRequest, ORPHANED } from "./attempt.ts";
import { type AgentCallOptions, checkAgentOptions, checkPrompt } from "./options.ts";
import { PREVIEW_CHARS, preview, shorten } from "./preview.ts";
import { limitText } from "./provider-wait.ts";
import { journal, replay, replayable } from "./replay.ts";
import { callIdentity, explainMiss } from "./replay-miss.ts";

/** Attempts a schema call gets in all before `agent()` throws `schema_unmet`. */
export const SCHEMA_ATTEMPTS = 5;
/** What to do about an answer that never matched: the call throws, unlike a failed child. */
const SCHEMA_UNMET_FIX =
	"Loosen the schema (fewer `required` fields, wider types) or say in the prompt what each field holds; the call throws, so wrap it in `try { … } catch (error) { … }` to go on without it";

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
			// A plugin-scoped name (`plugin:reviewer`, Claude Code's) runs as the type of its last part, said in the census.
			const bare = namespacedAgentType(options.agentType, run.agentTypes);
			if (!bare) throw unknownAgentTypeError(options.agentType, run.agentTypes);
			const written = options.agentType;
			options.agentType = bare;
			noteMatch(scope, options.label ?? shorten(prompt, 60), {
				kind: "agent",
				written,
				resolved: bare,
				how: "the type of that name; plugins are not loaded here",
			});
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
	// The budgets it counts against: its phase's and those of the phases enclosing it (the caller's too, when nested).
	const budgets = scope.phaseBudgets.chain(
		ref.phase !== undefined ? scope.phases.lineage(ref.phase) : [],
		scope.outerBudgets,
	);
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
		for (const budget of budgets) budget.checkCall();
		run.budget.chargeAgentCall();
		for (const budget of budgets) budget.calls++;
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
		return replay(run, ref, journaled, budgets);
	}
	if (identity) explainMiss(run, ref, identity);
	const started = Date.now();
	let attempts = 0;
	let usage: WorkflowTokenUsage | undefined;
	let cost: WorkflowCost | undefined;
	let model: string | undefined;
	/** Every attempt's conversation files, in order. */
	const transcripts: string[] = [];
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
				filename: scope.filename,
				...site,
				...(code ? { code } : {}),
				...(worktree ? { worktree } : {}),
			},
			{ skipped: !reachedRunner, ...(usage ? { usage } : {}), ...(cost ? { cost } : {}) },
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
			...(cost ? { cost } : {}),
			...(model ? { model } : {}),
			durationMs: Date.now() - started,
			...(worktree ? { worktree } : {}),
			...(transcripts.length > 0 ? { transcripts } : {}),
		});
	};

	// While the call is in the queue, a provider wait holds it (and counts against the run's bound).
	const leaveQueue = run.providerWaits.enter();
	// Counted against the run's deadline even while a question is open; past it, this ends the run (the queue sees it).
	const working = run.deadline.work();
	try {
		const outcome = await run.queue.run(async () => {
			// The cap is checked again as the child is about to start: while it waited, others may have spent it.
			checkSpend(run, budgets);
			reachedRunner = true;
			run.census.started();
			let feedback: string | undefined;
			const maxAttempts = schema ? SCHEMA_ATTEMPTS : 1 + options.retries;
			let last: Attempt = { kind: "failed", cause: "never ran" };
			// Attempts that count against `retries` (or the schema's attempts): one lost to a provider limit does not.
			let counted = 0;
			for (let attempt = 1; ; attempt++) {
				if (scope.life.signal.aborted) throw scope.life.signal.reason;
				// No child starts during a provider wait, a retry of a running call included.
				if (run.queue.providerPause) await run.providerWaits.ready(scope.life.signal);
				if (attempt === 1) run.emit({ type: "agent_started", ...ref, attempt });
				else {
					// Each attempt is a new child: none starts past a cap.
					checkSpend(run, budgets);
					run.emit({ type: "agent_retry", ...ref, attempt, reason: retryReason(last, feedback) });
				}
				last = await attemptOnce(scope, ref, buildRequest(scope, ref, prompt, options, attempt, feedback), schema);
				for (const match of attempt === 1 ? (last.result?.matches ?? []) : []) noteMatch(scope, ref.label, match);
				attempts = attempt;
				usage = addUsage(usage, last.result?.usage);
				cost = addCost(cost, last.result?.cost);
				model = last.result?.model ?? model;
				transcripts.push(...(last.result?.transcripts ?? []));
				// Counted as each attempt ends, whatever becomes of the call, so the next child to start sees it.
				spend(run, budgets, ref, last.result);
				if (last.kind === "limited") {
					// The queue waits (one wait for every child); this attempt is tried again when it is over.
					await run.providerWaits.wait(last.limit, ref, scope.life.signal);
					continue;
				}
				run.queue.providerOk();
				counted++;
				if (last.kind === "answer" || counted >= maxAttempts) break;
				if (last.kind === "schema_miss") feedback = last.errors;
				// A failed child is tried again only when the script asked for retries, and never one the user skipped.
				else if (counted > options.retries || last.final) break;
			}
			return last;
		}, scope.life.signal);

		if (outcome.kind === "answer") {
			// On disk before the script sees it: a crash after this point cannot lose the answer.
			await journal(
				run,
				ref,
				outcome.value,
				{
					...(usage ? { usage } : {}),
					...(cost ? { cost } : {}),
					...(model ? { model } : {}),
					...(outcome.result.id !== undefined ? { agentId: outcome.result.id } : {}),
					...(transcripts.length > 0 ? { transcripts } : {}),
				},
				identity,
			);
			run.census.completed(usage, cost);
			const { fallbackFrom } = outcome.result;
			if (model && fallbackFrom) {
				run.census.fallback({
					index: ref.index,
					key: ref.key,
					label: ref.label,
					agentType: ref.agentType,
					...(ref.phase ? { phase: ref.phase } : {}),
					model,
					limited: fallbackFrom,
				});
			}
			if (typeof outcome.value === "string") {
				run.census.note("text", { what: `agent \`${ref.label}\``, filename: scope.filename, ...site });
			}
			run.emit({
				type: "agent_finished",
				...ref,
				agentId: outcome.result.id,
				resultPreview: preview(outcome.value),
				...(usage ? { usage } : {}),
				...(cost ? { cost } : {}),
				...(model ? { model } : {}),
				...(outcome.result.toolUses !== undefined ? { toolUses: outcome.result.toolUses } : {}),
				durationMs: Date.now() - started,
				attempts,
				...(outcome.result.worktree ? { worktree: outcome.result.worktree } : {}),
				...(fallbackFrom ? { fallbackFrom } : {}),
				...(transcripts.length > 0 ? { transcripts } : {}),
			});
			return outcome.value;
		}
		if (outcome.kind === "schema_miss") {
			const error = new WorkflowError(
				"schema_unmet",
				`\`agent()\` answer still does not match its schema after ${SCHEMA_ATTEMPTS} attempts: ${outcome.errors}. ${SCHEMA_UNMET_FIX}`,
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
		working();
		leaveQueue();
		untrack();
		if (schema) run.schemas.release(schema);
	}
}

/** Throws `budget_exhausted` when the run or one of the call's phases spent its tokens or dollars. */
function checkSpend(run: RunContext, budgets: readonly PhaseBudget[]): void {
	run.budget.checkSpend();
	for (const budget of budgets) budget.checkSpend();
}

/** One attempt's tokens and dollars, charged to the run and the call's phases. */
function spend(
	run: RunContext,
	budgets: readonly PhaseBudget[],
	ref: WorkflowAgentCallRef,
	result: WorkflowAgentResult | undefined,
): void {
	if (!result) return;
	if (result.usage) run.budget.spendTokens(result.usage.total);
	run.budget.spendCost(result.cost);
	for (const budget of budgets) budget.spend(result.usage, result.cost);
	if (!result.cost?.unpriced) return;
	// A cap cannot count what has no price: said once per model, so a person does not trust a cap that cannot hold.
	const cap = run.budget.costLimitUsd ?? budgets.find((budget) => budget.limits.costUsd !== undefined)?.limits.costUsd;
	const model = result.model ?? "its model";
	if (cap === undefined || !run.budget.firstUnpriced(model)) return;
	emitLog(run, {
		level: "warn",
		message: `\`${ref.label}\` ran on ${model}, which has no known price: what it costs is unknown and does not count against the ${usdText(cap)} cap`,
		...(ref.phase ? { phase: ref.phase } : {}),
	});
}

/** What an `agent_retry` event says about why the call is tried again. */
function retryReason(last: Attempt, feedback: string | undefined): string {
	if (last.kind === "failed") return last.cause;
	if (last.kind === "limited") return `the provider wait is over (${limitText(last.limit.kind)})`;
	return feedback ?? "";
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
		tier: options.tier,
		readOnly: options.readOnly,
	};
}

/** A name read as another, into the census; the first time in a run, a log line says so too. */
function noteMatch(scope: ScriptScope, label: string, match: Omit<WorkflowNameMatch, "calls">): void {
	if (!scope.run.census.match(match)) return;
	const what = match.kind === "agent" ? "agent type" : match.kind === "tier" ? "model tier" : "model";
	emitLog(scope.run, {
		level: "info",
		message: `\`${label}\`: ${what} \`${match.written}\` is ${match.resolved} (${match.how})`,
		...(scope.phases.current ? { phase: scope.phases.current } : {}),
	});
}
