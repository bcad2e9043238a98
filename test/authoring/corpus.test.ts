/**
 * The corpus: each mistake fails the run before any agent starts, with its code at the author's line:column; each
 * control runs and returns its exact value. Through `runWorkflowScript`, the real sandbox and the scripted runner.
 */
import { describe, expect, it } from "vitest";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import {
	CONTROLS,
	HEADER,
	type Mistake,
	NEVER_CALLED,
	OPTIONS,
	SYNTAX,
	UNAWAITED,
	UNDECLARED,
} from "./corpus-table.ts";

checkSandboxLeaks();

const MARK = "‸";

/** The source without its mark, and the 1-based line:column the mark stood at. */
function marked(text: string): { source: string; line: number; column: number } {
	const at = text.indexOf(MARK);
	if (at < 0 || text.indexOf(MARK, at + 1) >= 0) throw new Error(`one ${MARK} expected in ${JSON.stringify(text)}`);
	const before = text.slice(0, at).split("\n");
	return {
		source: text.slice(0, at) + text.slice(at + MARK.length),
		line: before.length,
		column: (before.at(-1)?.length ?? 0) + 1,
	};
}

const ALL: Mistake[] = [...UNDECLARED, ...SYNTAX, ...UNAWAITED, ...NEVER_CALLED, ...OPTIONS];

describe("the corpus", () => {
	it("holds at least 60 mistakes and 15 controls", () => {
		expect(ALL.length).toBeGreaterThanOrEqual(60);
		expect(CONTROLS.length).toBeGreaterThanOrEqual(15);
	});
});

describe.each([
	["undeclared names", UNDECLARED],
	["syntax errors explained", SYNTAX],
	["promises used without await", UNAWAITED],
	["wrappers nothing calls", NEVER_CALLED],
	["literal options and schemas", OPTIONS],
])("mistakes: %s", (_category, rows) => {
	it.each(rows)("%s", async (_name, body, code, options = {}) => {
		const { source, line, column } = marked(options.whole ? body : HEADER + body);
		const fake = createFakeRunner();
		const events: string[] = [];
		const result = await runWorkflowScript(source, {
			agentRunner: fake.runner,
			...(options.agentTypes ? { agentTypes: options.agentTypes } : {}),
			onProgress: (event) => events.push(event.type),
		});
		expect(result.status).toBe("failed");
		expect(result.error, result.error?.message).toMatchObject({ code, line, column });
		// The message says what to do, not only what went wrong: never a bare engine message.
		expect(result.error?.message).not.toMatch(/^(Unexpected token|Uncaught )/);
		const diagnostics = result.error?.details?.diagnostics as { code: string }[] | undefined;
		if (diagnostics)
			expect(
				diagnostics.map((d) => d.code),
				"one finding, the intended one",
			).toEqual([code]);
		expect(fake.requests, "agents started").toHaveLength(0);
		expect(events).toEqual(["run_end"]);
	});
});

describe("controls: look-alike code that is fine runs with its exact value", () => {
	it.each(CONTROLS)("%s", async (_name, body, value) => {
		const fake = createFakeRunner((request) =>
			request.schema ? { structured: { ok: true } } : `done: ${request.prompt}`,
		);
		const result = await runWorkflowScript(HEADER + body, { agentRunner: fake.runner });
		expect(result.error).toBeUndefined();
		expect(result.value).toEqual(value);
	});
});
