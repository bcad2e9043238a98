import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkflowResolver, loadSavedWorkflows, resolveScriptSource } from "../../src/host/script-source.ts";
import { DEFAULT_MAX_SCRIPT_BYTES } from "../../src/runtime/meta/read.ts";

const workflow = (name: string, body = "return 1;") =>
	`export const meta = { name: ${JSON.stringify(name)}, description: "d" };\n${body}\n`;

describe("saved workflows and script sources", () => {
	let cwd: string;
	let agentDir: string;
	const write = (dir: string, file: string, text: string) => {
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, file), text);
	};

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-src-cwd-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-src-agent-"));
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	describe("loadSavedWorkflows()", () => {
		it("finds workflows by meta.name, the project's over the global ones", () => {
			write(join(agentDir, "workflows"), "a.js", workflow("shared", "return 'global';"));
			write(join(agentDir, "workflows"), "g.js", workflow("only-global"));
			write(join(cwd, ".pi", "workflows"), "whatever-file-name.js", workflow("shared", "return 'project';"));
			const { byName, warnings } = loadSavedWorkflows({ cwd, agentDir, bundledDir: false });
			expect([...byName.keys()].sort()).toEqual(["only-global", "shared"]);
			expect(byName.get("shared")).toMatchObject({
				scope: "project",
				filename: join(cwd, ".pi", "workflows", "whatever-file-name.js"),
			});
			expect(warnings).toEqual([]);
		});

		it("skips a file with a bad header with a warning naming it, and keeps the others", () => {
			write(join(cwd, ".pi", "workflows"), "bad.js", `export const meta = { name: f() };\n`);
			write(join(cwd, ".pi", "workflows"), "good.js", workflow("good"));
			write(join(cwd, ".pi", "workflows"), "notes.md", "not a workflow");
			const { byName, warnings } = loadSavedWorkflows({ cwd, agentDir, bundledDir: false });
			expect([...byName.keys()]).toEqual(["good"]);
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toMatch(
				/^Skipped saved workflow .*bad\.js: `meta\.name` must be a literal, found a call expression \(1:29\)$/,
			);
		});
		it("reads only regular files within the script size limit: /dev/zero, a FIFO and a huge file are skipped with a warning each", () => {
			const project = join(cwd, ".pi", "workflows");
			const claude = join(cwd, ".claude", "workflows");
			mkdirSync(project, { recursive: true });
			mkdirSync(claude, { recursive: true });
			symlinkSync("/dev/zero", join(claude, "zero.js"));
			execFileSync("mkfifo", [join(project, "pipe.js")]);
			write(project, "huge.js", workflow("huge", `// ${"x".repeat(DEFAULT_MAX_SCRIPT_BYTES)}`));
			write(project, "good.js", workflow("good"));
			// A symlink to a regular file is followed: a workflow shared from another folder.
			write(agentDir, "shared.js", workflow("shared"));
			symlinkSync(join(agentDir, "shared.js"), join(project, "linked.js"));
			const { byName, warnings } = loadSavedWorkflows({
				cwd,
				agentDir,
				bundledDir: false,
				claude: { cwd, home: join(agentDir, "no-claude-home") },
			});
			expect([...byName.keys()].sort()).toEqual(["good", "shared"]);
			const size = Buffer.byteLength(workflow("huge", `// ${"x".repeat(DEFAULT_MAX_SCRIPT_BYTES)}`));
			expect(warnings).toEqual([
				`Skipped saved workflow ${join(claude, "zero.js")}: it is a character device, not a regular file. Only regular .js files are read as saved workflows: remove it, or put a workflow file in its place`,
				`Skipped saved workflow ${join(project, "huge.js")}: it is ${size} bytes, over the limit of 524288 bytes. A workflow script may be at most 512 KiB: shorten it`,
				`Skipped saved workflow ${join(project, "pipe.js")}: it is a named pipe (FIFO), not a regular file. Only regular .js files are read as saved workflows: remove it, or put a workflow file in its place`,
			]);
		});
	});

	describe("resolveScriptSource()", () => {
		it("takes inline source as workflow.js", () => {
			expect(resolveScriptSource({ script: workflow("x") }, { cwd, agentDir, bundledDir: false })).toEqual({
				source: workflow("x"),
				filename: "workflow.js",
				origin: "inline",
				tier: "inline",
			});
		});

		it("gives each script its tier: inline text, project and user folders (Claude Code's too), bundled; a file elsewhere is inline", () => {
			const home = mkdtempSync(join(tmpdir(), "wf-src-home-"));
			const bundled = mkdtempSync(join(tmpdir(), "wf-src-bundled-"));
			try {
				write(join(cwd, ".pi", "workflows"), "p.js", workflow("in-project"));
				write(join(cwd, ".claude", "workflows"), "cp.js", workflow("in-claude-project"));
				write(join(agentDir, "workflows"), "u.js", workflow("in-user"));
				write(join(home, "workflows"), "cu.js", workflow("in-claude-home"));
				write(bundled, "research-brief.js", workflow("in-bundled"));
				write(join(cwd, "flows"), "f.js", workflow("anywhere"));
				const places = { cwd, agentDir, bundledDir: bundled, claude: { cwd, home } };
				const tierOf = (params: { script?: string; path?: string; name?: string }) =>
					resolveScriptSource(params, places).tier;
				expect(
					[
						{ script: workflow("x") },
						{ name: "in-project" },
						{ name: "in-claude-project" },
						{ name: "in-user" },
						{ name: "in-claude-home" },
						{ name: "in-bundled" },
						{ path: ".pi/workflows/p.js" },
						{ path: join(agentDir, "workflows", "u.js") },
						{ path: "flows/f.js" },
						{ path: join(bundled, "research-brief.js") },
					].map(tierOf),
				).toEqual([
					"inline",
					"project",
					"project",
					"user",
					"user",
					"bundled",
					"project",
					"user",
					"inline",
					"bundled",
				]);
			} finally {
				rmSync(home, { recursive: true, force: true });
				rmSync(bundled, { recursive: true, force: true });
			}
		});

		it("reads a path relative to cwd, with a leading @ stripped", () => {
			write(join(cwd, "flows"), "one.js", workflow("one"));
			const resolved = resolveScriptSource({ path: "@flows/one.js" }, { cwd, agentDir, bundledDir: false });
			expect(resolved).toMatchObject({ filename: join(cwd, "flows", "one.js"), origin: "@flows/one.js" });
			expect(resolved.source).toBe(workflow("one"));
		});

		it("finds a saved workflow by name", () => {
			write(join(agentDir, "workflows"), "x.js", workflow("nightly"));
			expect(resolveScriptSource({ name: "nightly" }, { cwd, agentDir, bundledDir: false })).toMatchObject({
				origin: "saved:nightly",
			});
		});

		it.each([
			[
				{},
				"The `workflow` tool needs one of `script` (inline source), `path` (a .js file) or `name` (a saved workflow)",
			],
			[
				{ script: "x", path: "y" },
				"The `workflow` tool takes exactly one of `script`, `path` or `name`; got `script` and `path`",
			],
		])("on %j: refuses with a message that says what to pass", (params, message) => {
			expect(() => resolveScriptSource(params, { cwd, agentDir, bundledDir: false })).toThrow(message);
		});

		it("on an unknown name: workflow_not_found listing the saved ones", () => {
			write(join(cwd, ".pi", "workflows"), "a.js", workflow("alpha"));
			expect(() => resolveScriptSource({ name: "beta" }, { cwd, agentDir, bundledDir: false })).toThrow(
				expect.objectContaining({
					code: "workflow_not_found",
					message: "No saved workflow named `beta`. Saved: alpha",
				}),
			);
		});

		it("on a directory or a FIFO: refuses it like a missing file, saying what it is, instead of reading it", () => {
			mkdirSync(join(cwd, "dir.js"));
			execFileSync("mkfifo", [join(cwd, "pipe.js")]);
			for (const [path, kind] of [
				["dir.js", "a directory"],
				["pipe.js", "a named pipe (FIFO)"],
			]) {
				expect(() => resolveScriptSource({ path }, { cwd, agentDir, bundledDir: false })).toThrow(
					expect.objectContaining({
						code: "workflow_not_found",
						message: `No workflow file at \`${path}\` (looked for ${join(cwd, path)}): it is ${kind}, not a regular file. Name a regular .js file`,
					}),
				);
			}
		});

		it("on a file over the script size limit: script_too_large without reading it whole", () => {
			write(cwd, "huge.js", "x".repeat(DEFAULT_MAX_SCRIPT_BYTES + 1));
			expect(() => resolveScriptSource({ path: "huge.js" }, { cwd, agentDir, bundledDir: false })).toThrow(
				expect.objectContaining({
					code: "script_too_large",
					message: `Workflow file ${join(cwd, "huge.js")}: it is 524289 bytes, over the limit of 524288 bytes. Shorten it`,
				}),
			);
		});

		it("by name: says which saved workflow files were skipped on the way", () => {
			mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
			execFileSync("mkfifo", [join(cwd, ".pi", "workflows", "pipe.js")]);
			const told: string[] = [];
			expect(() =>
				resolveScriptSource({ name: "pipe" }, { cwd, agentDir, bundledDir: false, warn: (w) => told.push(w) }),
			).toThrow("No saved workflow named `pipe`. None are saved");
			expect(told).toEqual([
				`Skipped saved workflow ${join(cwd, ".pi", "workflows", "pipe.js")}: it is a named pipe (FIFO), not a regular file. Only regular .js files are read as saved workflows: remove it, or put a workflow file in its place`,
			]);
		});

		it("on a missing file: workflow_not_found with the path it looked for", () => {
			expect(() => resolveScriptSource({ path: "nope.js" }, { cwd, agentDir, bundledDir: false })).toThrow(
				expect.objectContaining({
					code: "workflow_not_found",
					message: `No workflow file at \`nope.js\` (looked for ${join(cwd, "nope.js")})`,
				}),
			);
		});
	});

	describe("createWorkflowResolver()", () => {
		it("resolves nested workflow() names to saved workflows and anything path-like to a file", async () => {
			write(join(cwd, ".pi", "workflows"), "child.js", workflow("child"));
			write(join(cwd, "lib"), "helper.js", workflow("helper"));
			const resolve = createWorkflowResolver({ agentDir });
			await expect(resolve("child", { cwd })).resolves.toMatchObject({
				filename: join(cwd, ".pi", "workflows", "child.js"),
			});
			await expect(resolve("./lib/helper.js", { cwd })).resolves.toMatchObject({
				filename: join(cwd, "lib", "helper.js"),
			});
			await expect(resolve("missing", { cwd })).rejects.toMatchObject({ code: "workflow_not_found" });
		});
	});
});
