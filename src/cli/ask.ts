/**
 * `ask()` in the CLI: on a terminal (stdin a TTY) the question is asked on stderr and read from stdin with
 * node:readline, one question at a time, while the live view holds still; without a terminal nobody can answer, so
 * `ask()` gives its default or throws `ask_unavailable`.
 */
import { createInterface } from "node:readline";
import { askUnavailableError } from "../errors.ts";
import { visibleText } from "../progress/visible-text.ts";
import { matchChoice } from "../runtime/ask/ask.ts";
import type { WorkflowAskHandler, WorkflowQuestion } from "../runtime/core/types.ts";

/** What the terminal handler reads from and writes to. */
export interface TerminalAskSetup {
	/** The CLI's stdin; a question is asked only when it is a TTY. */
	input: (NodeJS.ReadableStream & { isTTY?: boolean }) | undefined;
	/** Where the question goes (stderr: stdout is the result). */
	output: NodeJS.WritableStream;
	/** Stops the live view's redraw while the person types, and starts it again. */
	hold: () => () => void;
	/** Ctrl-C while a question is asked: what Ctrl-C does elsewhere (stop the run). */
	onInterrupt: () => void;
}

/** The `ask` handler of a CLI run. */
export function createTerminalAsk(setup: TerminalAskSetup): WorkflowAskHandler {
	// Questions asked at once (in parallel branches) wait their turn: one prompt on the terminal at a time.
	let turn: Promise<unknown> = Promise.resolve();
	return (question, { signal }) => {
		const input = setup.input;
		if (!input?.isTTY) {
			throw askUnavailableError(
				"stdin is not a terminal (a pipe, a CI job), so nobody can answer here. Run it on a terminal to be asked",
			);
		}
		const mine = turn.then(() => (signal.aborted ? undefined : askOnce(setup, input, question, signal)));
		turn = mine.catch(() => undefined);
		return mine;
	};
}

async function askOnce(
	setup: TerminalAskSetup,
	input: NodeJS.ReadableStream,
	question: WorkflowQuestion,
	signal: AbortSignal,
): Promise<string | undefined> {
	const release = setup.hold();
	const rl = createInterface({ input, output: setup.output, terminal: true });
	rl.on("SIGINT", () => {
		rl.close();
		setup.onInterrupt();
	});
	const closed = new Promise<undefined>((resolve) => rl.once("close", () => resolve(undefined)));
	// The question's timeout, the script's end or a stopped run: the prompt goes.
	const onAbort = () => rl.close();
	signal.addEventListener("abort", onAbort, { once: true });
	try {
		const choices = question.choices;
		// The script wrote the question and its details: shown as written, never as escapes the terminal would act on.
		if (question.details !== undefined) setup.output.write(`${visibleText(question.details)}\n\n`);
		const asked = visibleText(question.question);
		if (choices) {
			setup.output.write(`? ${asked}\n`);
			choices.forEach((choice, i) => {
				setup.output.write(
					`  ${i + 1}. ${visibleText(choice)}${choice === question.default ? " (default)" : ""}\n`,
				);
			});
		}
		const prompt = choices
			? `Answer 1-${choices.length} or a choice: `
			: `? ${asked}${question.default !== undefined ? ` (default: ${visibleText(question.default)})` : ""}: `;
		for (;;) {
			const line = await Promise.race([new Promise<string>((resolve) => rl.question(prompt, resolve)), closed]);
			if (line === undefined || signal.aborted) return undefined;
			const text = line.trim();
			if (text === "" && question.default !== undefined) return question.default;
			if (!choices) {
				if (text !== "") return line;
				continue;
			}
			const number = /^\d+$/.test(text) ? choices[Number(text) - 1] : undefined;
			const chosen = number ?? matchChoice(text, choices);
			if (chosen !== undefined) return chosen;
			setup.output.write(`  "${visibleText(text)}" is not one of the choices; type its number or its text\n`);
		}
	} finally {
		signal.removeEventListener("abort", onAbort);
		rl.close();
		release();
	}
}
