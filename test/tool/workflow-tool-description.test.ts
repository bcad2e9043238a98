/**
 * The `workflow` tool's description, as the model reads it: the sample script runs as written, the session's
 * agent types are listed with one line each, bounded, and the whole stays within about 40 lines.
 */
import { describe, expect, it } from "vitest";
import { type AgentTypeConfig, GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import type { SavedWorkflow } from "../../src/host/script-source.ts";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import {
	MAX_LISTED_TYPES,
	MAX_LISTED_WORKFLOWS,
	MAX_TYPE_LINE,
	MAX_WORKFLOW_LINE,
} from "../../src/tool/description.ts";
import { createWorkflowTool } from "../../src/tool/workflow-tool.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const MAX_LINES = 40;

function agentType(name: string, description: string, enabled = true): AgentTypeConfig {
	return { ...GENERAL_PURPOSE_AGENT, name, description, enabled, source: "project" } as AgentTypeConfig;
}

function descriptionFor(types: AgentTypeConfig[], savedWorkflows: SavedWorkflow[] = []): string {
	const map = new Map(types.map((type) => [type.name, type]));
	return createWorkflowTool({
		queue: createWorkflowQueue(),
		agentDir: "/nonexistent",
		agentTypes: map,
		savedWorkflows,
	}).description;
}

function saved(name: string, scope: SavedWorkflow["scope"], meta: Partial<SavedWorkflow["meta"]> = {}): SavedWorkflow {
	return { name, scope, filename: `/x/${name}.js`, meta: { name, description: `Does ${name}`, ...meta } };
}

/** The indented lines after "…return:" and before "Globals:", as the model would copy them. */
function sampleOf(description: string): string {
	const lines = description.split("\n");
	const start = lines.findIndex((line) => line.endsWith("return:")) + 1;
	const end = lines.findIndex((line) => line.startsWith("Globals:"));
	expect(start, "the sample's first line").toBeGreaterThan(0);
	expect(end, "the line after the sample").toBeGreaterThan(start);
	return lines
		.slice(start, end)
		.map((line) => line.replace(/^ {2}/, ""))
		.join("\n");
}

describe("the workflow tool's description", () => {
	it("its sample script runs as written through the runtime, and returns what it says", async () => {
		const sample = sampleOf(descriptionFor([GENERAL_PURPOSE_AGENT]));
		const fake = createFakeRunner((request) =>
			request.label === "b.ts" ? { fail: "provider 500" } : { structured: { issues: [`${request.label}: typo`] } },
		);
		const result = await runWorkflowScript(sample, {
			agentRunner: fake.runner,
			args: { files: ["a.ts", "b.ts", "c.ts"] },
			agentTypes: ["general-purpose"],
		});
		expect(result.error, result.error?.message).toBeUndefined();
		expect(result.value).toEqual(["a.ts: typo", "c.ts: typo"]);
		expect(fake.requests.map((request) => request.prompt)).toEqual([
			"Review a.ts; list its issues",
			"Review b.ts; list its issues",
			"Review c.ts; list its issues",
		]);
		expect(fake.requests.every((request) => request.schema !== undefined)).toBe(true);
	});

	it("names every workflow global the sandbox installs, tool() with its options among them", () => {
		const description = descriptionFor([GENERAL_PURPOSE_AGENT]);
		for (const name of [
			"agent(",
			"parallel(",
			"pipeline(",
			"phase(",
			"log(",
			"workflow(",
			"ask(",
			"tool(",
			"sleep(",
		]) {
			expect(description).toContain(name);
		}
		expect(description).toContain("tool(name, params, { timeoutMs, label, phase, replay })");
		expect(description).toContain("through its permission hooks");
	});

	it("lists the session's enabled agent types, name and one line each", () => {
		const description = descriptionFor([
			GENERAL_PURPOSE_AGENT,
			agentType("reviewer", "Reviews a diff\nfor bugs   and style"),
			agentType("retired", "Old", false),
		]);
		const lines = description.split("\n");
		expect(lines).toContain("Agent types in this session (the `agent` option; default general-purpose):");
		expect(lines).toContain(`  general-purpose: ${GENERAL_PURPOSE_AGENT.description}`);
		expect(lines).toContain("  reviewer: Reviews a diff for bugs and style");
		expect(description).not.toContain("retired");
		expect(lines.length).toBeLessThanOrEqual(MAX_LINES);
	});

	it("with many agent types: cuts the list, says how many more and names them, and stays within 40 lines", () => {
		const many = Array.from({ length: 30 }, (_, i) => agentType(`type-${i}`, `Does task ${i} `.repeat(30)));
		const lines = descriptionFor(many).split("\n");
		expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(MAX_LINES);
		const listed = lines.filter((line) => /^ {2}type-\d+: /.test(line));
		expect(listed).toHaveLength(MAX_LISTED_TYPES);
		const more = lines.find((line) => line.startsWith("  +"));
		expect(more).toMatch(new RegExp(`^ {2}\\+${30 - MAX_LISTED_TYPES} more: type-12, type-13, `));
		for (const line of [...listed, more as string]) expect(line.length).toBeLessThanOrEqual(MAX_TYPE_LINE);
		expect(listed[0]?.endsWith("…")).toBe(true);
	});

	it("without agent types given: lists the built-in one", () => {
		const tool = createWorkflowTool({ queue: createWorkflowQueue(), agentDir: "/nonexistent" });
		expect(tool.description).toContain(`  general-purpose: ${GENERAL_PURPOSE_AGENT.description}`);
		expect(tool.description.split("\n").length).toBeLessThanOrEqual(MAX_LINES);
	});

	it("lists the saved workflows: the project's first, each with its description, when to use it and its arguments", () => {
		const description = descriptionFor(
			[GENERAL_PURPOSE_AGENT],
			[
				saved("review-and-fix", "bundled"),
				saved("nightly", "project", {
					description: "Nightly checks.\nAll of them",
					whenToUse: "Before a release",
					args: {
						type: "object",
						properties: { target: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
						required: ["target"],
					},
				}),
				saved("global-one", "global"),
			],
		);
		const lines = description.split("\n");
		const head = lines.indexOf(
			"Saved workflows (run one with `name` and `args` rather than writing a script that does the same):",
		);
		expect(head).toBeGreaterThan(0);
		expect(lines.slice(head + 1, head + 4)).toEqual([
			"  nightly: Nightly checks. All of them. Use when: Before a release. args (* required): target*: string, tags: string,…",
			"  global-one: Does global-one",
			"  review-and-fix: Does review-and-fix",
		]);
		expect(lines.length).toBeLessThanOrEqual(MAX_LINES);
	});

	it("with many saved workflows and many agent types: at most 12 each, +N more for the rest, within 40 lines", () => {
		const types = Array.from({ length: 30 }, (_, i) => agentType(`type-${i}`, `Does task ${i}`));
		const many = Array.from({ length: 30 }, (_, i) =>
			saved(`flow-${String(i).padStart(2, "0")}`, "project", { description: "x ".repeat(200) }),
		);
		const lines = descriptionFor(types, many).split("\n");
		expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(MAX_LINES);
		const flows = lines.filter((line) => /^ {2}flow-\d+: /.test(line));
		expect(flows.length).toBeGreaterThan(0);
		expect(flows.length).toBeLessThanOrEqual(MAX_LISTED_WORKFLOWS);
		expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ {2}\\+${30 - flows.length} more: flow-`)));
		for (const line of flows) expect(line.length).toBeLessThanOrEqual(MAX_WORKFLOW_LINE);
		expect(lines.filter((line) => /^ {2}type-\d+: /.test(line)).length).toBeGreaterThan(0);

		const only = descriptionFor([], many.slice(0, 13)).split("\n");
		expect(only.filter((line) => /^ {2}flow-\d+: /.test(line))).toHaveLength(MAX_LISTED_WORKFLOWS);
		expect(only).toContain("  +1 more: flow-12");
	});
});
