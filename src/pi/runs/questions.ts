/**
 * `ask()` in a pi session: the handler a run gets (a dialog for a run in the foreground; for a background run, a
 * pending question, one message to the session, and its widget and status line), and a run's pending questions,
 * which `/workflows answer` and `workflow_runs answer` settle.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { askUnavailableError, WorkflowError } from "../../errors.ts";
import { visibleText } from "../../progress/visible-text.ts";
import { matchChoice } from "../../runtime/ask/ask.ts";
import type { WorkflowAskHandler, WorkflowQuestion } from "../../runtime/core/types.ts";
import { visibleUi } from "./visible-ui.ts";

/** Custom message type of a background run's question. */
const QUESTION_MESSAGE_TYPE = "workflow-question";

/** The message a background run's question sends (a `WorkflowRunMessage` of messages.ts, which imports the registry). */
export interface QuestionMessage {
	customType: string;
	content: string;
	display: boolean;
	details: { runId: string; status: "running"; summary: string };
}

interface Pending {
	question: WorkflowQuestion;
	resolve: (answer: string | undefined) => void;
}

/** The questions one run waits on, oldest first, until an answer or their signal settles each. */
export class PendingQuestions {
	readonly #open = new Map<string, Pending>();

	/** Open questions, oldest first. */
	list(): WorkflowQuestion[] {
		return [...this.#open.values()].map((pending) => pending.question);
	}

	/** Waits for `answer()` on `question`; resolves undefined once `signal` fires (timeout, script end, stop). */
	wait(question: WorkflowQuestion, signal: AbortSignal): Promise<string | undefined> {
		return new Promise((resolve) => {
			if (signal.aborted) return resolve(undefined);
			const onAbort = () => {
				this.#open.delete(question.key);
				resolve(undefined);
			};
			signal.addEventListener("abort", onAbort, { once: true });
			this.#open.set(question.key, {
				question,
				resolve: (answer) => {
					signal.removeEventListener("abort", onAbort);
					this.#open.delete(question.key);
					resolve(answer);
				},
			});
		});
	}

	/**
	 * Answers the oldest open question (or the one whose key or 1-based number `which` names) with `text`, checked
	 * against its choices. Throws `question_not_found` or `ask_answer_invalid` saying what would do.
	 */
	answer(text: string, runId: string): { question: WorkflowQuestion; answer: string } {
		const pending = [...this.#open.values()][0];
		if (!pending) {
			throw new WorkflowError("question_not_found", `Run ${runId} is not waiting for an answer`, {
				details: { runId },
			});
		}
		const { question } = pending;
		const answer = matchChoice(text.trim(), question.choices);
		if (answer === undefined || answer.trim() === "") {
			const choices = question.choices?.map((choice) => JSON.stringify(choice)).join(", ");
			throw new WorkflowError(
				"ask_answer_invalid",
				choices
					? `${JSON.stringify(text)} is not one of the choices of ${JSON.stringify(question.question)}: answer one of ${choices}`
					: `An answer to ${JSON.stringify(question.question)} needs some text`,
				{ details: { runId, question: question.question, choices: question.choices ?? [] } },
			);
		}
		pending.resolve(answer);
		return { question, answer };
	}
}

/** "/workflows answer <runId> <answer>" and the tool call that does the same. */
export function answerHow(runId: string): string {
	return `/workflows answer ${runId} <answer>, or workflow_runs({ action: "answer", runId: "${runId}", answer })`;
}

/** "Ship it? (yes / no; default: no)". */
export function questionText(question: WorkflowQuestion): string {
	const extra = [question.choices?.join(" / "), question.default !== undefined ? `default: ${question.default}` : ""]
		.filter(Boolean)
		.join("; ");
	return `${question.question}${extra ? ` (${extra})` : ""}`;
}

/** "Ship it? (yes / no)" and, on the lines below, the question's details (the material it is about), when it has any. */
export function questionWithDetails(question: WorkflowQuestion): string {
	return question.details === undefined ? questionText(question) : `${questionText(question)}\n${question.details}`;
}

/** A dialog's title: `prefix` and the question, then its details after a blank line (pi draws the title as given). */
export function questionTitle(prefix: string, question: WorkflowQuestion): string {
	return `${prefix}${question.question}${question.details === undefined ? "" : `\n\n${question.details}`}`;
}

/** What a run's handler needs from the tool call that started it. */
export interface PiAskSetup {
	ctx: ExtensionContext;
	/** True for a `background: true` run: questions wait for `/workflows answer`, no dialog blocks the session. */
	background: boolean;
	questions: PendingQuestions;
	/** The run's id, once its record exists. */
	runId: () => Promise<string | undefined>;
	/** The run's `meta.name`. */
	name: () => string;
	/** Sends a message to the session (pi's `sendMessage`). Default: none. */
	notify?: (message: QuestionMessage) => void;
}

/** The `ask` handler of one run in a pi session. */
export function createPiAskHandler(setup: PiAskSetup): WorkflowAskHandler {
	const { ctx } = setup;
	return async (question, { signal }) => {
		// Without a UI pi's dialogs answer undefined at once, which would look like a person who declined.
		if (!ctx.hasUI) {
			throw askUnavailableError(`pi runs in ${ctx.mode} mode, where no one can answer a question`);
		}
		if (setup.background) return askInBackground(setup, question, signal);
		const title = questionTitle(`Workflow ${setup.name()} asks: `, question);
		const dialog = { signal, ...(question.timeoutMs !== undefined ? { timeout: question.timeoutMs } : {}) };
		// The script wrote the question and its choices: the dialog shows them, never lets them drive the terminal.
		const ui = visibleUi(ctx.ui);
		const answer = question.choices
			? await ui.select(title, question.choices, dialog)
			: await ui.input(title, question.default ?? "your answer", dialog);
		if (signal.aborted) return undefined;
		if (answer === undefined) throw askUnavailableError("the question was dismissed (Esc) without an answer");
		// An empty line in the input takes the default the placeholder showed.
		if (answer.trim() === "" && question.default !== undefined) return question.default;
		return answer;
	};
}

async function askInBackground(
	setup: PiAskSetup,
	question: WorkflowQuestion,
	signal: AbortSignal,
): Promise<string | undefined> {
	const waiting = setup.questions.wait(question, signal);
	const runId = await setup.runId();
	if (runId !== undefined && !signal.aborted) {
		// pi shows this message as it is: the script's name and question made visible.
		const content = visibleText(
			[
				`Background workflow run \`${runId}\` (${setup.name()}) is waiting for the person's answer: ${questionWithDetails(question)}`,
				`Ask the person, then answer with ${answerHow(runId)}. Do not answer for them.`,
			].join("\n"),
		);
		try {
			setup.notify?.({
				customType: QUESTION_MESSAGE_TYPE,
				content,
				display: true,
				details: { runId, status: "running", summary: visibleText(`waiting for you: ${question.question}`) },
			});
		} catch {
			// The session is gone: the widget, `/workflows` and the status line still show the question.
		}
	}
	return waiting;
}
