/**
 * The README's set-up leaves a working CLI: a clean copy of the checkout (tracked files only, so no dist/) gets what
 * `npm install` runs for a local project after it installs (the `prepare` script), then `npx pi-workflows --help`
 * and the README's command-line lines that need no model run there. node_modules is this checkout's, linked: a real
 * install would copy some 600 MB per run, and npm's own part (running `prepare` on a local install) is npm's promise.
 * npx installs the project itself into its cache to run its bin: the cache is a temp folder, so ~/.npm is untouched.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, ROOT } from "../helpers/package.ts";
import { runCommand } from "../helpers/spawn.ts";

let copy: string;
let agentDir: string;
let npmCache: string;

/** The tracked files as they are in the working tree (what a clone of this commit, plus local edits, holds). */
function copyTracked(): string {
	const dir = mkdtempSync(join(tmpdir(), "pi-workflows-clone-"));
	const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0");
	for (const file of files) {
		if (!file || !existsSync(join(ROOT, file))) continue;
		mkdirSync(dirname(join(dir, file)), { recursive: true });
		copyFileSync(join(ROOT, file), join(dir, file));
	}
	symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
	return dir;
}

/** The `npx pi-workflows …` lines of the README's command-line section. */
/** The command lines the docs show first (docs/cli.md, which the README's map points to for the command line). */
function readmeCliLines(): string[] {
	const section = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
	const block = section.slice(section.indexOf("```sh") + 5, section.indexOf("```", section.indexOf("```sh") + 5));
	return block
		.split("\n")
		.map((line) => line.replace(/\s+#.*$/, "").trim())
		.filter((line) => line.startsWith("npx pi-workflows "));
}

function env(): NodeJS.ProcessEnv {
	return childEnv({ PI_CODING_AGENT_DIR: agentDir, npm_config_cache: npmCache });
}

beforeAll(async () => {
	copy = copyTracked();
	agentDir = mkdtempSync(join(tmpdir(), "pi-workflows-clone-agent-"));
	npmCache = mkdtempSync(join(tmpdir(), "pi-workflows-clone-npm-"));
	// A checkout has no dist/ until something builds it: the bin is dist/cli/main.js.
	expect(existsSync(join(copy, "dist"))).toBe(false);
	const prepare = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")).scripts?.prepare;
	expect(prepare, "package.json has no prepare script, so npm install builds nothing").toBeTypeOf("string");
	const run = await runCommand("npm", ["run", "prepare"], { cwd: copy, env: childEnv(), timeoutMs: 120_000 });
	expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
}, 150_000);

afterAll(() => {
	for (const dir of [copy, agentDir, npmCache]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("after the README's set-up", () => {
	it("npx pi-workflows --help prints the usage", { timeout: 150_000 }, async () => {
		const help = await runCommand("npx", ["--offline", "pi-workflows", "--help"], {
			cwd: copy,
			env: env(),
			timeoutMs: 120_000,
		});
		expect(help.stderr).not.toContain("not found");
		expect(help.code).toBe(0);
		expect(help.stdout).toContain("pi-workflows run <file|name>");
	});

	it("the docs' command lines that need no model work: check and runs", async () => {
		const lines = readmeCliLines();
		// `run` and `resume` need a model; `report` needs a run record.
		const modelFree = lines.filter((line) => /^npx pi-workflows (check|runs)\b/.test(line));
		expect(modelFree).toEqual(["npx pi-workflows check my-workflow.js", "npx pi-workflows runs"]);
		copyFileSync(join(copy, "examples", "workflows", "map-reduce-summary.js"), join(copy, "my-workflow.js"));
		// The bin npx runs, started as a file (its shebang and mode matter): one npx start is some 30 s of npm.
		const bin = join(copy, "dist", "cli", "main.js");
		for (const line of modelFree) {
			const result = await runCommand(bin, line.split(/\s+/).slice(2), { cwd: copy, env: env(), timeoutMs: 60_000 });
			expect(result.code, `${line}\n${result.stdout}${result.stderr}`).toBe(0);
		}
	});
});
