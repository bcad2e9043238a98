/**
 * In a real parent pi session (the extension loaded through pi's resource loader): once the session starts, the
 * `workflow` tool's description lists the project's saved workflows and the bundled ones, so the model sees them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import { createFauxHarness, type FauxHarness } from "../helpers/faux.ts";

describe("saved workflows in a real pi session", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession | undefined;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-saved-session-"));
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	it("the workflow tool's description lists them once the session has started", async () => {
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		writeFileSync(
			join(cwd, ".pi", "workflows", "nightly.js"),
			`export const meta = { name: "nightly", description: "Nightly checks", whenToUse: "Every night" };\nreturn 1;\n`,
		);
		// Claude Code's project folder is read after ours.
		mkdirSync(join(cwd, ".claude", "workflows"), { recursive: true });
		writeFileSync(
			join(cwd, ".claude", "workflows", "from-claude.js"),
			`export const meta = { name: "from-claude", description: "Written for Claude Code" };\nreturn 2;\n`,
		);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		await parent.session.bindExtensions({ mode: "rpc" });
		const tool = parent.session.agent.state.tools.find((candidate) => candidate.name === "workflow");
		const lines = tool?.description.split("\n") ?? [];
		expect(lines).toContain("  nightly: Nightly checks. Use when: Every night");
		expect(lines).toContain("  from-claude: Written for Claude Code");
		expect(lines.some((line) => line.startsWith("  review-and-fix: "))).toBe(true);
		expect(lines.length).toBeLessThanOrEqual(40);
	});
});
