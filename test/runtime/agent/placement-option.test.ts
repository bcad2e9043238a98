/**
 * `agent()` option `placement` (issue 48 §2): what a child needs of the machine it runs on reaches the runner as the
 * script wrote it, and a wrong one is refused by both tiers (the static pass and the run) with the same words.
 */
import { describe, expect, it } from "vitest";
import { checkWorkflowScript, runWorkflowScript } from "../../../src/runtime/index.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string) {
	const fake = createFakeRunner((request) => `done: ${request.prompt}`);
	const result = await runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner });
	return { result, fake };
}

function findings(body: string): string[] {
	return checkWorkflowScript(`${HEADER}${body}`).diagnostics.map(
		(d) => `${d.severity} ${d.code} ${d.line}:${d.column} ${d.message}`,
	);
}

describe("agent() option placement", () => {
	it("reaches the runner: required labels, preferences and the wait", async () => {
		const body = `return await agent("x", { placement: { labels: ["gpu", "repo=acme"], prefer: ["region=eu"], waitMs: 5000 } });`;
		const { result, fake } = await run(body);
		expect(result.status).toBe("completed");
		expect(fake.requests[0]?.placement).toEqual({
			labels: ["gpu", "repo=acme"],
			prefer: ["region=eu"],
			waitMs: 5000,
		});
		expect(findings(body)).toEqual([]);
	});

	it("is not part of the call's identity: where a child runs does not change its answer", async () => {
		const { fake } = await run(`await agent("x"); await agent("x", { placement: { labels: ["gpu"] } });`);
		// The same identity twice: one digest, occurrences #0 and #1.
		expect(fake.requests).toHaveLength(2);
		expect(fake.requests[1]?.key).toBe(fake.requests[0]?.key.replace(/#0$/, "#1"));
	});

	it("a label that is not one is refused in both tiers, naming it and the rule", async () => {
		const body = `await agent("x", { placement: { labels: ["gpu", "two words"] } });`;
		const message =
			'`agent()` option `placement.labels` must be a list of labels: "two words" is not a label (`name` or `name=value`: letters, digits and . _ / -)';
		const { result, fake } = await run(body);
		expect(result.error?.message).toBe(`${message} (2:12)`);
		expect(fake.requests).toHaveLength(0);
		expect(findings(body)).toEqual([`error agent_options_invalid 2:12 ${message}`]);
	});

	it("an unknown key and a wrong wait say what placement takes", async () => {
		expect(findings(`await agent("x", { placement: { label: ["gpu"] } });`)).toEqual([
			"error agent_options_invalid 2:12 `agent()` option `placement` takes `labels`, `prefer` and `waitMs`, not `label`",
		]);
		expect(findings(`await agent("x", { placement: { waitMs: -1 } });`)).toEqual([
			"error agent_options_invalid 2:12 `agent()` option `placement.waitMs` must be a number of milliseconds from 0 to 2147483647, got -1",
		]);
	});
});
