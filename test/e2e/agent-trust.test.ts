/**
 * A project's agent files follow pi's project trust, through the real extension in a parent pi session on the faux
 * provider: a project whose `.pi/agents`, `.agents/agents` and `.claude/agents` files each load an extension that
 * leaves a marker file when loaded. Untrusted, none loads (the default child runs as the built-in type) and the
 * result says once which files were not read and how to trust the project; trusted, all three load.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";

const PARENT_TASK = "Please run the workflow";

/** Where each agent file lives, relative to the project, and the marker its extension writes. */
const FILES = [
	{ dir: ".pi/agents", name: "general-purpose", marker: "marker-pi" },
	{ dir: ".agents/agents", name: "helper", marker: "marker-agents" },
	{ dir: ".claude/agents", name: "reviewer", marker: "marker-claude" },
];

/** An extension that writes `marker` as soon as pi loads it: code of the project's running in pi's process. */
function markerExtension(marker: string): string {
	return `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(marker)}, "loaded");
export default function () {}
`;
}

describe("a project's agent files and pi's project trust", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession | undefined;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-agent-trust-"));
		for (const file of FILES) {
			const dir = join(cwd, file.dir);
			mkdirSync(dir, { recursive: true });
			writeFileSync(join(dir, "evil.ts"), markerExtension(join(cwd, file.marker)));
			writeFileSync(
				join(dir, `${file.name}.md`),
				`---\nname: ${file.name}\nextensions: ./evil.ts\n---\nYou obey.\n`,
			);
		}
		harness.route("Say hi", [fauxAssistantMessage("hi")]);
		harness.route("Review it", [fauxAssistantMessage("reviewed")]);
		harness.route("Help out", [fauxAssistantMessage("helped")]);
	});
	afterEach(() => {
		parent?.dispose();
		parent = undefined;
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	/** Runs `script` through the parent's `workflow` tool; the tool result's text. */
	async function runWorkflow(script: string, projectTrusted: boolean): Promise<string> {
		harness.route(PARENT_TASK, [
			fauxAssistantMessage([fauxToolCall("workflow", { script })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
			projectTrusted,
		});
		await parent.session.prompt(PARENT_TASK);
		const end = parent.toolEvents.find((e) => e.type === "tool_execution_end" && e.toolName === "workflow");
		if (end?.type !== "tool_execution_end") throw new Error("the workflow tool did not finish");
		return (end.result as { content: Array<{ text?: string }> }).content.map((part) => part.text ?? "").join("\n");
	}

	const DEFAULT_CHILD = `export const meta = { name: "t", description: "d" };
return await agent("Say hi");`;

	function markers(): string[] {
		return FILES.map((file) => file.marker).filter((marker) => existsSync(join(cwd, marker)));
	}

	function expectSkippedLine(text: string, reason: string): void {
		const lines = text.split("\n").filter((line) => line.startsWith("Not reading this project's agent files"));
		expect(lines).toHaveLength(1);
		const paths = FILES.map((file) => join(cwd, file.dir, `${file.name}.md`));
		expect(lines[0]).toContain(
			`Not reading this project's agent files (${[...paths].reverse().join(", ")}): ${reason}.`,
		);
		expect(lines[0]).toContain("To use them, trust the project: `pi -a` for one run, `/trust` in pi");
	}

	it("pi declined the project: no agent file's extension loads, the default child is the built-in, said once", async () => {
		// Something pi gates itself, so pi asked and the person said no.
		mkdirSync(join(cwd, ".pi", "extensions"));
		const text = await runWorkflow(DEFAULT_CHILD, false);
		expect(text).toContain('"hi"');
		expect(markers()).toEqual([]);
		expectSkippedLine(text, "pi does not trust the project");
		const child = harness.requests.find((request) => request.task === "Say hi");
		expect(child?.systemPrompt).not.toContain("You obey.");
	});

	it("a project with only agent files and no saved decision is not trusted by default, though pi found nothing to ask about", async () => {
		const text = await runWorkflow(DEFAULT_CHILD, true);
		expect(text).toContain('"hi"');
		expect(markers()).toEqual([]);
		expectSkippedLine(text, "the project has not been trusted (no saved decision)");
	});

	it("pi trusts the project: every agent file's extension loads in its child", async () => {
		mkdirSync(join(cwd, ".pi", "extensions"));
		const text = await runWorkflow(
			`export const meta = { name: "t", description: "d" };
return [await agent("Say hi"), await agent("Review it", { agent: "reviewer" }), await agent("Help out", { agent: "helper" })];`,
			true,
		);
		expect(text).toContain('"hi"');
		expect(text).toContain('"reviewed"');
		expect(text).toContain('"helped"');
		expect(markers()).toEqual(["marker-pi", "marker-agents", "marker-claude"]);
		expect(text).not.toContain("Not reading this project's agent files");
	});
});
