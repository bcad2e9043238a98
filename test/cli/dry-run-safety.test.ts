/**
 * `pi-workflows run --dry-run` lends `tool()` only the read-only tools the same real run would have (`--allow-tools`),
 * and those read only inside the project: what a script prints of them reaches the plan, which CI makes public. The
 * plan shows the script's words as every CLI view does: no terminal control reaches stdout raw.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { hasBinary } from "../helpers/system-binary.ts";

checkSandboxLeaks();

let dirs: AgentDirs;
let outside: string;
beforeEach(() => {
	dirs = createAgentDirs();
	outside = mkdtempSync(join(tmpdir(), "wf-dry-outside-"));
	writeFileSync(join(outside, "id_ed25519"), "SECRET-KEY-TEXT");
	symlinkSync(join(outside, "id_ed25519"), join(dirs.cwd, "key-link"));
	dirs.write("notes.txt", "project notes\n");
	const paths = [join(outside, "id_ed25519"), "key-link", "/proc/self/environ", "notes.txt"];
	dirs.write(
		"peek.js",
		`export const meta = { name: "peek", description: "reads and prints" };
for (const path of ${JSON.stringify(paths)}) {
	try { phase((await tool("read", { path })).output); } catch (error) { phase(error.code); }
}
return 1;
`,
	);
});
afterEach(() => {
	dirs.dispose();
	rmSync(outside, { recursive: true, force: true });
});

function cli(argv: string[]) {
	return cliInProcess(argv, dirs);
}

describe("run --dry-run lends what the real run would, inside the project", () => {
	it("without --allow-tools reads nothing: read is fenced as in the real run", async () => {
		const result = await cli(["run", "peek.js", "--dry-run", "--json"]);
		expect(result.code, result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout) as { phases: { name: string }[]; tools: { ran: boolean }[] };
		expect(plan.phases.map((p) => p.name)).toEqual(["(no phase)", "[dry run] read was not run"]);
		expect(plan.tools.map((t) => t.ran)).toEqual([false, false, false, false]);
		expect(result.stdout).not.toContain("SECRET-KEY-TEXT");
	});

	it("with --allow-tools read reads in the project only: no path out, no link out, no /proc", async () => {
		const result = await cli(["run", "peek.js", "--dry-run", "--allow-tools", "read", "--json"]);
		expect(result.code, result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout) as { phases: { name: string }[] };
		expect(plan.phases.map((p) => p.name)).toEqual(["(no phase)", "tool_refused", "project notes\n"]);
		expect(result.stdout).not.toContain("SECRET-KEY-TEXT");
		expect(result.stdout).not.toContain("PATH=");
	});
});

describe("run --dry-run shows the script's words as every CLI view does", () => {
	/** What a terminal would act on: C0 but tab and newline, DEL, C1, and the marks that reorder text. */
	// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
	const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

	it("escapes terminal controls in phases, questions, choices, warnings, returned keys and the error", async () => {
		dirs.write(
			"loud.js",
			`export const meta = { name: "loud", description: "says odd things" };
phase("\\u001b[2Jwiped");
const go = await ask("\\u001b]0;title\\u0007Ship?", { choices: ["\\u009b31mred", "no"] });
console.warn("careful \\u202eevil");
if (args && args.fail) throw new Error("bad \\u001b[31mthing");
return { ["\\u001b[1mkey"]: go };
`,
		);
		const done = await cli(["run", "loud.js", "--dry-run"]);
		expect(done.code, done.stderr).toBe(0);
		expect(done.stdout).not.toMatch(HIDDEN);
		expect(done.stdout).toContain("  1. ^[[2Jwiped");
		expect(done.stdout).toContain("Question #1: ^[]0;title^GShip? → \\u009b31mred (first choice)");
		expect(done.stdout).toContain("  - careful \\u202eevil");
		expect(done.stdout).toContain("Returns: { ^[[1mkey: string }");
		const failed = await cli(["run", "loud.js", "--dry-run", "--args", '{"fail":true}']);
		expect(failed.code).toBe(1);
		expect(failed.stdout).not.toMatch(HIDDEN);
		expect(failed.stdout).toContain("bad ^[[31mthing");
		const json = await cli(["run", "loud.js", "--dry-run", "--json"]);
		expect(json.stdout).not.toMatch(HIDDEN);
		expect(JSON.parse(json.stdout).questions[0].answer).toBe("\u009b31mred");
	});
});

describe("the dry run before a capped run", () => {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
	const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

	it("says why it gave no estimate with the script's words escaped, and the run starts", async () => {
		dirs.write(
			"throws.js",
			`export const meta = { name: "throws", description: "fails at once" };
throw new Error("bad \\u001b]0;owned\\u0007 thing");
`,
		);
		const result = await cli(["run", "throws.js", "--max-cost", "1"]);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain(
			"Note: no estimate before the run: its dry run failed: bad ^[]0;owned^G thing (2:16)\n",
		);
		// The run itself went on after the note, and failed as the script does.
		expect(result.stderr).toContain("Error (script_error): bad ^[]0;owned^G thing (2:16)");
		expect(result.stderr).not.toMatch(HIDDEN);
	});
});

describe.skipIf(!hasBinary("bwrap", "bubblewrap"))("run --dry-run runs bash in the read-only sandbox", () => {
	const FAN_OUT = `export const meta = { name: "each", description: "one agent per listed file" };
const files = (await tool("bash", { command: "ls *.txt; rm notes.txt" })).output.split("\\n").filter((f) => f.endsWith(".txt"));
return await parallel(files.map((f) => () => agent("read " + f, { label: f })));
`;

	it("by default: the fan-out over its output is counted and nothing is deleted", async () => {
		dirs.write("fan.js", FAN_OUT);
		dirs.write("more.txt", "x");
		const result = await cli(["run", "fan.js", "--dry-run", "--json"]);
		expect(result.code, result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout) as { bash: string; calls: { label: string }[]; tools: { ran: boolean }[] };
		expect(plan.bash).toBe("sandboxed");
		expect(plan.calls.map((call) => call.label)).toEqual(["more.txt", "notes.txt"]);
		expect(plan.tools.map((step) => step.ran)).toEqual([true]);
		expect(readFileSync(join(dirs.cwd, "notes.txt"), "utf8")).toBe("project notes\n");
	});

	it("--no-sandboxed-bash fences it: nothing runs, no call is counted", async () => {
		dirs.write("fan.js", FAN_OUT);
		const result = await cli(["run", "fan.js", "--dry-run", "--no-sandboxed-bash", "--json"]);
		expect(result.code, result.stderr).toBe(0);
		const plan = JSON.parse(result.stdout) as { bash?: string; calls: unknown[]; tools: { ran: boolean }[] };
		expect(plan.bash).toBeUndefined();
		expect(plan.calls).toEqual([]);
		expect(plan.tools.map((step) => step.ran)).toEqual([false]);
	});
});
