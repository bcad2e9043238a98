/**
 * The CLI's `ask` handler over node:readline with a fake terminal (a PassThrough marked as a TTY): the question on
 * the output, choices by number or text, the default on an empty line, a closed prompt on abort, and nobody to ask
 * without a terminal. The bin on a real pseudo-terminal is in cli.test.ts.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTerminalAsk } from "../../src/cli/ask.ts";
import { isWorkflowError } from "../../src/errors.ts";
import type { WorkflowQuestion } from "../../src/runtime/index.ts";
import { HOSTILE, HOSTILE_BLOCK } from "../helpers/controls.ts";
import { until } from "../helpers/until.ts";

function terminal(isTTY = true) {
	const input = Object.assign(new PassThrough(), { isTTY });
	const output = new PassThrough();
	let written = "";
	output.on("data", (chunk: Buffer) => {
		written += chunk.toString("utf8");
	});
	let holds = 0;
	let interrupted = 0;
	const ask = createTerminalAsk({
		input,
		output,
		hold: () => {
			holds++;
			return () => {
				holds--;
			};
		},
		onInterrupt: () => {
			interrupted++;
		},
	});
	return {
		ask,
		input,
		written: () => written,
		holds: () => holds,
		interrupted: () => interrupted,
	};
}

const question = (extra: Partial<WorkflowQuestion> = {}): WorkflowQuestion => ({
	key: "k#0",
	index: 0,
	question: "Ship it?",
	...extra,
});

describe("the CLI's ask handler", () => {
	it("asks on the terminal and gives the typed line, holding the live view until then", async () => {
		const t = terminal();
		const answer = t.ask(question(), { signal: new AbortController().signal });
		await until(() => t.written().includes("? Ship it?: "), "the prompt");
		expect(t.holds()).toBe(1);
		t.input.write("after lunch\n");
		expect(await answer).toBe("after lunch");
		expect(t.holds()).toBe(0);
	});

	it("lists the choices; a number or the text picks one, anything else is asked again", async () => {
		const t = terminal();
		const answer = t.ask(question({ choices: ["ship", "hold"], default: "hold" }), {
			signal: new AbortController().signal,
		});
		await until(() => t.written().includes("Answer 1-2 or a choice: "), "the prompt");
		expect(t.written()).toContain("? Ship it?\n  1. ship\n  2. hold (default)\n");
		t.input.write("maybe\n");
		await until(() => t.written().includes('"maybe" is not one of the choices'), "the re-ask");
		t.input.write("1\n");
		expect(await answer).toBe("ship");
		const byText = terminal();
		const typed = byText.ask(question({ choices: ["ship", "hold"] }), { signal: new AbortController().signal });
		await until(() => byText.written().includes("Answer 1-2"), "the prompt");
		byText.input.write("HOLD\n");
		expect(await typed).toBe("hold");
	});

	it("an empty line takes the default; an abort closes the prompt with no answer", async () => {
		const t = terminal();
		const answer = t.ask(question({ default: "no" }), { signal: new AbortController().signal });
		await until(() => t.written().includes("(default: no): "), "the prompt");
		t.input.write("\n");
		expect(await answer).toBe("no");
		const controller = new AbortController();
		const aborted = t.ask(question(), { signal: controller.signal });
		await until(() => t.holds() === 1, "the second prompt");
		controller.abort();
		expect(await aborted).toBeUndefined();
		expect(t.holds()).toBe(0);
	});

	it("shows the script's question and choices with their escapes visible, and gives the choice as written", async () => {
		const t = terminal();
		const answer = t.ask(
			question({ question: `Delete the production database?${HOSTILE}`, choices: [`yes${HOSTILE}`, "no"] }),
			{ signal: new AbortController().signal },
		);
		await until(() => t.written().includes("Answer 1-2 or a choice: "), "the prompt");
		expect(t.written()).toContain(
			`? Delete the production database?${HOSTILE_BLOCK}\n  1. yes${HOSTILE_BLOCK}\n  2. no\n`,
		);
		// readline moves the cursor with escapes of its own; the script's never reach the terminal.
		for (const raw of ["\x1b[2K", "\x1b[6n", "\x07"]) expect(t.written()).not.toContain(raw);
		t.input.write("1\n");
		expect(await answer).toBe(`yes${HOSTILE}`);

		const typed = terminal();
		const free = typed.ask(question({ question: `Delete the production database?${HOSTILE}`, default: HOSTILE }), {
			signal: new AbortController().signal,
		});
		await until(() => typed.written().includes(`(default: ${HOSTILE_BLOCK}): `), "the prompt");
		expect(typed.written()).toContain(
			`? Delete the production database?${HOSTILE_BLOCK} (default: ${HOSTILE_BLOCK}): `,
		);
		for (const raw of ["\x1b[2K", "\x1b[6n", "\x07"]) expect(typed.written()).not.toContain(raw);
		typed.input.write("\n");
		expect(await free).toBe(HOSTILE);
	});

	it("shows the question's details above it, as written but with their escapes visible", async () => {
		const t = terminal();
		const details = `1. Change a.ts\n2. Change b.ts${HOSTILE}`;
		const answer = t.ask(question({ question: "Apply this plan?", choices: ["apply", "stop"], details }), {
			signal: new AbortController().signal,
		});
		await until(() => t.written().includes("Answer 1-2 or a choice: "), "the prompt");
		expect(t.written()).toContain(
			`1. Change a.ts\n2. Change b.ts${HOSTILE_BLOCK}\n\n? Apply this plan?\n  1. apply\n  2. stop\n`,
		);
		for (const raw of ["\x1b[2K", "\x1b[6n", "\x07"]) expect(t.written()).not.toContain(raw);
		t.input.write("apply\n");
		expect(await answer).toBe("apply");
	});

	it("without a terminal: ask_unavailable saying why", () => {
		const t = terminal(false);
		let thrown: unknown;
		try {
			t.ask(question(), { signal: new AbortController().signal });
		} catch (error) {
			thrown = error;
		}
		expect(isWorkflowError(thrown) && thrown.code).toBe("ask_unavailable");
		expect((thrown as Error).message).toBe(
			"stdin is not a terminal (a pipe, a CI job), so nobody can answer here. Run it on a terminal to be asked",
		);
	});
});
