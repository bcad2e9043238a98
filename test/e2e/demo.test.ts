/**
 * `npm run demo` as a newcomer runs it, with HOME a temp folder and no provider keys: the scripted run completes,
 * writes nothing under that HOME (pi's agent directory is ~/.pi/agent), names no run record it removes, and leaves
 * no temp folder of its own; `npm run demo -- --help` prints the options and runs nothing.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { childEnv, ROOT } from "../helpers/package.ts";
import { runCommand } from "../helpers/spawn.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh HOME, TMPDIR of its own (to see the demo's temp folders) and no provider keys or pi folder override. */
function demoEnv(): { env: NodeJS.ProcessEnv; home: string; tmp: string } {
	const home = mkdtempSync(join(tmpdir(), "pi-workflows-demo-home-"));
	const tmp = mkdtempSync(join(tmpdir(), "pi-workflows-demo-tmp-"));
	dirs.push(home, tmp);
	const clean = Object.fromEntries(
		Object.entries(childEnv()).filter(
			([name]) => !/_API_KEY$|_TOKEN$/.test(name) && name !== "PI_CODING_AGENT_DIR" && name !== "CLAUDE_CONFIG_DIR",
		),
	);
	return { env: { ...clean, HOME: home, TMPDIR: tmp }, home, tmp };
}

/** The demo's own temp folders (Node keeps its compile cache in TMPDIR too). */
function ourFolders(tmp: string): string[] {
	return readdirSync(tmp).filter((name) => name.startsWith("pi-workflows-"));
}

describe("npm run demo", () => {
	it("--help prints the options and runs nothing", async () => {
		const { env, home, tmp } = demoEnv();
		const result = await runCommand("npm", ["run", "--silent", "demo", "--", "--help"], { cwd: ROOT, env });
		expect(result.code, result.stderr).toBe(0);
		expect(result.stdout).toContain("--model <provider/id>");
		expect(result.stdout).toContain("--faux");
		expect(result.stdout).not.toContain("Project:");
		expect(ourFolders(tmp)).toEqual([]);
		expect(readdirSync(home).filter((name) => name !== ".npm")).toEqual([]);
	});

	it("the scripted run completes, writes nothing under HOME and names no record it removed", {
		timeout: 120_000,
	}, async () => {
		const { env, home, tmp } = demoEnv();
		const result = await runCommand("npm", ["run", "--silent", "demo"], { cwd: ROOT, env, timeoutMs: 110_000 });
		expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
		expect(result.stdout).toContain("pi-ai's faux provider plays the models");
		expect(result.stdout).toContain("src/math.ts after the run");
		// npm keeps its own logs under ~/.npm; pi's folder is ~/.pi.
		expect(readdirSync(home).filter((name) => name !== ".npm")).toEqual([]);
		expect(result.stdout).not.toMatch(/Run record: wf-/);
		expect(ourFolders(tmp)).toEqual([]);
	});
});
