import { describe, expect, it } from "vitest";
import type { WorkflowTool } from "../../src/runtime/index.ts";
import { callsLabelled, phasesStarted, type Route, runExample } from "./harness.ts";

const FILE = "gated-fixes.js";

const FIXES = [
	{ title: "add() subtracts", detail: "add(a, b) returns a - b" },
	{ title: "README typo" },
	{ title: "Flaky clock test" },
];

/** Fixers report the branch their index gives; the third gives up. */
const FIXERS: Route = {
	when: { label: /^fix \d/ },
	answer: (request) =>
		request.label.startsWith("fix 3")
			? { structured: { status: "gave-up", summary: "needs a fake clock", branch: "none" } }
			: { structured: { status: "fixed", summary: `fixed ${request.label}`, branch: `wf/${request.index}` } },
};

/** A shell that records commands: the tests fail on `failing` branches, merges succeed. */
function shell(failing: string[]) {
	const commands: string[] = [];
	const bash: WorkflowTool = async (params) => {
		const command = String((params as { command: string }).command);
		commands.push(command);
		const failed = failing.some((branch) => command.includes(`--detach .gate-`) && command.includes(` ${branch} `));
		return {
			output: failed ? "1 test failed" : "ok",
			isError: failed,
			details: { exit_code: failed ? 1 : 0 },
		};
	};
	return { commands, bash };
}

describe("gated-fixes.js", () => {
	it("gates each kept branch with the test command through tool('bash') and merges only those that passed", async () => {
		const { commands, bash } = shell(["wf/1"]);
		const run = await runExample(FILE, {
			args: { fixes: FIXES, test: "npm test -- --run" },
			routes: [FIXERS],
			tools: { bash },
		});
		expect(run.result.status).toBe("completed");
		expect(run.runner.unmatched).toEqual([]);
		expect(phasesStarted(run)).toEqual(["fix", "gate", "merge"]);
		expect(callsLabelled(run, /^fix \d/).every((call) => call.isolation === "worktree")).toBe(true);
		expect(commands).toEqual([
			"git worktree add --detach .gate-0 wf/0 >/dev/null && (cd .gate-0 && npm test -- --run); code=$?; git worktree remove --force .gate-0; exit $code",
			"git worktree add --detach .gate-1 wf/1 >/dev/null && (cd .gate-1 && npm test -- --run); code=$?; git worktree remove --force .gate-1; exit $code",
			"git merge --no-ff --no-edit wf/0",
		]);
		expect(run.result.value).toEqual({
			gated: [
				{ title: "add() subtracts", branch: "wf/0", passed: true, exit: 0 },
				{ title: "README typo", branch: "wf/1", passed: false, exit: 1 },
			],
			failedTests: [{ branch: "wf/1", tail: "1 test failed" }],
			merged: ["wf/0"],
			unmerged: [],
		});
		expect(run.logs.map((entry) => entry.message)).toContain("1 of 2 branches passed `npm test -- --run`");
	});

	it("a branch name that is not safe in a shell is never gated or merged", async () => {
		const { commands, bash } = shell([]);
		const run = await runExample(FILE, {
			args: { fixes: [{ title: "one" }] },
			routes: [
				{
					when: { label: /^fix/ },
					answer: { structured: { status: "fixed", summary: "s", branch: "x; rm -rf ~" } },
				},
			],
			tools: { bash },
		});
		expect(run.result.value).toMatchObject({ gated: [], merged: [] });
		expect(commands).toEqual([]);
	});
});
