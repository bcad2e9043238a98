/**
 * An agent type's own extensions, through the real extension in a parent pi session on the faux provider: the
 * child's tool exists only in the child (the parent's model never sees it), and a type whose extension does not load
 * is a failed child naming the file and a warning in the run's log.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAgentDir, ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";

const PARENT_TASK = "Please run the workflow";

const SEARCH_EXTENSION = `export default function (pi) {
	pi.registerTool({
		name: "fixture_search",
		label: "Fixture search",
		description: "Searches the fixture",
		parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
		async execute(_id, params) {
			return { content: [{ type: "text", text: "CHILD-ONLY hit for " + params.q }], details: {} };
		},
	});
}
`;

describe("agent types with extensions of their own", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession | undefined;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-agent-ext-"));
		// The person trusted the project (`/trust`): its agent files' extensions may load (see agent-trust.test.ts).
		new ProjectTrustStore(getAgentDir()).set(cwd, true);
		const agents = join(cwd, ".pi", "agents");
		mkdirSync(join(agents, "tools"), { recursive: true });
		writeFileSync(join(agents, "tools", "search.ts"), SEARCH_EXTENSION);
		writeFileSync(
			join(agents, "scout.md"),
			"---\nname: scout\ntools: fixture_search\nsubagentOnlyExtensions:\n  - ./tools/search.ts\n---\nYou scout.\n",
		);
		writeFileSync(
			join(agents, "broken.md"),
			"---\nname: broken\ntools: fixture_search\nsubagent_only_extensions: ./tools/gone.ts\n---\nYou break.\n",
		);
	});
	afterEach(() => {
		new ProjectTrustStore(getAgentDir()).set(cwd, null);
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	it("the child calls its own tool, which the parent does not have; a broken type fails naming its file", async () => {
		harness.route("Find auth", [
			fauxAssistantMessage([fauxToolCall("fixture_search", { q: "auth" })], { stopReason: "toolUse" }),
			(request) => fauxAssistantMessage(`found: ${request.last.text}`),
		]);
		const script = `export const meta = { name: "t", description: "d" };
const a = await agent("Find auth", { agent: "scout", label: "scout" });
const b = await agent("Break it", { agent: "broken", label: "broken" });
return { a, b };`;
		harness.route(PARENT_TASK, [
			fauxAssistantMessage([fauxToolCall("workflow", { script })], { stopReason: "toolUse" }),
			fauxAssistantMessage("done"),
		]);
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
		});
		await parent.session.prompt(PARENT_TASK);
		const end = parent.toolEvents.find((e) => e.type === "tool_execution_end" && e.toolName === "workflow");
		if (end?.type !== "tool_execution_end") throw new Error("the workflow tool did not finish");
		const details = (end.result as { details: WorkflowProgressDetails }).details;
		expect(details.envelope.result).toEqual({ a: "found: CHILD-ONLY hit for auth", b: null });
		const parentRequest = harness.requests.find((r) => r.task === PARENT_TASK);
		expect(parentRequest?.tools).toContain("workflow");
		expect(parentRequest?.tools).not.toContain("fixture_search");
		expect(harness.requests.find((r) => r.task === "Find auth")?.tools).toEqual(["fixture_search"]);
		expect(harness.requests.some((r) => r.task === "Break it")).toBe(false);
		const logs = details.envelope.logs.map((entry) => `${entry.level}: ${entry.message}`).join("\n");
		expect(logs).toContain("warn: `broken`: agent type `broken`");
		expect(logs).toContain(join(cwd, ".pi", "agents", "tools", "gone.ts"));
	});
});
