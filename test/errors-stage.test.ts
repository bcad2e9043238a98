/** Every error code's stage in one table, the code lists derived from it, and the stage a run result says. */
import { describe, expect, it } from "vitest";
import {
	CATCHABLE_CODES,
	codesOfStage,
	ERROR_CODES,
	errorStage,
	runResultError,
	WorkflowError,
	type WorkflowErrorCode,
} from "../src/errors.ts";
import { runWorkflowScript } from "../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "./helpers/fake-runner.ts";
import { checkSandboxLeaks } from "./helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const STAGES = ["before_start", "author", "guest", "child", "host"];

/** The lists as they were kept by hand before the table: the derived ones must equal them. */
const BEFORE = {
	// src/tool/workflow-tool.ts: a run ending with one of these (and no call made) fails the tool call.
	beforeStart: ["script_too_large", "syntax_error", "meta_invalid", "args_invalid", "name_undeclared"],
	// src/runtime/agent/attempt.ts and src/queue/worker.ts: a runner's rejection `agent()` throws rather than null.
	author: [
		"agent_type_unknown",
		"agent_options_invalid",
		"schema_invalid",
		// Issue 36: a child that continues or forks a conversation it cannot have.
		"resume_not_found",
		"resume_ambiguous",
		"resume_unavailable",
		"fork_unavailable",
		// Issue 42: a dry run's schema it cannot sample is the script's to fix, as schema_invalid is.
		"schema_unsampleable",
	],
	// src/runtime/script-run.ts: the codes a script's uncaught error keeps.
	catchable: [
		"resume_not_found",
		"resume_ambiguous",
		"resume_unavailable",
		"fork_unavailable",
		"meta_invalid",
		"syntax_error",
		"args_invalid",
		"agent_type_unknown",
		"agent_options_invalid",
		"schema_invalid",
		"schema_unmet",
		"agent_cap_reached",
		"budget_exhausted",
		"phase_options_invalid",
		"fanout_declined",
		"limit_items",
		"limit_value_size",
		"value_not_json",
		"not_awaited",
		"determinism",
		"cancelled",
		"timed_out",
		"provider_limit",
		// Added with the cap that parks the run: the stop it throws ends the script with this code, as provider_limit does.
		"cost_cap",
		"workflow_not_found",
		"workflow_nesting",
		"limit_workflows",
		"ask_options_invalid",
		"ask_answer_invalid",
		"ask_timeout",
		"ask_unavailable",
		"tool_options_invalid",
		"tool_unavailable",
		"tool_unknown",
		"tool_refused",
		"tool_failed",
		"tool_timeout",
		"limit_tool_calls",
		"limit_ask_calls",
		"schema_unsampleable",
	],
};

const sorted = (codes: Iterable<string>) => [...codes].sort();

describe("error codes and their stages", () => {
	it("gives every code exactly one known stage", () => {
		const codes = Object.keys(ERROR_CODES) as WorkflowErrorCode[];
		expect(codes.length).toBe(80);
		for (const code of codes) expect(STAGES, code).toContain(errorStage(code));
		const byStage = STAGES.flatMap((stage) => [...codesOfStage(stage as never)]);
		expect(sorted(byStage)).toEqual(sorted(codes));
	});

	it("derives the lists that were kept by hand, unchanged", () => {
		expect(sorted(codesOfStage("before_start"))).toEqual(sorted(BEFORE.beforeStart));
		expect(sorted(codesOfStage("author"))).toEqual(sorted(BEFORE.author));
		expect(sorted(CATCHABLE_CODES)).toEqual(sorted(BEFORE.catchable));
	});

	it("says no stage for a code that is not in the table", () => {
		const made = new WorkflowError("made_up" as WorkflowErrorCode, "a host's own code");
		expect(errorStage(made.code)).toBeUndefined();
		expect(runResultError(made)).toEqual({ code: "made_up", message: "a host's own code" });
		expect(errorStage("toString" as WorkflowErrorCode)).toBeUndefined();
	});
});

describe("a run result's error says its stage", () => {
	const fake = createFakeRunner();
	const SAMPLES: [name: string, code: string, stage: string, script: string][] = [
		["a syntax error", "syntax_error", "before_start", `${HEADER}\nconst = 3;`],
		["a missing header", "meta_invalid", "before_start", `await agent("x");`],
		["an uncaught error", "script_error", "guest", `${HEADER}null.foo;`],
		[
			"too many items",
			"limit_items",
			"guest",
			`${HEADER}await parallel(Array.from({ length: 5000 }, () => () => 1));`,
		],
	];

	it.each(SAMPLES)("on %s: %s is %s", async (_, code, stage, script) => {
		const result = await runWorkflowScript(script, { agentRunner: fake.runner });
		expect(result.error).toMatchObject({ code, stage });
		expect(Object.keys(result.error ?? {}).slice(0, 2)).toEqual(["code", "stage"]);
	});

	it("on a runner's author error, which agent() throws: author", async () => {
		const result = await runWorkflowScript(`${HEADER}await agent("x", { agentType: "nobody" });`, {
			agentRunner: async () => {
				throw new WorkflowError("agent_type_unknown", "Unknown agent type `nobody`. Available: (none)");
			},
		});
		expect(result.error).toMatchObject({ code: "agent_type_unknown", stage: "author", line: 2 });
	});

	it("when every agent failed: child", async () => {
		const failing = createFakeRunner(() => ({ fail: "down" }));
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, { agentRunner: failing.runner });
		expect(result.error).toMatchObject({ code: "agents_failed", stage: "child" });
	});

	it("when the caller cancels: host", async () => {
		const controller = new AbortController();
		controller.abort("no longer needed");
		const result = await runWorkflowScript(`${HEADER}return await agent("a");`, {
			agentRunner: fake.runner,
			signal: controller.signal,
		});
		expect(result).toMatchObject({ status: "stopped", error: { code: "cancelled", stage: "host" } });
	});
});
