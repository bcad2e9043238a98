/**
 * The package installed from its tarball next to pi (pi's packages linked in from this checkout's node_modules):
 * pi's own loader loads the extension from node_modules through the package's `pi` manifest and runs a workflow
 * tool call; the installed bin runs an example with children as pi sessions on the faux provider (`-e`).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, installTarball, packPackage, ROOT, removeAll } from "../helpers/package.ts";
import { runCommand } from "../helpers/spawn.ts";

const FAUX = join(ROOT, "test", "fixtures", "faux-provider-extension.ts");

const dirs: string[] = [];
let project: string;
let agentDir: string;

beforeAll(async () => {
	const packed = await packPackage();
	dirs.push(...packed.dirs);
	project = await installTarball(packed.tarball, { pi: true });
	agentDir = mkdtempSync(join(tmpdir(), "wf-consumer-pi-agent-"));
	dirs.push(project, agentDir);
}, 240_000);
afterAll(() => removeAll(dirs));

describe("pi-workflows installed next to pi", () => {
	it("pi loads the extension from node_modules/pi-workflows (its pi manifest) and runs a workflow tool call", async () => {
		const piCli = join(project, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
		const args = ["-p", "--offline", "--no-session", "-e", "./node_modules/pi-workflows", "-e", FAUX];
		const { code, stdout, stderr } = await runCommand(
			process.execPath,
			[piCli, ...args, "--model", "faux/faux-1", "Run the workflow"],
			{ cwd: project, timeoutMs: 120_000, env: childEnv({ PI_CODING_AGENT_DIR: agentDir }) },
		);
		expect(code, stderr).toBe(0);
		expect(stdout).toContain("WORKFLOW RESULT >>> Workflow cli-e2e completed");
		expect(stdout).toContain("child answered ALPHA");
		expect(stdout).toContain("child answered BETA");
	}, 150_000);

	it("the installed bin runs an example end to end with children on the faux provider loaded with -e", async () => {
		const example = join(project, "node_modules", "pi-workflows", "examples", "workflows", "map-reduce-summary.js");
		const { code, stdout, stderr } = await runCommand(
			join(project, "node_modules", ".bin", "pi-workflows"),
			["run", example, "--args", '{"documents":["notes.md"]}', "-e", FAUX, "--model", "faux/faux-1", "--json"],
			{ cwd: project, timeoutMs: 120_000, env: childEnv({ PI_CODING_AGENT_DIR: agentDir }) },
		);
		expect(code, stderr).toBe(0);
		expect(JSON.parse(stdout)).toMatchObject({
			status: "completed",
			counts: { calls: 1, completed: 1 },
			value: { summary: expect.stringMatching(/^faux: Read notes\.md and summarise it/), keyPoints: [], levels: 0 },
			runId: expect.stringMatching(/^wf-/),
		});
		expect(stderr).toContain("✓ map notes.md");
	}, 150_000);

	it("pi-workflows/queue: a host of its own plans a child for the queue from the installed package", async () => {
		const program = `const { createQueueHost, queuePlanner } = await import("pi-workflows/queue");
const { loadAgentTypes } = await import("pi-workflows/pi");
const { types } = loadAgentTypes({ cwd: process.cwd(), agentDir: process.env.PI_CODING_AGENT_DIR });
const plan = queuePlanner({ agentTypes: types, defaultModel: "faux/faux-1" })({ prompt: "p", agentType: "general-purpose", tools: ["read"] });
console.log(JSON.stringify({ host: typeof createQueueHost, type: plan.agentType.name, model: plan.defaultModel }));
try {
	queuePlanner({ agentTypes: types })({ prompt: "p", agentType: "general-purpose", tools: ["reed"] });
} catch (error) {
	console.log(error.code);
}`;
		const { code, stdout, stderr } = await runCommand(process.execPath, ["--input-type=module", "-e", program], {
			cwd: project,
			timeoutMs: 60_000,
			env: childEnv({ PI_CODING_AGENT_DIR: agentDir }),
		});
		expect(code, stderr).toBe(0);
		const [planned, refused] = stdout.trim().split("\n");
		expect(JSON.parse(planned ?? "")).toEqual({ host: "function", type: "general-purpose", model: "faux/faux-1" });
		expect(refused).toBe("agent_options_invalid");
	}, 90_000);
});
