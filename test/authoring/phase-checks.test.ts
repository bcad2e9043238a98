/**
 * The static pass on `phase()`: every legal form gives no finding (`phase(name)`, `phase(name, fn)`,
 * `phase(name, options)`, `phase(name, options, fn)`, options it cannot know); misspelled options and budget fields
 * are errors with the name meant, at the call's `(`, as the run would say them.
 */
import { describe, expect, it } from "vitest";
import { checkWorkflowScript } from "../../src/runtime/index.ts";

const HEAD = `export const meta = { name: "t", description: "d" };\n`;

function findings(body: string) {
	return checkWorkflowScript(`${HEAD}${body}`).diagnostics.map(({ code, line, column, message, fix }) => ({
		code,
		at: `${line}:${column}`,
		message,
		fix,
	}));
}

describe("the static pass on phase()", () => {
	it.each([
		[`phase("a");`],
		[`await phase("a", async () => agent("x"));`],
		[`await phase("a", function () { return 1; });`],
		[`phase("a", { budget: { agentCalls: 3, tokens: 1000, costUsd: 0.5 } });`],
		[`await phase("a", { budget: { costUsd: 0.5 } }, async () => agent("x"));`],
		[`const limit = args.cap; phase("a", { budget: { costUsd: limit } });`],
		[`const opts = { budget: { costUsd: 1 } }; phase("a", opts);`],
		[`phase("a", { ...args.phaseOptions });`],
		[`const run = async () => 1; await phase("a", run);`],
		[`phase("a", null);`],
	])("%s: no finding", (body) => {
		expect(findings(body)).toEqual([]);
	});

	it.each([
		[
			`phase("a", { budget: { costUSD: 0.5 } });`,
			"Unknown `phase()` budget field `costUSD`",
			"Did you mean `costUsd`? Known: agentCalls, tokens, costUsd",
		],
		[
			`phase("a", { budget: { maxCostUsd: 0.5 } });`,
			"Unknown `phase()` budget field `maxCostUsd`",
			"Did you mean `costUsd`? Known: agentCalls, tokens, costUsd",
		],
		[
			`phase("a", { budgte: { costUsd: 0.5 } });`,
			"Unknown `phase()` option `budgte`",
			"Did you mean `budget`? Known: budget",
		],
		[
			`phase("a", { agentCalls: 3 });`,
			"Unknown `phase()` option `agentCalls`: limits go in `budget`",
			"Write `{ budget: { agentCalls: … } }`",
		],
		[
			`const OPTS = { budget: { tokns: 10 } }; phase("a", OPTS);`,
			"Unknown `phase()` budget field `tokns`",
			"Did you mean `tokens`? Known: agentCalls, tokens, costUsd",
		],
		[
			`phase("a", { budget: { costUsd: "$1" } });`,
			'`phase()` budget `costUsd` must be a positive number, got "$1"',
			"",
		],
		[
			`await phase("a", async () => 1, { budget: {} });`,
			"`phase()` takes its options before the function",
			"Write `phase(name, { budget }, fn)`",
		],
	])("%s: phase_options_invalid with the fix", (body, message, fix) => {
		const [finding, ...rest] = findings(body);
		expect(rest).toEqual([]);
		expect(finding).toEqual({ code: "phase_options_invalid", at: `2:${body.indexOf("phase(") + 6}`, message, fix });
	});

	it("a phase call after other code is found at its own line", async () => {
		const report = checkWorkflowScript(`${HEAD}await agent("x");\nphase("b", { budget: { cost: 1 } });`);
		expect(report.ok).toBe(false);
		expect(report.diagnostics.map((d) => [d.code, d.line, d.column, d.message])).toEqual([
			["phase_options_invalid", 3, 6, "Unknown `phase()` budget field `cost`"],
		]);
	});
});
