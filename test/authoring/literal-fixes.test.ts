/**
 * Each message's fix, applied as written, gives a script that runs: the mistake fails with its code and its whole
 * message (position included), and the script the fix makes passes the static check and returns its value. Through
 * `runWorkflowScript`, the real sandbox and the scripted runner.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	checkWorkflowScript,
	runWorkflowScript,
	type WorkflowAgentRequest,
	type WorkflowRunOptions,
} from "../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { HEADER } from "./corpus-table.ts";
import { AUDITED, type LiteralFix, RUNTIME, STATIC } from "./literal-fixes-table.ts";

checkSandboxLeaks();

let cwd: string;
beforeAll(() => {
	cwd = mkdtempSync(join(tmpdir(), "wf-literal-fixes-"));
	for (const row of [...STATIC, ...AUDITED, ...RUNTIME]) {
		for (const [name, text] of Object.entries(row.files ?? {})) writeFileSync(join(cwd, name), text);
	}
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** A schema call answers the list the runtime rows ask for; anything else echoes its prompt. */
function answer(request: WorkflowAgentRequest): FakeAnswer {
	return request.schema ? { structured: { files: ["a", "b"] } } : `done: ${request.prompt}`;
}

async function run(body: string, row: LiteralFix) {
	const fake = createFakeRunner(answer);
	const options: WorkflowRunOptions = { agentRunner: fake.runner, cwd, ...row.options };
	const result = await runWorkflowScript(
		HEADER + body,
		row.args !== undefined ? { ...options, args: row.args } : options,
	);
	return { result, fake };
}

function position(message: string): { line: number; column: number } {
	const match = / \((\d+):(\d+)\)$/.exec(message);
	if (!match) throw new Error(`no position at the end of ${JSON.stringify(message)}`);
	return { line: Number(match[1]), column: Number(match[2]) };
}

describe.each([
	["found before anything runs", STATIC, true],
	["audited: advice that failed when followed to the letter", AUDITED, false],
	["found when the value shows up", RUNTIME, false],
])("messages %s", (_tier, rows, beforeRun) => {
	it.each(rows.map((row): [string, LiteralFix] => [row.name, row]))("%s", async (_name, row) => {
		const mistake = await run(row.body, row);
		expect(mistake.result.status).toBe("failed");
		const message = row.message.replaceAll("{cwd}", cwd);
		const column = row.columnVaries ? mistake.result.error?.column : position(message).column;
		expect(mistake.result.error?.message).toBe(message.replace(/:\d+\)$/, `:${column})`));
		expect(mistake.result.error).toMatchObject({ code: row.code, line: position(message).line, column });
		if (beforeRun) expect(mistake.fake.requests, "agents started").toHaveLength(0);

		expect(checkWorkflowScript(HEADER + row.fixed).diagnostics, "the fixed script's findings").toEqual([]);
		const fixed = await run(row.fixed, row);
		expect(fixed.result.error, fixed.result.error?.message).toBeUndefined();
		expect(fixed.result.value).toEqual(row.value);
	});
});
