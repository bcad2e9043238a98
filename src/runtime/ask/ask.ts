/**
 * `ask(question, opts)`: a person in the loop. Checks the options, replays an answer the journal holds, else puts the
 * question to the host's `ask` handler (stopping the run's deadline while it is open), and records the answer before
 * the script sees it. Also the run's deadline, which an open question stops while nothing else is under way.
 */
import { closestName } from "../../authoring/index.ts";
import { errorMessage, isWorkflowError, WorkflowError } from "../../errors.ts";
import { MAX_TIMEOUT_MS } from "../agent/options.ts";
import { watchAbort } from "../core/abort-watch.ts";
import { firstFrameIn } from "../core/call-site.ts";
import type { AskRef } from "../core/events.ts";
import { emitLog, type ScriptScope } from "../core/run-context.ts";
import type { JsonValue, WorkflowQuestion } from "../core/types.ts";

/** Longest question, in characters: a question is read by a person in a dialog, not a document. */
export const MAX_QUESTION_CHARS = 2000;
/** Most `choices` one question may offer. */
export const MAX_CHOICES = 50;
/** Longest `details` (the material shown with a question: a plan, a diff), in characters: a few screens of text. */
export const MAX_ASK_DETAILS_CHARS = 64 * 1024;

/** The option names `ask()` takes. */
export const ASK_OPTIONS = ["choices", "default", "details", "timeoutMs"] as const;

/** `ask()` arguments after checking. */
interface AskArguments {
	question: string;
	choices?: string[];
	default?: string;
	details?: string;
	timeoutMs?: number;
}

function invalid(message: string): WorkflowError {
	return new WorkflowError("ask_options_invalid", message);
}

/** Checks `ask(question, opts)`; throws `ask_options_invalid` naming the option and what it takes. */
export function checkAskArguments(question: JsonValue, options: JsonValue): AskArguments {
	if (typeof question !== "string" || question.trim() === "") {
		throw invalid(`\`ask()\` takes the question as a non-empty string, got ${JSON.stringify(question)}`);
	}
	if (question.length > MAX_QUESTION_CHARS) {
		throw invalid(
			`\`ask()\` question is ${question.length} characters (limit: ${MAX_QUESTION_CHARS}). Keep the question short and put the material in the \`details\` option (up to ${MAX_ASK_DETAILS_CHARS.toLocaleString("en-US")} characters): \`ask("Apply this plan?", { details: plan })\``,
		);
	}
	if (options === null) return { question };
	if (typeof options !== "object" || Array.isArray(options)) {
		throw invalid(
			`\`ask()\` options must be an object like \`{ choices, default, timeoutMs }\`, got ${JSON.stringify(options)}`,
		);
	}
	for (const name of Object.keys(options)) {
		if ((ASK_OPTIONS as readonly string[]).includes(name)) continue;
		const near = closestName(name, ASK_OPTIONS);
		throw invalid(
			`\`ask()\` has no option \`${name}\`. ${near ? `Did you mean \`${near}\`? ` : ""}It takes ${ASK_OPTIONS.map((o) => `\`${o}\``).join(", ")}`,
		);
	}
	const checked: AskArguments = { question };
	const { choices, default: fallback, details, timeoutMs } = options;
	if (choices !== undefined && choices !== null) {
		if (!Array.isArray(choices) || choices.length === 0 || choices.length > MAX_CHOICES) {
			throw invalid(
				`\`ask()\` option \`choices\` must be an array of 1 to ${MAX_CHOICES} strings, got ${JSON.stringify(choices)}`,
			);
		}
		for (const [i, choice] of choices.entries()) {
			if (typeof choice !== "string" || choice.trim() === "") {
				throw invalid(`\`ask()\` choice ${i} must be a non-empty string, got ${JSON.stringify(choice)}`);
			}
			if (choices.indexOf(choice) !== i) throw invalid(`\`ask()\` choice ${JSON.stringify(choice)} is given twice`);
		}
		checked.choices = choices as string[];
	}
	if (fallback !== undefined && fallback !== null) {
		if (typeof fallback !== "string") {
			throw invalid(`\`ask()\` option \`default\` must be a string, got ${JSON.stringify(fallback)}`);
		}
		if (checked.choices && !checked.choices.includes(fallback)) {
			throw invalid(
				`\`ask()\` option \`default\` is ${JSON.stringify(fallback)}, which is not one of its \`choices\` (${checked.choices.map((c) => JSON.stringify(c)).join(", ")})`,
			);
		}
		checked.default = fallback;
	}
	if (details !== undefined && details !== null) checked.details = checkDetails(details);
	if (timeoutMs !== undefined && timeoutMs !== null) {
		if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > MAX_TIMEOUT_MS) {
			throw invalid(
				`\`ask()\` option \`timeoutMs\` must be a positive number of ms up to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(timeoutMs)}`,
			);
		}
		checked.timeoutMs = timeoutMs;
	}
	return checked;
}

function checkDetails(details: JsonValue): string {
	if (typeof details !== "string") {
		throw invalid(`\`ask()\` option \`details\` must be a string, got ${JSON.stringify(details)}`);
	}
	if (details.length > MAX_ASK_DETAILS_CHARS) {
		throw invalid(
			`\`ask()\` option \`details\` is ${details.length} characters (limit: ${MAX_ASK_DETAILS_CHARS.toLocaleString("en-US")}). Show a summary, and let the person read the rest where it is written (a file, the run's report)`,
		);
	}
	return details;
}

/**
 * A dry run's warning for a question that holds an agent's answer (`call`): the sample is short, a real answer is
 * bounded only by what the model writes, and a question past `MAX_QUESTION_CHARS` fails the run at the `ask()`.
 */
export function answerInQuestionWarning(
	question: { index: number; question: string },
	call: { index: number; label: string },
): string {
	return `\`ask()\` question #${question.index + 1} (${JSON.stringify(shortQuestion(question.question))}) is built from the answer of agent call #${call.index + 1} (\`${call.label}\`): a real answer can be longer than the ${MAX_QUESTION_CHARS.toLocaleString("en-US")} characters a question may have, which fails the run at this \`ask()\` after the agent was paid for. Keep the question short and pass the answer as \`details\` (up to ${MAX_ASK_DETAILS_CHARS.toLocaleString("en-US")} characters): \`ask("Apply this plan?", { details: plan })\``;
}

/**
 * The answer among `choices` that `answer` names: itself, or the one that matches it trimmed and ignoring case (a
 * person typing `/workflows answer yes` for "Yes"). Undefined when it names none.
 */
export function matchChoice(answer: string, choices: readonly string[] | undefined): string | undefined {
	if (!choices) return answer;
	if (choices.includes(answer)) return answer;
	const wanted = answer.trim().toLowerCase();
	return choices.find((choice) => choice.trim().toLowerCase() === wanted);
}

/** Runs one `ask(question, opts)` made at the guest stack `stack`. */
export async function runAsk(
	scope: ScriptScope,
	rawQuestion: JsonValue,
	rawOptions: JsonValue,
	stack: string,
): Promise<string> {
	const { run } = scope;
	const args = checkAskArguments(rawQuestion, rawOptions);
	const site = firstFrameIn(stack, scope.filename);
	const phase = scope.phases.current;
	const ref: AskRef = {
		key: askKey(scope, args),
		index: run.indexes.nextAsk(),
		question: args.question,
		...(phase ? { phase } : {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	};
	const fail = (error: WorkflowError): WorkflowError => {
		run.emit({ type: "ask_failed", ...ref, error: error.message, code: error.code });
		return error;
	};
	if (run.askCalls >= run.limits.maxAskCalls) {
		throw fail(
			new WorkflowError(
				"limit_ask_calls",
				`\`ask()\` call limit reached (${run.limits.maxAskCalls}). A loop that calls \`ask()\` per item can run past it: bound the loop, or raise \`limits.maxAskCalls\``,
				{ ...(site ? { location: site } : {}), details: { limit: run.limits.maxAskCalls } },
			),
		);
	}
	run.askCalls++;
	const replayed = replayAnswer(scope, ref.key, args.choices);
	if (replayed !== undefined) {
		run.emit({ type: "ask_answered", ...ref, answer: replayed, source: "journal", durationMs: 0 });
		return replayed;
	}
	if (run.signal.aborted) throw run.signal.reason;
	const question: WorkflowQuestion = {
		key: ref.key,
		index: ref.index,
		question: args.question,
		...(args.choices ? { choices: args.choices } : {}),
		...(args.default !== undefined ? { default: args.default } : {}),
		...(args.details !== undefined ? { details: args.details } : {}),
		...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
		...(phase ? { phase } : {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	};
	const started = Date.now();
	const untrack = scope.life.track({
		kind: "ask",
		name: args.question,
		filename: scope.filename,
		...(site ?? {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	});
	const release = run.deadline.hold();
	run.emit({
		type: "ask_started",
		...ref,
		...(args.choices ? { choices: args.choices } : {}),
		...(args.default !== undefined ? { default: args.default } : {}),
		...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
	});
	let outcome: Outcome;
	try {
		outcome = await waitForAnswer(scope, question);
	} finally {
		release();
		untrack();
	}
	const where = site ? { location: site } : {};
	let answer: string;
	let source: "person" | "default";
	if (outcome.kind === "answer") {
		const matched = matchChoice(outcome.answer, args.choices);
		if (matched === undefined) {
			throw fail(
				new WorkflowError(
					"ask_answer_invalid",
					`\`ask()\` got the answer ${JSON.stringify(outcome.answer)}, which is not one of its choices (${(args.choices ?? []).map((c) => JSON.stringify(c)).join(", ")}). The host's \`ask\` handler must give one of \`question.choices\``,
					{ ...where, details: { answer: outcome.answer, choices: args.choices ?? [] } },
				),
			);
		}
		answer = matched;
		source = "person";
	} else if (outcome.kind === "aborted") {
		fail(new WorkflowError("cancelled", errorMessage(outcome.reason)));
		throw outcome.reason;
	} else if (args.default !== undefined) {
		answer = args.default;
		source = "default";
	} else if (outcome.kind === "timeout") {
		throw fail(
			new WorkflowError(
				"ask_timeout",
				`Nobody answered \`ask(${JSON.stringify(shortQuestion(args.question))})\` within its \`timeoutMs\` (${args.timeoutMs} ms). Give it a \`default\` to go on without an answer, or a longer \`timeoutMs\``,
				{ ...where, details: { timeoutMs: args.timeoutMs ?? null, key: ref.key } },
			),
		);
	} else {
		throw fail(
			new WorkflowError(
				"ask_unavailable",
				`Nobody can answer \`ask(${JSON.stringify(shortQuestion(args.question))})\` here: ${outcome.reason}. Give the question a \`default\`, or pass the answer in \`args\` and ask only when it is missing`,
				{ ...where, details: { reason: outcome.reason, key: ref.key } },
			),
		);
	}
	// On disk before the script sees it, like an agent's answer: a resumed run gives it again and never asks twice.
	await recordAnswer(scope, ref, answer);
	run.emit({ type: "ask_answered", ...ref, answer, source, durationMs: Date.now() - started });
	return answer;
}

/**
 * The question's identity is what the person was shown and may answer: an approval of one plan (its details) must
 * not replay for another, as when the plan was written into the question. Without details, the key is as before.
 */
function askKey(scope: ScriptScope, args: AskArguments): string {
	return scope.keys.next({
		ask: args.question,
		choices: args.choices ?? null,
		...(args.details !== undefined ? { details: args.details } : {}),
	});
}

type Outcome =
	| { kind: "answer"; answer: string }
	| { kind: "timeout" }
	| { kind: "unavailable"; reason: string }
	| { kind: "aborted"; reason: unknown };

const NO_HANDLER = "the host running this workflow offers no way to ask a person (no `ask` handler)";

/** Puts the question to the handler, racing its `timeoutMs` and the script's end. */
async function waitForAnswer(scope: ScriptScope, question: WorkflowQuestion): Promise<Outcome> {
	const { run } = scope;
	const handler = run.host.ask;
	if (!handler) return { kind: "unavailable", reason: NO_HANDLER };
	const controller = new AbortController();
	const life = scope.life.signal;
	if (life.aborted) return { kind: "aborted", reason: life.reason };
	return new Promise<Outcome>((resolve) => {
		let done = false;
		const settle = (outcome: Outcome) => {
			if (done) return;
			done = true;
			if (timer) clearTimeout(timer);
			unwatch();
			// The handler's dialog closes once the question is settled, whichever way.
			if (!controller.signal.aborted) controller.abort(new WorkflowError("cancelled", "The question was settled"));
			resolve(outcome);
		};
		const unwatch = watchAbort(life, () => settle({ kind: "aborted", reason: life.reason }));
		const timer =
			question.timeoutMs === undefined
				? undefined
				: setTimeout(() => settle({ kind: "timeout" }), question.timeoutMs);
		const answered = (value: unknown) => {
			if (value === undefined || value === null) settle({ kind: "unavailable", reason: NO_ONE });
			else if (typeof value === "string") settle({ kind: "answer", answer: value });
			else
				settle({
					kind: "unavailable",
					reason: `the host's \`ask\` handler gave ${typeof value}, not a string`,
				});
		};
		const refused = (error: unknown) => {
			// A dialog cancelled by the timeout or the script's end: the settle that aborted it has already won.
			if (!controller.signal.aborted) settle({ kind: "unavailable", reason: refusal(error) });
		};
		try {
			const value = handler(question, { signal: controller.signal });
			if (value !== null && typeof value === "object" && typeof (value as Promise<unknown>).then === "function") {
				(value as Promise<unknown>).then(answered, refused);
			} else answered(value);
		} catch (error) {
			refused(error);
		}
	});
}

const NO_ONE = "the host's `ask` handler said nobody can answer";

/** Why the handler gave no answer, from what it threw; never throws itself (a thrown Proxy's traps may). */
function refusal(error: unknown): string {
	try {
		if (isWorkflowError(error) && error.code === "ask_unavailable") return String(error.message);
	} catch {
		// A Proxy posing as a WorkflowError: it failed, like any other throw.
	}
	return `the host's \`ask\` handler failed: ${errorMessage(error)}`;
}

/** The journal's answer for `key`, when it is one (an answer line, a string, among `choices`): else the person is asked. */
function replayAnswer(scope: ScriptScope, key: string, choices: readonly string[] | undefined): string | undefined {
	const entry = scope.run.host.journal?.lookup(key);
	try {
		if (!entry || typeof entry !== "object" || entry.kind !== "answer") return undefined;
		const value: unknown = entry.value;
		if (typeof value !== "string") return undefined;
		return choices && !choices.includes(value) ? undefined : value;
	} catch {
		// A journal whose entry cannot be read (a getter that throws) holds no answer: the person is asked.
		return undefined;
	}
}

async function recordAnswer(scope: ScriptScope, ref: AskRef, answer: string): Promise<void> {
	const { run } = scope;
	if (!run.host.journal) return;
	try {
		await run.host.journal.record({
			key: ref.key,
			kind: "answer",
			value: answer,
			label: shortQuestion(ref.question),
		});
	} catch (error) {
		emitLog(run, {
			level: "warn",
			message: `Could not journal the answer to \`${shortQuestion(ref.question)}\` (${errorMessage(error)}); a resume will ask again`,
			...(ref.phase ? { phase: ref.phase } : {}),
		});
	}
}

function shortQuestion(question: string): string {
	const line = question.replace(/\s+/g, " ").trim();
	return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * The run's deadline (`timeoutMs` of the run). Its clock stops only while the run waits on a person and on nothing
 * else: while a question is open it stops, unless an `agent()` or `tool()` call is under way. So a person's slow
 * answer never times the run out, and a script cannot do work on the person's time: while a question is open, a call
 * that starts once the deadline would have passed had the wait counted (`unheld`) ends the run too.
 */
export class RunDeadline {
	readonly #onExpire: (whileAsking: boolean) => void;
	#remaining: number | undefined;
	#timer: ReturnType<typeof setTimeout> | undefined;
	#since = 0;
	#holds = 0;
	#busy = 0;
	/** When the deadline would pass had the open questions' wait counted: `Date.now()` ms, set as the first opens. */
	#unheld = Number.POSITIVE_INFINITY;
	#ended = false;

	constructor(ms: number | undefined, onExpire: (whileAsking: boolean) => void) {
		this.#onExpire = onExpire;
		this.#remaining = ms;
		this.#update();
	}

	/** A question is open until the returned function is called (once): the clock stops unless work is under way. */
	hold(): () => void {
		if (this.#holds++ === 0) this.#unheld = Date.now() + this.#left();
		this.#update();
		return this.#once(() => {
			this.#holds--;
			this.#update();
		});
	}

	/**
	 * An `agent()` or `tool()` call is under way until the returned function is called (once): the clock runs. One that
	 * starts while a question is open, past the deadline the run would have without the wait, ends the run at once.
	 */
	work(): () => void {
		this.#busy++;
		if (this.#holds > 0 && this.#remaining !== undefined && Date.now() >= this.#unheld) this.#expire();
		else this.#update();
		return this.#once(() => {
			this.#busy--;
			this.#update();
		});
	}

	/** The run ended: no deadline any more. */
	clear(): void {
		this.#ended = true;
		this.#update();
	}

	/** Ms left on the clock now. */
	#left(): number {
		if (this.#remaining === undefined) return Number.POSITIVE_INFINITY;
		return this.#timer ? Math.max(0, this.#remaining - (Date.now() - this.#since)) : this.#remaining;
	}

	/** Starts or stops the clock as the run's state says. */
	#update(): void {
		const runs = !this.#ended && this.#remaining !== undefined && (this.#holds === 0 || this.#busy > 0);
		if (runs && !this.#timer) {
			this.#since = Date.now();
			this.#timer = setTimeout(() => this.#expire(), this.#remaining);
		} else if (!runs && this.#timer) {
			this.#remaining = this.#left();
			clearTimeout(this.#timer);
			this.#timer = undefined;
		}
	}

	#expire(): void {
		if (this.#ended) return;
		const whileAsking = this.#holds > 0;
		this.clear();
		this.#onExpire(whileAsking);
	}

	#once(fn: () => void): () => void {
		let done = false;
		return () => {
			if (done) return;
			done = true;
			fn();
		};
	}
}
