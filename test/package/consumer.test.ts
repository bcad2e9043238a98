/**
 * The package as a user without pi gets it: `npm pack` (prepare builds), `npm install` of the tarball into an
 * empty project. The core entry imports and runs a workflow from a plain `.mjs` with an inline runner, on this Node
 * and on Node 20 when the machine has one (engines says >=20.20); the bin's help and `check` work, and `run` says
 * which package to install.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, installTarball, PI_PEERS, packPackage, removeAll } from "../helpers/package.ts";
import { runCommand } from "../helpers/spawn.ts";

const PROGRAM = `import { createWorkflowProgressTracker, runWorkflowScript } from "pi-workflows";
const source = \`export const meta = { name: "consumer", description: "an installed package, no pi" };
phase("fan-out");
const echoes = await parallel(["a", "b"].map((x) => () => agent("echo " + x)));
const counted = await agent("count", { schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } });
return { echoes, counted };\`;
const tracker = createWorkflowProgressTracker();
const result = await runWorkflowScript(source, {
	agentRunner: async (request) => ({
		id: request.key,
		type: request.agentType,
		status: "completed",
		...(request.schema ? { structuredOutput: { n: 3 } } : { result: request.prompt.toUpperCase() }),
	}),
	onProgress: (event) => tracker.updateFromProgressEvent(event),
});
console.log(JSON.stringify({ status: result.status, value: result.value, phases: tracker.getEnvelope().phases.map((p) => p.title), entry: import.meta.resolve("pi-workflows") }));
`;

const dirs: string[] = [];
let project: string;

beforeAll(async () => {
	const packed = await packPackage();
	dirs.push(...packed.dirs);
	project = await installTarball(packed.tarball);
	dirs.push(project);
	writeFileSync(join(project, "program.mjs"), PROGRAM);
	writeFileSync(
		join(project, "ok.js"),
		'export const meta = { name: "ok", description: "a good script" };\nreturn 1;\n',
	);
}, 240_000);
afterAll(() => removeAll(dirs));

/** A Node 20 on PATH other than this one (the machine's default `node` here), if there is one. */
function node20(): string | undefined {
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		const candidate = join(dir, "node");
		if (dir.includes("node_modules") || !existsSync(candidate)) continue;
		const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout.trim();
		if (version.startsWith("v20.")) return candidate;
	}
	return undefined;
}

const EXPECTED = {
	status: "completed",
	value: { echoes: ["ECHO A", "ECHO B"], counted: { n: 3 } },
	phases: ["fan-out"],
};

describe("pi-workflows installed from its tarball into a project without pi", () => {
	it("brings none of pi's packages or typebox", () => {
		for (const name of PI_PEERS) expect(existsSync(join(project, "node_modules", name)), name).toBe(false);
		expect(existsSync(join(project, "node_modules", "pi-workflows", "dist", "sandbox", "worker.js"))).toBe(true);
	});

	it("a plain .mjs imports the core entry by name and runs a workflow with an inline runner", async () => {
		const run = await runCommand(process.execPath, ["program.mjs"], { cwd: project, timeoutMs: 60_000 });
		expect(run.code, run.stderr).toBe(0);
		expect(JSON.parse(run.stdout)).toEqual({
			...EXPECTED,
			entry: `file://${join(project, "node_modules", "pi-workflows", "dist", "index.js")}`,
		});
	});

	const old = node20();
	it.skipIf(!old)("runs the same program on Node 20 (engines: >=20.20), and the bin's check there", async () => {
		const run = await runCommand(old as string, ["program.mjs"], { cwd: project, timeoutMs: 60_000 });
		expect(run.code, run.stderr).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject(EXPECTED);
		const check = await runCommand(old as string, ["node_modules/.bin/pi-workflows", "check", "ok.js"], {
			cwd: project,
		});
		expect(check.code, check.stderr).toBe(0);
		expect(check.stdout).toBe("ok.js: ok\n");
	});

	it("pi-workflows/pi is the entry that needs pi: importing it names the missing package", async () => {
		const run = await runCommand(process.execPath, ["--input-type=module", "-e", 'await import("pi-workflows/pi")'], {
			cwd: project,
		});
		expect(run.code).not.toBe(0);
		expect(run.stderr).toMatch(/Cannot find package '(@earendil-works\/pi-[a-z-]+|typebox)'/);
	});

	it("the bin: --help and check work; run says which package to install (exit 2)", async () => {
		const bin = join(project, "node_modules", ".bin", "pi-workflows");
		const env = childEnv();
		const help = await runCommand(bin, ["--help"], { cwd: project, env });
		expect(help.code, help.stderr).toBe(0);
		expect(help.stdout).toContain("pi-workflows run <file|name>");
		const check = await runCommand(bin, ["check", "ok.js"], { cwd: project, env });
		expect(check.code, check.stderr).toBe(0);
		const run = await runCommand(bin, ["run", "ok.js"], { cwd: project, env });
		expect(run.code).toBe(2);
		expect(run.stderr).toBe(
			"pi-workflows: `run` starts its children as pi sessions, and pi is not installed here. Install it next to pi-workflows: npm install @earendil-works/pi-coding-agent\n",
		);
	});
});
