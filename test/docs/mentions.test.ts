/**
 * The docs name what the code has, and the code's public surface is in the docs: the `pi-workflows` commands and
 * their flags (against `src/cli/help.ts`), the `workflow` tool's parameters and the `workflow_runs` actions (against
 * the tools' real parameter schemas). A page that mentions one the code lacks fails, and so does a public one no
 * page names.
 */
import { describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { COMMAND_NAMES, helpText } from "../../src/cli/help.ts";
import { RunRegistry } from "../../src/host/registry.ts";
import { createWorkflowRunsTool } from "../../src/pi/runs/runs-tool.ts";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../src/tool/workflow-tool.ts";
import { docPages, readPage } from "./pages.ts";

const pages = docPages().map((page) => ({ page, text: readPage(page) }));
const all = pages.map(({ text }) => text).join("\n");

/** The flags a help text lists (`--json`, `-e`…). */
function flagsOf(help: string): Set<string> {
	return new Set([...help.matchAll(/(?<![\w-])(--?[a-z][a-z-]*)/g)].map((match) => match[1] ?? ""));
}

/** The code the pages show: their code blocks' lines and their inline code spans. */
function codeOf(text: string): string[] {
	const code: string[] = [];
	let fenced = false;
	for (const line of text.split("\n")) {
		if (line.startsWith("```")) fenced = !fenced;
		else if (fenced) code.push(line.replace(/\s#.*$/, ""));
		else code.push(...[...line.matchAll(/`([^`]+)`/g)].map((span) => span[1] ?? ""));
	}
	return code;
}

/** Each `pi-workflows <command> …` the pages show as code. */
function commandMentions(): { page: string; command: string; flags: string[] }[] {
	return pages.flatMap(({ page, text }) =>
		codeOf(text).flatMap((code) =>
			[...code.matchAll(/(?:^|\s)pi-workflows ([a-z]+)(.*)$/g)].map((match) => ({
				page,
				command: match[1] ?? "",
				flags: [...(match[2] ?? "").matchAll(/(?<![\w-])(--?[a-z][a-z-]*)/g)].map((m) => m[1] ?? ""),
			})),
		),
	);
}

/** The keys of each `workflow({ … })` call the pages show (the top level of the object only). */
function workflowCallKeys(): { page: string; key: string }[] {
	const found: { page: string; key: string }[] = [];
	for (const { page, text } of pages) {
		for (const match of text.matchAll(/(?<![\w.])workflow\(\{/g)) {
			let depth = 0;
			let top = "";
			for (const char of text.slice((match.index ?? 0) + "workflow(".length)) {
				if (char === "{" || char === "[") depth++;
				else if (char === "}" || char === "]") depth--;
				else if (depth === 1) top += char;
				if (depth === 0) break;
			}
			for (const key of top.matchAll(/(?:^|,)\s*([A-Za-z]+)\s*(?=[:,]|$)/g)) found.push({ page, key: key[1] ?? "" });
		}
	}
	return found;
}

const workflowTool = createWorkflowTool({
	queue: createWorkflowQueue(),
	agentDir: "/nonexistent",
	agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
	savedWorkflows: [],
});
const parameters = Object.keys(workflowTool.parameters.properties);
const runsTool = createWorkflowRunsTool({
	registry: new RunRegistry(),
	storeFor: () => {
		throw new Error("not used");
	},
});
const actions = (runsTool.parameters.properties.action.anyOf as { const: string }[]).map((literal) => literal.const);

describe("what the docs mention, against the code", () => {
	it("every pi-workflows command a page shows exists, with flags its help lists", () => {
		const wrong = commandMentions().flatMap(({ page, command, flags }) => {
			const help = helpText(command);
			if (help === undefined) return [`${page}: pi-workflows ${command}`];
			const known = flagsOf(`${help}\n${helpText()}`);
			return flags.filter((flag) => !known.has(flag)).map((flag) => `${page}: ${command} ${flag}`);
		});
		expect(wrong).toEqual([]);
		expect(commandMentions().length).toBeGreaterThan(10);
	});

	it("docs/cli.md names every command and every flag the help lists", () => {
		const page = readPage("docs/cli.md");
		expect(COMMAND_NAMES.filter((command) => !page.includes(`\`${command}`))).toEqual([]);
		const flags = [...COMMAND_NAMES.flatMap((command) => [...flagsOf(helpText(command) ?? "")])];
		expect([...new Set(flags)].filter((flag) => !page.includes(flag))).toEqual([]);
	});

	it("every workflow({ … }) a page shows uses the tool's parameters", () => {
		expect(workflowCallKeys().filter(({ key }) => !parameters.includes(key))).toEqual([]);
		expect(workflowCallKeys().length).toBeGreaterThan(10);
	});

	it("docs/workflow-tool.md names every parameter of the workflow tool", () => {
		const page = readPage("docs/workflow-tool.md");
		expect(parameters.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
	});

	it("every workflow_runs action a page shows exists, and the pages name every one", () => {
		const shown = [...all.matchAll(/action: "([a-z_]+)"/g)].map((match) => match[1] ?? "");
		expect(actions.length).toBeGreaterThan(5);
		expect(shown.filter((action) => !actions.includes(action))).toEqual([]);
		expect(actions.filter((action) => !shown.includes(action))).toEqual([]);
	});
});
