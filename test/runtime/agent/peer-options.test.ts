/**
 * Other runtimes' `agent()` options and header keys: the spellings we have a meaning for do what ours do
 * (`thinkingLevel`, `tier`, `readOnly`, `gate`), the ones we do not are refused with where they come from and what
 * to write instead, our own typos keep their "did you mean", and both tiers (the static pass and the run) agree.
 */
import { describe, expect, it } from "vitest";
import {
	checkWorkflowScript,
	runWorkflowScript,
	type WorkflowRunOptions,
	type WorkflowTool,
} from "../../../src/runtime/index.ts";
import { createFakeRunner, type FakeAnswer, HEADER } from "../../helpers/fake-runner.ts";
import { memoryJournal } from "../../helpers/memory-journal.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

async function run(body: string, options: Partial<WorkflowRunOptions> = {}, answer?: (prompt: string) => FakeAnswer) {
	const fake = createFakeRunner((request) => (answer ? answer(request.prompt) : `done: ${request.prompt}`));
	const logs: string[] = [];
	const result = await runWorkflowScript(`${HEADER}${body}`, {
		agentRunner: fake.runner,
		onProgress: (event) => {
			if (event.type === "log") logs.push(`${event.level}: ${event.message}`);
		},
		...options,
	});
	return { result, fake, logs };
}

/** The static pass's findings, as `code line:column message | fix`. */
function findings(body: string): string[] {
	return checkWorkflowScript(`${HEADER}${body}`).diagnostics.map(
		(d) => `${d.severity} ${d.code} ${d.line}:${d.column} ${d.message} | ${d.fix}`,
	);
}

describe("accepted peer spellings", () => {
	it("thinkingLevel is thinking", async () => {
		const { result, fake } = await run(`return await agent("x", { thinkingLevel: "high" });`);
		expect(result.status).toBe("completed");
		expect(fake.requests[0]?.thinking).toBe("high");
		expect(findings(`await agent("x", { thinkingLevel: "high" });`)).toEqual([]);
	});

	it("thinkingLevel with another thinking value is one option given twice, in both tiers", async () => {
		const body = `await agent("x", { thinking: "low", thinkingLevel: "high" });`;
		const { result, fake } = await run(body);
		expect(result.error?.message).toBe(
			"`agent()` options `thinking` and `thinkingLevel` are the same option; give one (2:12)",
		);
		expect(fake.requests).toHaveLength(0);
		expect(findings(body)).toEqual([
			"error agent_options_invalid 2:12 `agent()` options `thinking` and `thinkingLevel` are the same option; give one | ",
		]);
	});

	it("a bad thinkingLevel value names the levels", async () => {
		expect(findings(`await agent("x", { thinkingLevel: "huge" });`)).toEqual([
			'error agent_options_invalid 2:12 `agent()` option `thinking` must be one of off, minimal, low, medium, high, xhigh, got "huge" | ',
		]);
	});

	it("tier goes to the runner as the request's tier, and is part of the call's key", async () => {
		const { result, fake } = await run(
			`const a = await agent("x", { tier: "small" }); const b = await agent("x", { tier: "big" }); return [a, b];`,
		);
		expect(result.status).toBe("completed");
		expect(fake.requests.map((r) => r.tier)).toEqual(["small", "big"]);
		expect(fake.requests[0]?.key).not.toBe(fake.requests[1]?.key);
	});

	it("tier must be a name", async () => {
		expect(findings(`await agent("x", { tier: 2 });`)).toEqual([
			'error agent_options_invalid 2:12 `agent()` option `tier` must be the name of a model tier such as "small", "medium" or "big", got 2 | ',
		]);
	});

	it("readOnly: true goes to the runner; with a writing tool in `tools` it is refused in both tiers", async () => {
		const { fake } = await run(`await agent("x", { readOnly: true }); await agent("y", { readOnly: false });`);
		expect(fake.requests.map((r) => r.readOnly)).toEqual([true, undefined]);
		const body = `await agent("x", { readOnly: true, tools: ["read", "bash"] });`;
		const message =
			"`agent()` options `readOnly: true` and `tools` disagree: `tools` names `bash`, which a read-only child does not get. Drop `readOnly`, or take it out of `tools`";
		const { result } = await run(body);
		expect(result.error?.message).toBe(`${message} (2:12)`);
		expect(findings(body)).toEqual([
			"error agent_options_invalid 2:12 `agent()` options `readOnly: true` and `tools` disagree: `tools` names `bash`, which a read-only child does not get | Drop `readOnly`, or take it out of `tools`",
		]);
	});
});

describe("refused peer options", () => {
	const cases: [string, string][] = [
		[
			`inheritMainRules: true`,
			'`agent()` option `inheritMainRules` comes from pi-dynamic-workflows (its context-inheritance modes), and this runtime has no equivalent. Leave it out (a child here gets its agent type\'s prompt, context files and skills), or name an agent file with `agent: "name"` whose `prompt_mode`, `inherit_project_context` and `inherit_skills` fields say what the child gets',
		],
		[
			`disallowedTools: ["bash"]`,
			'`agent()` option `disallowedTools` comes from pi-dynamic-workflows (a per-call tool denylist), and this runtime has no equivalent. List the tools the child may use with `tools: ["read", "grep"]`, write `readOnly: true` to take away edit, write and bash, or put `disallowed_tools` in an agent file',
		],
	];
	for (const [option, message] of cases) {
		it(`${option}: says where it comes from and what to write, at run time and statically`, async () => {
			const body = `await agent("x", { ${option} });`;
			const { result, fake } = await run(body);
			expect(result.status).toBe("failed");
			expect(result.error?.code).toBe("agent_options_invalid");
			expect(result.error?.message).toBe(`${message} (2:12)`);
			expect(fake.requests).toHaveLength(0);
			const [finding] = checkWorkflowScript(`${HEADER}${body}`).diagnostics;
			expect(finding).toMatchObject({ code: "agent_options_invalid", line: 2, column: 12, severity: "error" });
			expect(`${finding?.message}. ${finding?.fix}`).toBe(message);
		});
	}

	it("a typo of our own option is still an error with did you mean", async () => {
		const { result } = await run(`await agent("x", { thinkng: "high" });`);
		expect(result.error?.message).toContain("Unknown `agent()` option `thinkng`. Did you mean `thinking`?");
		expect(findings(`await agent("x", { tire: "small" });`)[0]).toContain("Did you mean `tier`?");
	});
});

describe("gate", () => {
	/** A fake shell whose `npm test` fails until it has run `passAfter` times. */
	function shell(passAfter: number) {
		const commands: string[] = [];
		const bash: WorkflowTool = async (params) => {
			const command = String((params as { command?: unknown }).command);
			commands.push(command);
			const exit = commands.length > passAfter ? 0 : 1;
			return { output: `FAIL test ${commands.length}`, isError: exit !== 0, details: { exit_code: exit } };
		};
		return { commands, bash };
	}

	it("runs the command after the answer and retries the agent with its output until it passes", async () => {
		const { bash, commands } = shell(1);
		const { result, fake, logs } = await run(`return await agent("fix it", { gate: "npm test", label: "fixer" });`, {
			tools: { bash },
		});
		expect(result.status).toBe("completed");
		expect(commands).toEqual(["npm test", "npm test"]);
		expect(fake.requests.map((r) => r.prompt)).toEqual([
			"fix it",
			"fix it\n\nYour previous answer did not pass the check `npm test` (attempt 1 of 3). Its output:\n\nFAIL test 1\n\nFix what it reports, then answer again.",
		]);
		expect(result.value).toBe(`done: ${fake.requests[1]?.prompt}`);
		expect(result.counts).toMatchObject({ calls: 2, completed: 2 });
		expect(result.tools).toMatchObject({ calls: 2, errors: 1 });
		expect(logs.filter((line) => line.includes("$ gate: npm test"))).toHaveLength(2);
	});

	it("gives null with a warning after the last attempt still fails", async () => {
		const { bash, commands } = shell(10);
		const { result, fake, logs } = await run(`return await agent("fix it", { gate: "npm test", label: "fixer" });`, {
			tools: { bash },
		});
		expect(result.status).toBe("completed");
		expect(result.value).toBeNull();
		expect(fake.requests).toHaveLength(3);
		expect(commands).toHaveLength(3);
		expect(logs).toContain(
			"warn: agent `fixer`: the gate `npm test` still failed after 3 attempts; agent() gives null",
		);
	});

	it("without a bash tool it is a clear error before any agent runs", async () => {
		const { result, fake } = await run(`await agent("fix it", { gate: "npm test" });`);
		expect(result.error?.code).toBe("agent_options_invalid");
		expect(result.error?.message).toBe(
			'`agent()` option `gate` runs `npm test` with the `bash` tool after the answer, and this run lends no `bash` tool. In pi, run the workflow with the `workflow` tool (it lends the session\'s tools); on the command line, add `--allow-tools bash`; or drop `gate` and call `tool("bash", { command })` yourself (2:12)',
		);
		expect(fake.requests).toHaveLength(0);
	});

	it("a resumed run replays the answers and the checks instead of running them again", async () => {
		const journal = memoryJournal();
		const first = shell(1);
		const script = `return await agent("fix it", { gate: "npm test" });`;
		const one = await run(script, { tools: { bash: first.bash }, journal });
		expect(one.result.status).toBe("completed");
		const again = shell(0);
		const two = await run(script, { tools: { bash: again.bash }, journal });
		expect(two.result.value).toEqual(one.result.value);
		expect(two.fake.requests).toHaveLength(0);
		expect(again.commands).toEqual([]);
	});
});

describe("extra meta keys", () => {
	it("another runtime's key in meta.phases[] is a warning in both tiers, and the script still sees it", async () => {
		const script = `export const meta = { name: "t", description: "d", phases: [{ title: "Find", agentCount: 3 }] };\nreturn meta.phases[0].agentCount;`;
		const report = checkWorkflowScript(script);
		expect(report.ok).toBe(true);
		expect(report.diagnostics.map((d) => [d.severity, d.code, d.line, d.column, d.message, d.fix])).toEqual([
			[
				"warning",
				"meta_invalid",
				1,
				78,
				"`meta.phases[0].agentCount` is not a key this runtime reads (another runtime's, perhaps): the script still sees it in `meta`, nothing else reads it",
				"Known keys: title, detail",
			],
		]);
		const fake = createFakeRunner();
		const logs: string[] = [];
		const result = await runWorkflowScript(script, {
			agentRunner: fake.runner,
			onProgress: (event) => {
				if (event.type === "log") logs.push(`${event.level}: ${event.message}`);
			},
		});
		expect(result.status).toBe("completed");
		expect(result.value).toBe(3);
		expect(logs).toContain(
			"warn: workflow.js:1:78 `meta.phases[0].agentCount` is not a key this runtime reads (another runtime's, perhaps): the script still sees it in `meta`, nothing else reads it. Known keys: title, detail",
		);
	});

	it("a top-level extra key is a warning too", () => {
		const report = checkWorkflowScript(`export const meta = { name: "t", description: "d", version: 2 };\n`);
		expect(report.ok).toBe(true);
		expect(report.diagnostics[0]?.message).toBe(
			"`meta.version` is not a key this runtime reads (another runtime's, perhaps): the script still sees it in `meta`, nothing else reads it",
		);
	});

	it("a key that looks like a typo of a known one stays an error with did you mean", async () => {
		const script = `export const meta = { name: "t", descripton: "d" };\n`;
		const report = checkWorkflowScript(script);
		expect(report.ok).toBe(false);
		expect(report.diagnostics[0]).toMatchObject({ severity: "error", code: "meta_invalid", line: 1, column: 34 });
		expect(report.diagnostics[0]?.message).toBe("`meta.descripton` is not a known key");
		expect(report.diagnostics[0]?.fix).toBe(
			"Did you mean `description`? Known keys: name, description, whenToUse, phases, args, model",
		);
		const phase = checkWorkflowScript(
			`export const meta = { name: "t", description: "d", phases: [{ titel: "a" }] };`,
		);
		expect(phase.diagnostics[0]?.fix).toContain("Did you mean `title`?");
	});
});

describe("plugin-scoped agent types", () => {
	it("`plugin:reviewer` runs as `reviewer` where that type exists, named in the census", async () => {
		const { result, fake, logs } = await run(
			`await agent("a", { agent: "pr-toolkit:reviewer", label: "r1" }); await agent("b", { agent: "pr-toolkit:reviewer" });`,
			{ agentTypes: ["general-purpose", "reviewer"] },
		);
		expect(result.status).toBe("completed");
		expect(fake.requests.map((r) => r.agentType)).toEqual(["reviewer", "reviewer"]);
		expect(result.matches).toEqual([
			{
				kind: "agent",
				written: "pr-toolkit:reviewer",
				resolved: "reviewer",
				how: "the type of that name; plugins are not loaded here",
				calls: 2,
			},
		]);
		expect(logs).toContain(
			"info: `r1`: agent type `pr-toolkit:reviewer` is reviewer (the type of that name; plugins are not loaded here)",
		);
		const report = checkWorkflowScript(`${HEADER}await agent("a", { agent: "pr-toolkit:reviewer" });`, {
			agentTypes: ["general-purpose", "reviewer"],
		});
		expect(report.diagnostics).toEqual([]);
	});

	it("a plugin type with no type of its name is a clear error in both tiers", async () => {
		const message =
			"Unknown agent type `pr-toolkit:code-reviewer`: a plugin's agent type (`plugin:agent`, as Claude Code names them), and no agent type `code-reviewer` exists here to stand for it. Add an agent file `code-reviewer.md` to .pi/agents/ or .claude/agents/ (Claude Code's format is read), or use one of: general-purpose, reviewer";
		const body = `await agent("a", { agent: "pr-toolkit:code-reviewer" });`;
		const { result, fake } = await run(body, { agentTypes: ["general-purpose", "reviewer"] });
		expect(result.error?.code).toBe("agent_type_unknown");
		expect(result.error?.message).toBe(`${message} (2:12)`);
		expect(fake.requests).toHaveLength(0);
		const [finding] = checkWorkflowScript(`${HEADER}${body}`, {
			agentTypes: ["general-purpose", "reviewer"],
		}).diagnostics;
		expect(finding).toMatchObject({ code: "agent_type_unknown", line: 2, column: 12 });
		expect(`${finding?.message}. ${finding?.fix}`).toBe(message);
	});
});
