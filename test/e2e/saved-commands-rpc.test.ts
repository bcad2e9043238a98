/**
 * Saved workflows as commands through pi's own loader, in RPC mode (`pi --mode rpc -e ./src/pi.ts`): `get_commands`
 * lists them (the project's, the bundled ones, not one whose name pi has), a clash is warned about by name, a
 * `prompt` of `/name key=value` starts a background run without a model turn and its completion message lands in
 * the session, a missing argument is asked for with pi's input dialog, and `/workflows run <name>` reaches the
 * workflow whose name clashed; `/workflows save` makes a run's script a command at once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Line, notifyOf, piArguments, piEnv, RpcPi } from "../helpers/rpc-pi.ts";
import { runCommand } from "../helpers/spawn.ts";

const ECHO = `export const meta = {
	name: "echo-args",
	description: "Echo a word through one child",
	args: {
		type: "object",
		properties: { word: { type: "string" }, times: { type: "integer" }, loud: { type: "boolean" }, tags: { type: "array", items: { type: "string" } } },
		required: ["word"],
		additionalProperties: false,
	},
};
const answer = await agent("echo " + args.word);
return { answer, times: args.times ?? null, loud: args.loud ?? false, tags: args.tags ?? [] };
`;

/** A workflow whose name is pi's own `/model`: it gets no command of its own. */
const CLASH = `export const meta = { name: "model", description: "Named like pi's /model" };
return "clash ran";
`;

const runMessage = (line: Line) =>
	line.type === "message_end" && (line.message as { customType?: string })?.customType === "workflow-run"
		? String((line.message as { content: unknown }).content)
		: "";

describe("saved workflows as commands, through pi's own loader (RPC mode)", () => {
	const dirs: string[] = [];
	const pis: RpcPi[] = [];
	afterEach(async () => {
		for (const pi of pis.splice(0)) await pi.close();
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	it("lists, warns about a clash, runs /name key=value in the background with no model turn, asks for a missing argument", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "wf-cmd-rpc-project-"));
		const agentDir = mkdtempSync(join(tmpdir(), "wf-cmd-rpc-agent-"));
		dirs.push(cwd, agentDir);
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "workflows", "echo.js"), ECHO);
		writeFileSync(join(cwd, ".pi", "workflows", "model.js"), CLASH);
		const pi = new RpcPi(cwd, agentDir);
		pis.push(pi);

		const clash = await pi.waitFor((line) => notifyOf(line).includes("`model`"));
		expect(notifyOf(clash)).toContain("/model is a pi built-in command. Run it with /workflows run model");

		pi.send({ id: "c1", type: "get_commands" });
		const listed = await pi.waitFor((line) => line.type === "response" && line.id === "c1");
		const names = ((listed.data as { commands: { name: string }[] }).commands ?? []).map((c) => c.name);
		expect(names).toEqual(expect.arrayContaining(["echo-args", "review-and-fix", "test-triage", "workflows"]));
		expect(names).not.toContain("model");

		let from = pi.lines.length;
		pi.send({ id: "p1", type: "prompt", message: "/echo-args word=alpha times=3 loud tags=x,y" });
		const started = await pi.waitFor((line) => notifyOf(line).startsWith("Started workflow `echo-args`"), from);
		const runId = /as run `([^`]+)`/.exec(notifyOf(started))?.[1];
		expect(runId).toBeDefined();
		const done = await pi.waitFor((line) => runMessage(line) !== "", from);
		expect(runMessage(done)).toContain(`Background workflow run \`${runId}\` ended`);
		expect(runMessage(done)).toContain("child answered ALPHA");
		expect(runMessage(done)).toContain('"times": 3');
		expect(runMessage(done)).toContain('"loud": true');
		expect(runMessage(done)).toMatch(/"tags": \[\s*"x",\s*"y"\s*\]/);
		// The command and its run started no model turn.
		expect(pi.lines.slice(from).some((line) => line.type === "agent_start")).toBe(false);

		from = pi.lines.length;
		pi.send({ id: "p2", type: "prompt", message: "/echo-args times=2" });
		const asked = await pi.waitFor((line) => line.type === "extension_ui_request" && line.method === "input", from);
		expect(String(asked.title)).toBe("/echo-args: word (string)");
		pi.send({ type: "extension_ui_response", id: asked.id, value: "beta" });
		const second = await pi.waitFor((line) => runMessage(line) !== "", from);
		expect(runMessage(second)).toContain("child answered BETA");

		// Saved from the run, the script is a command at once; saving over it again is refused.
		from = pi.lines.length;
		pi.send({ id: "s1", type: "prompt", message: `/workflows save ${runId} echo-copy` });
		const saved = await pi.waitFor((line) => notifyOf(line).includes("as saved workflow `echo-copy`"), from);
		expect(notifyOf(saved)).toContain(join(cwd, ".pi", "workflows", "echo-copy.js"));
		pi.send({ id: "s2", type: "prompt", message: `/workflows save ${runId} echo-copy` });
		const refused = await pi.waitFor((line) => notifyOf(line).startsWith("/workflows save:"), from);
		expect(notifyOf(refused)).toContain("A saved workflow `echo-copy` already exists");
		pi.send({ id: "p4", type: "prompt", message: '/echo-copy {"word":"gamma"}' });
		const copied = await pi.waitFor((line) => runMessage(line).includes("child answered GAMMA"), from);
		expect(runMessage(copied)).toContain("ended");

		from = pi.lines.length;
		pi.send({ id: "p3", type: "prompt", message: "/workflows run model" });
		const clashRan = await pi.waitFor((line) => runMessage(line) !== "", from);
		expect(runMessage(clashRan)).toContain("clash ran");
		expect(pi.lines.some((line) => line.type === "agent_start")).toBe(false);
	}, 180_000);

	it('pi -p "/name args": runs blocking and prints the result; a missing argument prints the usage and starts nothing', async () => {
		const cwd = mkdtempSync(join(tmpdir(), "wf-cmd-print-project-"));
		const agentDir = mkdtempSync(join(tmpdir(), "wf-cmd-print-agent-"));
		dirs.push(cwd, agentDir);
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "workflows", "echo.js"), ECHO);
		const print = (prompt: string) =>
			runCommand(process.execPath, [...piArguments(["-p"]), prompt], {
				cwd,
				timeoutMs: 120_000,
				env: piEnv(agentDir),
			});
		const ran = await print("/echo-args word=delta times=4");
		expect(ran.code, ran.stderr).toBe(0);
		// pi keeps stdout for the model's answer (there is none: no turn ran); what the command shows is on stderr.
		expect(ran.stderr).toContain("Workflow echo-args completed");
		expect(ran.stderr).toContain("child answered DELTA");
		expect(ran.stderr).toContain('"times": 4');
		expect(ran.stdout.trim()).toBe("");
		const missing = await print("/echo-args times=4");
		expect(missing.stderr).toContain(
			"/echo-args: missing required argument `word`\nUsage: /echo-args word=<string> [times=<integer>] [loud=<boolean>] [tags=<string,…>]",
		);
		expect(missing.stderr).not.toContain("child answered");
	}, 180_000);
});
