/**
 * Each message's fix, applied as written, gives a script that runs: the mistake fails with its code and its whole
 * message (position included), and the script the fix makes passes the static check and returns its value. Through
 * `runWorkflowScript`, the real sandbox and the scripted runner.
 */
import { describe, expect, it } from "vitest";
import { checkWorkflowScript, runWorkflowScript, type WorkflowAgentRequest } from "../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { HEADER } from "./corpus-table.ts";
import { type LiteralFix, RUNTIME, STATIC } from "./literal-fixes-table.ts";

checkSandboxLeaks();

/** A schema call answers the list the runtime rows ask for; anything else echoes its prompt. */
function answer(request: WorkflowAgentRequest): FakeAnswer {
	return request.schema ? { structured: { files: ["a", "b"] } } : `done: ${request.prompt}`;
}

async function run(body: string, args: unknown) {
	const fake = createFakeRunner(answer);
	const result = await runWorkflowScript(HEADER + body, {
		agentRunner: fake.runner,
		...(args !== undefined ? { args } : {}),
	});
	return { result, fake };
}

function position(message: string): { line: number; column: number } {
	const match = / \((\d+):(\d+)\)$/.exec(message);
	if (!match) throw new Error(`no position at the end of ${JSON.stringify(message)}`);
	return { line: Number(match[1]), column: Number(match[2]) };
}

describe.each([
	["found before anything runs", STATIC, true],
	["found when the value shows up", RUNTIME, false],
])("messages %s", (_tier, rows, beforeRun) => {
	it.each(rows.map((row): [string, LiteralFix] => [row.name, row]))("%s", async (_name, row) => {
		const mistake = await run(row.body, row.args);
		expect(mistake.result.status).toBe("failed");
		expect(mistake.result.error?.message).toBe(row.message);
		expect(mistake.result.error).toMatchObject({ code: row.code, ...position(row.message) });
		if (beforeRun) expect(mistake.fake.requests, "agents started").toHaveLength(0);

		expect(checkWorkflowScript(HEADER + row.fixed).diagnostics, "the fixed script's findings").toEqual([]);
		const fixed = await run(row.fixed, row.args);
		expect(fixed.result.error, fixed.result.error?.message).toBeUndefined();
		expect(fixed.result.value).toEqual(row.value);
	});
});
