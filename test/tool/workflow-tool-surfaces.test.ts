/**
 * The `workflow` tool's runs on pi's surfaces: two background runs at once each keep their own widget and status
 * entry, so the one that ends first takes only its own away.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionToolContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunRegistry } from "../../src/host/registry.ts";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import { createWorkflowTool } from "../../src/tool/workflow-tool.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { until } from "../helpers/until.ts";

checkSandboxLeaks();

const script = (name: string) =>
	`export const meta = { name: "${name}", description: "d" };\nreturn await agent("${name} child");`;

describe("workflow tool, background runs on pi's surfaces", () => {
	let cwd: string;
	let agentDir: string;
	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-surfaces-project-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-surfaces-agent-"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	it("two at once: the one that ends first leaves the other's widget and status in place", async () => {
		// What pi shows: one entry per key, removed when set to undefined.
		const widgets = new Map<string, unknown>();
		const statuses = new Map<string, string>();
		const ctx = {
			cwd,
			mode: "rpc",
			hasUI: true,
			ui: {
				setWidget: (key: string, content: unknown) =>
					content === undefined ? widgets.delete(key) : widgets.set(key, content),
				setStatus: (key: string, text: string | undefined) =>
					text === undefined ? statuses.delete(key) : statuses.set(key, text),
			},
		} as unknown as ExtensionToolContext;
		const fake = createFakeRunner(() => ({ hang: true }));
		const registry = new RunRegistry();
		const tool = createWorkflowTool({
			queue: createWorkflowQueue(),
			agentDir,
			registry,
			createRunner: async () => fake.runner,
		});
		const start = (name: string) =>
			tool.execute(name, { script: script(name), background: true }, undefined, undefined, ctx);
		const [first, second] = await Promise.all([start("first"), start("second")]);
		try {
			await until(() => fake.requests.length === 2, "both children");
			await until(
				() => statuses.size === 2 && [...statuses.values()].every((text) => text.endsWith("1 running")),
				"two status entries, each with its child running",
			);

			const firstRun = registry.get(first.details.runId ?? "");
			firstRun?.stop("done with it");
			await firstRun?.settled;
			expect([...statuses.values()]).toEqual(["workflow second · 0/1 agents · 1 running"]);
			expect(widgets.size).toBe(1);
			expect(String([...widgets.values()][0])).toContain("second");
		} finally {
			await registry.stopAll("test over");
		}
		expect(registry.get(second.details.runId ?? "")).toBeUndefined();
	});
});
