/**
 * review-and-fix.js with real pi child sessions on the faux provider: the replies the demo has to script, and proof
 * that they are enough. Replies are routed by the child's task (its prompt), because children share one provider.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { EXAMPLES_DIR, exampleSource } from "./harness.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => fx.teardown());

/** A child that answers by calling the structured-output tool once. */
const submit = (value: Parameters<typeof fauxToolCall>[1]) => [
	fauxAssistantMessage([fauxToolCall("submit_result", value)], { stopReason: "toolUse" }),
];
const finding = (line: number, severity: string) => ({
	file: "src/math.ts",
	line,
	severity,
	title: "add() subtracts",
	detail: "add(a, b) returns a - b",
});

describe("review-and-fix.js on real pi sessions (the demo's script)", () => {
	it("runs with { target: 'src/math.ts' } and five scripted replies: three reviews, one fix, one verification", async () => {
		fx.faux.route("Review src/math.ts for correctness", submit({ findings: [finding(3, "high")] }));
		fx.faux.route("Review src/math.ts for security", submit({ findings: [] }));
		fx.faux.route("Review src/math.ts for tests", submit({ findings: [finding(4, "medium")] }));
		fx.faux.route("Fix one finding in src/math.ts", submit({ status: "fixed", summary: "add() now returns a + b" }));
		fx.faux.route("Verify the fixes in src/math.ts", submit({ ok: true, problems: [] }));

		const result = await runWorkflowScript(exampleSource("review-and-fix.js"), {
			agentRunner: fx.runner(),
			args: { target: "src/math.ts" },
			cwd: fx.dirs.cwd,
			filename: `${EXAMPLES_DIR}/review-and-fix.js`,
		});

		expect(result.failures).toEqual([]);
		expect(result).toMatchObject({
			status: "completed",
			counts: { calls: 5, completed: 5, failed: 0 },
			value: {
				findings: [{ id: "F1", severity: "high", title: "add() subtracts" }],
				fixes: [{ id: "F1", status: "fixed", summary: "add() now returns a + b" }],
				verification: { ok: true, problems: [] },
			},
		});
		expect(fx.faux.pendingReplies()).toBe(0);
		// The reviewers got the read-only allowlist the script asked for.
		const reviewer = fx.faux.requests.find((r) => r.task.includes("for security"));
		expect(reviewer?.tools).not.toContain("edit");
		expect(reviewer?.tools).toContain("submit_result");
	});
});
