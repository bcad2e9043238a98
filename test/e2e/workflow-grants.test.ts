/**
 * Grants in a real pi session (the real bash, through `ctx.executeTool`): a project workflow's first `tool("bash")`
 * asks the person through the session's UI; a yes is kept as a grant bound to the script's sha256, so the next run
 * of the same text does not ask; a one-byte edit asks again, showing the diff against the granted text; an inline
 * script of the same text is never covered by that grant; with no one to ask (print mode) the call is refused,
 * saying how to grant it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createParentSession, type ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { gateWorkflow, sha256Of } from "../helpers/gate-workflow.ts";

describe("grants of a saved workflow's tool() calls in a pi session", () => {
	let harness: FauxHarness;
	let cwd: string;
	let parent: ParentSession | undefined;
	let file: string;

	beforeEach(async () => {
		harness = await createFauxHarness();
		cwd = mkdtempSync(join(tmpdir(), "wf-grants-"));
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		file = join(cwd, ".pi", "workflows", "gate.js");
		writeFileSync(file, gateWorkflow("gate-ran"));
	});
	afterEach(() => {
		parent?.dispose();
		harness.dispose();
		rmSync(cwd, { recursive: true, force: true });
	});

	function workflowEnds(): WorkflowProgressDetails[] {
		return (parent?.toolEvents ?? [])
			.filter((e) => e.type === "tool_execution_end" && e.toolName === "workflow")
			.map((e) => (e as unknown as { result: { details: WorkflowProgressDetails } }).result.details);
	}

	async function startParent(): Promise<void> {
		parent = await createParentSession({
			cwd,
			agentDir: harness.agentDir,
			modelRuntime: harness.modelRuntime,
			model: harness.model,
			extensions: { factories: [], tools: ["bash"] },
		});
	}

	const call = (params: Parameters<typeof fauxToolCall>[1]) => [
		fauxAssistantMessage([fauxToolCall("workflow", params)], { stopReason: "toolUse" }),
		fauxAssistantMessage("done"),
	];

	it("asks once, holds for the digest, asks again with the diff after a one-byte edit; inline text is never covered", async () => {
		harness.route("Run the gate", [
			...call({ name: "gate" }),
			...call({ name: "gate" }),
			...call({ name: "gate" }),
			...call({ script: gateWorkflow("gate-ran") }),
		]);
		await startParent();
		const asked: { title: string; message: string }[] = [];
		const answers = [true, false];
		const person: Record<string, unknown> = {
			confirm: async (title: string, message: string) => {
				asked.push({ title, message });
				return answers.shift() ?? false;
			},
		};
		const uiContext = new Proxy(person, {
			get: (target, key) => (key in target ? target[key as string] : () => undefined),
		}) as unknown as ExtensionUIContext;
		await parent?.session.bindExtensions({ uiContext, mode: "tui" });
		const grantsFile = join(cwd, ".pi", "workflows.grants.json");
		const first = sha256Of(gateWorkflow("gate-ran"));

		// The first run asks; yes runs bash and keeps the grant, bound to this text.
		await parent?.session.prompt("Run the gate");
		expect(workflowEnds()[0]?.envelope.result).toBe("gate-ran");
		expect(asked).toEqual([
			{
				title: 'Workflow gate.js: allow tool("bash")?',
				message: `The project workflow .pi/workflows/gate.js (sha256 ${first.slice(0, 12)}) calls tool("bash"), which no grant covers. Yes grants tool("bash") to this version (kept in ${grantsFile}): its later runs call it without asking, and any change to the file asks again. No refuses this call.`,
			},
		]);
		const kept = JSON.parse(readFileSync(grantsFile, "utf8"));
		expect(kept.workflows[".pi/workflows/gate.js"]).toMatchObject({
			sha256: first,
			tools: ["bash"],
			script: gateWorkflow("gate-ran"),
		});

		// The same text again: not asked.
		await parent?.session.prompt("Run it again");
		expect(workflowEnds()[1]?.envelope.result).toBe("gate-ran");
		expect(asked).toHaveLength(1);

		// One byte changed: asked again, with the diff against the granted text; no refuses the call.
		writeFileSync(file, gateWorkflow("gate-run"));
		const second = sha256Of(gateWorkflow("gate-run"));
		await parent?.session.prompt("Run the edited one");
		expect(asked).toHaveLength(2);
		expect(asked[1]?.message).toBe(
			`The project workflow .pi/workflows/gate.js (sha256 ${second.slice(0, 12)}) calls tool("bash"), which no grant covers. It changed since sha256 ${first.slice(0, 12)} was granted (tool("bash")):
--- before
+++ after
@@ -1,4 +1,4 @@
 export const meta = { name: "gate", description: "runs the gate" };
-const r = await tool("bash", { command: "echo gate-ran" });
+const r = await tool("bash", { command: "echo gate-run" });
 return r.output.trim();
 
Yes grants tool("bash") to this version (kept in ${grantsFile}): its later runs call it without asking, and any change to the file asks again. No refuses this call.`,
		);
		const refused = workflowEnds()[2]?.envelope;
		expect(refused?.status).toBe("failed");
		expect(refused?.error?.code).toBe("tool_refused");
		expect(refused?.error?.message).toBe(
			`\`tool("bash")\` was refused: the person did not grant it to the project workflow .pi/workflows/gate.js (sha256 ${second.slice(0, 12)}). Run the workflow again to be asked again, or grant it from the command line with \`pi-workflows run .pi/workflows/gate.js --allow-tools bash\` (2:21)`,
		);

		// Inline text identical to the granted one: the grant is the file's, not the text's; nothing asked or kept.
		await parent?.session.prompt("Now inline");
		expect(workflowEnds()[3]?.envelope.result).toBe("gate-ran");
		expect(asked).toHaveLength(2);
		expect(JSON.parse(readFileSync(grantsFile, "utf8"))).toEqual(kept);
	}, 60_000);

	it("with no one to ask (print mode): refused, saying how to grant it", async () => {
		harness.route("Run the gate", call({ name: "gate" }));
		await startParent();
		await parent?.session.prompt("Run the gate");
		const envelope = workflowEnds()[0]?.envelope;
		expect(envelope?.error?.message).toBe(
			`\`tool("bash")\` was refused: no grant covers it for the project workflow .pi/workflows/gate.js (sha256 ${sha256Of(gateWorkflow("gate-ran")).slice(0, 12)}), and this session has no one to ask. Run the workflow once in an interactive pi session and answer yes, or once with \`pi-workflows run .pi/workflows/gate.js --allow-tools bash\`: either grants this version (2:21)`,
		);
	}, 60_000);
});
