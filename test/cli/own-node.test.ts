/**
 * The built bin started by a Node 20 (as `npx --prefix <clone> pi-workflows …` does on a machine whose `node` is
 * 20): `run` needs pi, which needs Node 22.19. With the package's own Node 22 there (the clone's `node` dev
 * dependency), the bin runs itself again on it and the run works; without one, it says exactly what to run. Skipped
 * when the machine has no Node 20 on PATH.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCopy, ROOT, removeAll } from "../helpers/package.ts";
import { runCommand } from "../helpers/spawn.ts";

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

const old = node20();
const dirs: string[] = [];
let copy: string;
let project: string;
let agentDir: string;

beforeAll(async () => {
	if (!old) return;
	copy = await buildCopy();
	project = mkdtempSync(join(tmpdir(), "wf-own-node-project-"));
	agentDir = mkdtempSync(join(tmpdir(), "wf-own-node-agent-"));
	dirs.push(copy, project, agentDir);
	writeFileSync(
		join(project, "hello.js"),
		'export const meta = { name: "hello", description: "no agents" };\nreturn { node: "ok" };\n',
	);
}, 180_000);
afterAll(() => removeAll(dirs));

/** The bin as the Node 20 starts it, with that Node first on PATH, from the project. */
function onNode20(bin: string, args: string[]) {
	const env = {
		...process.env,
		PATH: `${dirname(old as string)}${delimiter}${process.env.PATH ?? ""}`,
		PI_CODING_AGENT_DIR: agentDir,
	};
	return runCommand(old as string, [bin, ...args], { cwd: project, env, timeoutMs: 120_000 });
}

describe.skipIf(!old)("the bin on Node 20", () => {
	it("`run` runs itself again on the package's own Node 22, and the run works", async () => {
		const run = await onNode20(join(copy, "dist", "cli", "main.js"), ["run", "hello.js", "--json"]);
		expect(run.code, run.stderr).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({ status: "completed", value: { node: "ok" } });
		// Commands that do not need pi run on the Node they were given.
		const check = await onNode20(join(copy, "dist", "cli", "main.js"), ["check", "hello.js"]);
		expect(check).toMatchObject({ code: 0, stdout: "hello.js: ok\n" });
	}, 180_000);

	it("without a Node 22 of its own, `run` says exactly what to run (exit 2)", async () => {
		// The package installed in a project that has its dependencies but no `node` package.
		const modules = join(project, "node_modules");
		const installed = join(modules, "pi-workflows");
		mkdirSync(installed, { recursive: true });
		// Copied, as npm installs it: a link would lead the bin back to the clone, which has a Node 22.
		for (const name of ["dist", "package.json"]) cpSync(join(copy, name), join(installed, name), { recursive: true });
		for (const name of readdirSync(join(ROOT, "node_modules"))) {
			if (name !== "node" && name !== ".bin") symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
		}
		const run = await onNode20(join(installed, "dist", "cli", "main.js"), ["run", "hello.js"]);
		expect(run.code).toBe(2);
		const version = spawnSync(old as string, ["--version"], { encoding: "utf8" })
			.stdout.trim()
			.slice(1);
		const said = (command: string) =>
			`pi-workflows: \`${command}\` needs pi, which needs Node 22.19 or newer; this is Node ${version} (${old}), and there is no Node 22.19+ of the package's own (looked for ${join(installed, "node_modules", "node", "bin", "node")} and ${join(modules, "node", "bin", "node")}). Install one there and run the same command again: npm install --no-save --prefix ${project} node@22; or run it with a Node 22.19+ first on PATH\n`;
		expect(run.stderr).toBe(said("run"));
		// A worker says the same before it loads pi (it never reaches Redis).
		const worker = await onNode20(join(installed, "dist", "cli", "main.js"), [
			"worker",
			"--redis",
			"redis://127.0.0.1:1",
		]);
		expect(worker).toMatchObject({ code: 2, stderr: said("worker") });
	}, 180_000);
});
