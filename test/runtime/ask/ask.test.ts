import { describe, expect, it } from "vitest";
import { askUnavailableError } from "../../../src/errors.ts";
import {
	runWorkflowScript,
	type WorkflowAskHandler,
	type WorkflowJournalEntry,
	type WorkflowProgressEvent,
	type WorkflowQuestion,
	type WorkflowRunOptions,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<WorkflowRunOptions> = {}) {
	const fake = createFakeRunner();
	const events: WorkflowProgressEvent[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event) => events.push(event),
		...options,
	});
	return { result, events, prompts: fake.requests.map((request) => request.prompt) };
}

/** A handler that records what it was asked and answers with `answer(question)`. */
function recording(answer: (question: WorkflowQuestion) => ReturnType<WorkflowAskHandler>) {
	const asked: WorkflowQuestion[] = [];
	const handler: WorkflowAskHandler = (question) => {
		asked.push(question);
		return answer(question);
	};
	return { asked, handler };
}

/** Resolves with `value` after `ms`, or with undefined once `signal` fires. */
function later(ms: number, value: string, signal: AbortSignal): Promise<string | undefined> {
	return new Promise((resolve) => {
		const timer = setTimeout(() => resolve(value), ms);
		signal.addEventListener("abort", () => {
			clearTimeout(timer);
			resolve(undefined);
		});
	});
}

describe("ask()", () => {
	it("gives a sync handler's answer as a string, and the handler sees the question, choices and default", async () => {
		const { asked, handler } = recording((q) => `yes to ${q.question}`);
		const { result, events } = await run(`return await ask("Ship it?", { default: "no" });`, { ask: handler });
		expect(result).toMatchObject({ status: "completed", value: "yes to Ship it?" });
		expect(asked).toEqual([{ key: expect.stringMatching(/#0$/), index: 0, question: "Ship it?", default: "no" }]);
		const types = events.map((event) => event.type).filter((type) => type.startsWith("ask_"));
		expect(types).toEqual(["ask_started", "ask_answered"]);
		expect(events.find((event) => event.type === "ask_answered")).toMatchObject({
			answer: "yes to Ship it?",
			source: "person",
			question: "Ship it?",
		});
		// A question is not an agent call.
		expect(result.counts.calls).toBe(0);
	});

	it("gives an async handler's answer; with choices, an answer naming a choice in other case gives the choice", async () => {
		const handler: WorkflowAskHandler = async (question) => {
			expect(question.choices).toEqual(["Red", "Green"]);
			return "  green ";
		};
		const { result } = await run(`return await ask("Colour?", { choices: ["Red", "Green"] });`, { ask: handler });
		expect(result).toMatchObject({ status: "completed", value: "Green" });
	});

	it("throws ask_answer_invalid at the call when the handler gives an answer that is not a choice", async () => {
		const { result } = await run(`const a = 1;\nreturn await ask("Colour?", { choices: ["Red", "Green"] });`, {
			ask: () => "Blue",
		});
		expect(result.error).toMatchObject({
			code: "ask_answer_invalid",
			message:
				'`ask()` got the answer "Blue", which is not one of its choices ("Red", "Green"). The host\'s `ask` handler must give one of `question.choices` (3:17)',
			line: 3,
			column: 17,
		});
	});

	it("refuses bad options by name: a typo gets a suggestion, a default outside the choices is named", async () => {
		const typo = await run(`await ask("Go?", { defualt: "no" });`, { ask: () => "x" });
		expect(typo.result.error).toMatchObject({
			code: "ask_options_invalid",
			message:
				"`ask()` has no option `defualt`. Did you mean `default`? It takes `choices`, `default`, `details`, `timeoutMs` (2:10)",
		});
		const outside = await run(`await ask("Go?", { choices: ["a", "b"], default: "c" });`, { ask: () => "a" });
		expect(outside.result.error?.message).toBe(
			'`ask()` option `default` is "c", which is not one of its `choices` ("a", "b") (2:10)',
		);
		const empty = await run(`await ask("");`, { ask: () => "a" });
		expect(empty.result.error?.message).toBe('`ask()` takes the question as a non-empty string, got "" (2:10)');
	});

	it("past its timeoutMs gives the default, and aborts the handler's signal", async () => {
		let signalled = false;
		const { result, events } = await run(`return await ask("Go?", { default: "later", timeoutMs: 20 });`, {
			ask: (_question, { signal }) =>
				new Promise((resolve) => {
					signal.addEventListener("abort", () => {
						signalled = true;
						resolve("too late");
					});
				}),
		});
		expect(result).toMatchObject({ status: "completed", value: "later" });
		expect(signalled).toBe(true);
		expect(events.find((event) => event.type === "ask_answered")).toMatchObject({ source: "default" });
	});

	it("past its timeoutMs with no default throws ask_timeout, which the script can catch", async () => {
		const body = `try {\n  await ask("Go?", { timeoutMs: 20 });\n} catch (e) {\n  return e.code + ": " + e.message;\n}`;
		const { result } = await run(body, { ask: (_q, { signal }) => later(60_000, "never", signal) });
		expect(result.value).toBe(
			'ask_timeout: Nobody answered `ask("Go?")` within its `timeoutMs` (20 ms). Give it a `default` to go on without an answer, or a longer `timeoutMs` (3:12)',
		);
		const uncaught = await run(`await ask("Go?", { timeoutMs: 20 });`, {
			ask: (_q, { signal }) => later(60_000, "never", signal),
		});
		expect(uncaught.result.error).toMatchObject({ code: "ask_timeout", line: 2, column: 10 });
		expect(uncaught.events.find((event) => event.type === "ask_failed")).toMatchObject({ code: "ask_timeout" });
	});

	it("with no handler, or one that says nobody can answer: the default, else ask_unavailable saying why and what to do", async () => {
		const none = await run(`return await ask("Go?", { default: "no" });`);
		expect(none.result.value).toBe("no");
		const noHandler = await run(`await ask("Go?");`);
		expect(noHandler.result.error).toMatchObject({
			code: "ask_unavailable",
			message:
				'Nobody can answer `ask("Go?")` here: the host running this workflow offers no way to ask a person (no `ask` handler). Give the question a `default`, or pass the answer in `args` and ask only when it is missing (2:10)',
		});
		const cannot = await run(`await ask("Go?");`, {
			ask: () => {
				throw askUnavailableError("pi runs in print mode, with no one at a terminal");
			},
		});
		expect(cannot.result.error?.message).toBe(
			'Nobody can answer `ask("Go?")` here: pi runs in print mode, with no one at a terminal. Give the question a `default`, or pass the answer in `args` and ask only when it is missing (2:10)',
		);
		const undefinedAnswer = await run(`return await ask("Go?", { default: "d" });`, { ask: () => undefined });
		expect(undefinedAnswer.result.value).toBe("d");
	});

	it("a handler that throws or rejects with a Proxy whose traps throw, or whose answer's getter throws: ask_unavailable saying so", async () => {
		const hostile = () =>
			new Proxy(
				{},
				new Proxy(
					{},
					{
						get: () => () => {
							throw new Error("trap boom");
						},
					},
				),
			);
		const handlers: WorkflowAskHandler[] = [
			() => {
				throw hostile();
			},
			() => Promise.reject(hostile()),
			() => hostile() as never,
			() =>
				({
					// biome-ignore lint/suspicious/noThenProperty: the fault under test is a thenable whose then throws.
					get then() {
						throw new Error("then boom");
					},
				}) as never,
		];
		const reasons: unknown[] = [];
		for (const ask of handlers) {
			const { result } = await run(`try { await ask("Go?"); } catch (e) { return [e.code, e.message]; }`, { ask });
			reasons.push(result.value);
		}
		const message = (reason: string) =>
			`Nobody can answer \`ask("Go?")\` here: ${reason}. Give the question a \`default\`, or pass the answer in \`args\` and ask only when it is missing (2:16)`;
		expect(reasons).toEqual([
			["ask_unavailable", message("the host's `ask` handler failed: a value that cannot be printed")],
			["ask_unavailable", message("the host's `ask` handler failed: a value that cannot be printed")],
			["ask_unavailable", message("the host's `ask` handler failed: trap boom")],
			["ask_unavailable", message("the host's `ask` handler failed: then boom")],
		]);
	});

	it("is journaled: a resume replays the answer (same question, same occurrence) and never calls the handler", async () => {
		const journal = memoryJournal();
		const body = `const a = await ask("Name?");\nconst b = await ask("Name?");\nconst c = await agent("greet " + a + " and " + b);\nreturn c;`;
		let n = 0;
		const first = await run(body, { journal, ask: () => `person${++n}` });
		expect(first.result.value).toBe("done: greet person1 and person2");
		const answers = [...journal.entries.values()].filter((entry) => entry.kind === "answer");
		expect(answers.map((entry) => entry.value)).toEqual(["person1", "person2"]);

		const { asked, handler } = recording(() => "someone else");
		const second = await run(body, { journal, ask: handler });
		expect(asked).toEqual([]);
		expect(second.prompts).toEqual([]);
		expect(second.result.value).toBe("done: greet person1 and person2");
		expect(
			second.events
				.filter((event) => event.type === "ask_answered")
				.map((e) => e.type === "ask_answered" && e.source),
		).toEqual(["journal", "journal"]);
	});

	it("an answer line is never an agent's value, and an agent's line is never an answer", async () => {
		const journal = memoryJournal();
		await run(`return await ask("q");`, { journal, ask: () => "answered" });
		const entry = [...journal.entries.values()][0] as WorkflowJournalEntry;
		// Forge an agent call whose key is the answer's: the agent runs instead of taking the answer.
		const agentJournal = memoryJournal();
		const first = await run(`return await agent("p");`, { journal: agentJournal });
		const agentEntry = [...agentJournal.entries.values()][0] as WorkflowJournalEntry;
		agentJournal.entries.set(agentEntry.key, { ...entry, key: agentEntry.key });
		const again = await run(`return await agent("p");`, { journal: agentJournal });
		expect(first.prompts).toEqual(["p"]);
		expect(again.prompts).toEqual(["p"]);
		// And an agent's value under the answer's key is asked again.
		journal.entries.set(entry.key, { key: entry.key, value: "an agent's" });
		const { asked, handler } = recording(() => "fresh");
		const asking = await run(`return await ask("q");`, { journal, ask: handler });
		expect(asked).toHaveLength(1);
		expect(asking.result.value).toBe("fresh");
	});

	it("the run's deadline does not count the wait, and counts again once it is answered", async () => {
		// The wait is longer than the whole deadline; the deadline is long enough for a sandbox to start on a busy machine.
		const waits = await run(`return await ask("Go?");`, {
			timeoutMs: 1000,
			ask: (_q, { signal }) => later(1300, "went", signal),
		});
		expect(waits.result).toMatchObject({ status: "completed", value: "went" });
		const after = await run(`await ask("Go?");\nawait sleep(5000);`, { timeoutMs: 1000, ask: () => "now" });
		expect(after.result.error?.code).toBe("timed_out");
	});

	it("an open question does not lend its wait to other work: calls started past the deadline end the run", async () => {
		// The question stays open for 6 s (then its default); beside it a loop starts an agent and a tool every 100 ms.
		let tools = 0;
		const { result, prompts } = await run(
			`await parallel([
  () => ask("Go?", { timeoutMs: 6000, default: "late" }),
  async () => { for (let i = 0; i < 50; i++) { await agent("step " + i); await tool("step", { i }); await sleep(100); } },
]);`,
			{
				timeoutMs: 1000,
				ask: (_q, { signal }) => later(60_000, "never", signal),
				tools: {
					step: async () => {
						tools++;
						return { output: "ok" };
					},
				},
			},
		);
		expect(result.error).toMatchObject({
			code: "timed_out",
			message:
				"The workflow ran past its deadline (limit: 1000 ms) while a question was open: waiting on a person is not counted, but `agent()` and `tool()` calls running or started meanwhile are. Raise `timeoutMs`",
		});
		// About 1 s of 100 ms steps: 10 (a loaded machine makes fewer), far from the loop's 50.
		expect(prompts.length).toBeLessThanOrEqual(11);
		expect(tools).toBeLessThanOrEqual(11);
	});

	it("an agent running while a question is open counts; one that ended before the slow answer does not", async () => {
		const slow = await run(`await parallel([() => agent("long"), () => ask("Go?")]);`, {
			timeoutMs: 1000,
			agentRunner: createFakeRunner(() => ({ text: "ok", delayMs: 5000 })).runner,
			ask: (_q, { signal }) => later(60_000, "never", signal),
		});
		expect(slow.result.error).toMatchObject({ code: "timed_out" });
		expect(slow.result.error?.message).toContain("while a question was open");
		const answered = await run(`return await parallel([() => ask("Go?"), () => agent("prep")]);`, {
			timeoutMs: 1000,
			ask: (_q, { signal }) => later(1300, "went", signal),
		});
		expect(answered.result).toMatchObject({ status: "completed", value: ["went", "done: prep"] });
	});

	it("a stopped run aborts the open question's signal and ends as stopped", async () => {
		const controller = new AbortController();
		let aborted = false;
		const { result } = await run(`await ask("Go?");`, {
			signal: controller.signal,
			ask: (_q, { signal }) => {
				signal.addEventListener("abort", () => {
					aborted = true;
				});
				setTimeout(() => controller.abort("user"), 10);
				return new Promise(() => {});
			},
		});
		expect(result.status).toBe("stopped");
		expect(aborted).toBe(true);
	});

	it("left open when the script returns: the question is withdrawn (its signal fires) and the run fails not_awaited", async () => {
		let withdrawn = false;
		const { result } = await run(`const a = 1;\nask("Go?").then(() => {});\nreturn a;`, {
			ask: (_q, { signal }) =>
				new Promise(() => {
					signal.addEventListener("abort", () => {
						withdrawn = true;
					});
				}),
		});
		expect(withdrawn).toBe(true);
		expect(result.error).toMatchObject({ code: "not_awaited", line: 3, column: 4 });
		expect(result.cutOff).toEqual([{ kind: "ask", name: "Go?", filename: "workflow.js", line: 3, column: 4 }]);
	});

	it("without await: the script's use of the promise is refused like agent()'s", async () => {
		const { result } = await run(`const a = ask("Go?", { default: "x" });\nreturn a.length;`, { ask: () => "y" });
		expect(result.error?.code).toBe("not_awaited");
	});
});
