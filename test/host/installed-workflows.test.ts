/**
 * Workflows of installed pi packages, read from the files pi writes (its settings' `packages`, its install places):
 * npm packages under `<agentDir>/npm/node_modules`, a project's only when the project is trusted, a name two
 * packages claim refused naming both, nothing read through a link out of the package, and an update (a new
 * version) locking the new digest where an edit at the same version is refused. `test/e2e/pi-packages.test.ts`
 * installs with pi itself.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUNDLED_DIR, loadSavedWorkflows, resolveScriptSource } from "../../src/host/script-source.ts";
import { verifyNewInstalled } from "../../src/pi/commands/installed-workflows.ts";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const workflow = (name: string, body = "return 1;") =>
	`export const meta = { name: ${JSON.stringify(name)}, description: "d" };\n${body}\n`;

let cwd: string;
let agentDir: string;
let outside: string;

beforeEach(() => {
	cwd = mkdtempSync(join(tmpdir(), "wf-inst-cwd-"));
	agentDir = mkdtempSync(join(tmpdir(), "wf-inst-agent-"));
	outside = mkdtempSync(join(tmpdir(), "wf-inst-out-"));
});
afterEach(() => {
	for (const dir of [cwd, agentDir, outside]) rmSync(dir, { recursive: true, force: true });
});

/** A package folder with `files`, and its package.json. */
function makePackage(root: string, manifest: Record<string, unknown>, files: Record<string, string>): string {
	mkdirSync(root, { recursive: true });
	writeFileSync(join(root, "package.json"), JSON.stringify(manifest));
	for (const [file, text] of Object.entries(files)) {
		mkdirSync(dirname(join(root, file)), { recursive: true });
		writeFileSync(join(root, file), text);
	}
	return root;
}

/** pi's settings file with `packages`, as `pi install` writes it. */
function settings(dir: string, packages: string[]): void {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "settings.json"), JSON.stringify({ packages }));
}

const MANIFEST = { workflows: ["./workflows"], extensions: [] };

function load(projectTrusted = false) {
	return loadSavedWorkflows({ cwd, agentDir, bundledDir: false, claude: false, projectTrusted });
}

describe("installed workflows", () => {
	it("reads an npm package where pi installs it, named without its @scope, with name@version as its source", () => {
		makePackage(
			join(agentDir, "npm", "node_modules", "@acme", "tools"),
			{ name: "@acme/tools", version: "1.2.0", pi: MANIFEST },
			{ "workflows/review.js": workflow("review") },
		);
		settings(agentDir, ["npm:@acme/tools@1.2.0"]);
		const { byName, warnings } = load();
		expect(warnings).toEqual([]);
		expect(byName.get("tools:review")?.installed).toMatchObject({ shown: "@acme/tools@1.2.0", scope: "user" });
	});

	it("reads a project's packages only when the project is trusted", () => {
		makePackage(
			join(cwd, ".pi", "npm", "node_modules", "team"),
			{ name: "team", version: "0.1.0", pi: MANIFEST },
			{ "workflows/ship.js": workflow("ship") },
		);
		settings(join(cwd, ".pi"), ["npm:team"]);
		expect(load(false).byName.has("team:ship")).toBe(false);
		const trusted = load(true).byName.get("team:ship");
		expect(trusted?.installed).toMatchObject({ scope: "project", lockFile: join(cwd, ".pi", "workflows.lock.json") });
	});

	it("the command line reads a project's packages with run --approve, as it trusts the project for that run", async () => {
		makePackage(
			join(cwd, ".pi", "npm", "node_modules", "team"),
			{ name: "team", version: "0.1.0", pi: MANIFEST },
			{ "workflows/ship.js": workflow("ship", "return 'shipped';") },
		);
		settings(join(cwd, ".pi"), ["npm:team"]);
		const untrusted = await cliInProcess(["run", "team:ship", "--dry-run"], { cwd, agentDir });
		expect(untrusted.code).toBe(2);
		expect(untrusted.stderr).toContain("No saved workflow named `team:ship`");
		const approved = await cliInProcess(["run", "team:ship", "--dry-run", "--approve"], { cwd, agentDir });
		expect(approved.code, approved.stderr).toBe(0);
		expect(approved.stdout + approved.stderr).toContain("shipped");
	});

	it("refuses a name two packages claim, naming both sources", () => {
		const one = makePackage(
			join(outside, "one"),
			{ name: "dup", version: "1.0.0", pi: MANIFEST },
			{
				"workflows/a.js": workflow("a", "return 'one';"),
			},
		);
		const two = makePackage(
			join(outside, "two"),
			{ name: "dup", version: "2.0.0", pi: MANIFEST },
			{
				"workflows/a.js": workflow("a", "return 'two';"),
			},
		);
		settings(agentDir, [one, two]);
		const { byName, warnings } = load();
		expect(byName.get("dup:a")?.filename).toBe(join(one, "workflows", "a.js"));
		expect(warnings).toEqual([
			`Installed workflow \`dup:a\` is in two packages: ${one} (dup@1.0.0) (${join(one, "workflows", "a.js")}) and ${two} (dup@2.0.0) (${join(two, "workflows", "a.js")}); \`dup:a\` runs the first (listed first). Remove one of the packages (\`pi remove <source>\`) or rename its meta.name`,
		]);
	});

	it("reads nothing through a link or a path out of the package", () => {
		writeFileSync(join(outside, "secret.js"), workflow("secret"));
		const pkg = makePackage(
			join(agentDir, "local-pkg"),
			{ name: "p", version: "1.0.0", pi: { ...MANIFEST, workflows: ["./workflows", "../.."] } },
			{
				"workflows/ok.js": workflow("ok"),
			},
		);
		symlinkSync(join(outside, "secret.js"), join(pkg, "workflows", "link.js"));
		settings(agentDir, ["./local-pkg"]);
		const { byName, warnings } = load();
		expect([...byName.keys()]).toEqual(["p:ok"]);
		expect(warnings).toEqual([
			`Skipped workflow ${join(pkg, "workflows", "link.js")} of package ${pkg} (p@1.0.0): it is a link out of the package (to ${join(outside, "secret.js")}); a package's workflows are files inside it`,
			`Skipped ../.. of package ${pkg} (p@1.0.0): it leads out of the package (to ${dirname(agentDir)}); a package's workflows are files inside it`,
		]);
	});

	it("locks the new digest at a new version (an update), and refuses an edit at the same version", () => {
		const root = join(agentDir, "npm", "node_modules", "tools");
		const manifest = { name: "tools", version: "1.0.0", pi: MANIFEST };
		makePackage(root, manifest, { "workflows/r.js": workflow("r", "return 1;") });
		settings(agentDir, ["npm:tools"]);
		expect(resolveScriptSource({ name: "tools:r" }, { cwd, agentDir }).tier).toBe("installed");
		makePackage(root, { ...manifest, version: "1.1.0" }, { "workflows/r.js": workflow("r", "return 2;") });
		expect(resolveScriptSource({ name: "tools:r" }, { cwd, agentDir }).source).toContain("return 2;");
		const lock = JSON.parse(readFileSync(join(agentDir, "workflows.lock.json"), "utf8"));
		expect(lock.workflows["tools:r"]).toMatchObject({ version: "1.1.0", source: "npm:tools" });
		writeFileSync(join(root, "workflows", "r.js"), workflow("r", "return 3;"));
		expect(() => resolveScriptSource({ name: "tools:r" }, { cwd, agentDir })).toThrow(
			/^Installed workflow `tools:r` .* no longer matches the digest locked for package tools@1\.1\.0 .*re-install the package: `pi install npm:tools`/,
		);
	});

	it("refuses an installed workflow whose name a saved workflow has, naming both", () => {
		const pkg = makePackage(
			join(outside, "x"),
			{ name: "x", version: "1.0.0", pi: MANIFEST },
			{
				"workflows/y.js": workflow("y"),
			},
		);
		settings(agentDir, [pkg]);
		mkdirSync(join(cwd, ".pi", "workflows"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "workflows", "mine.js"), workflow("x:y", "return 'mine';"));
		const { byName, warnings } = load();
		expect(byName.get("x:y")?.scope).toBe("project");
		expect(warnings).toEqual([
			`Installed workflow \`x:y\` of package ${pkg} (x@1.0.0) (${join(pkg, "workflows", "y.js")}) is refused: the saved workflow ${join(cwd, ".pi", "workflows", "mine.js")} has that name. Rename one of them (meta.name)`,
		]);
	});

	it("this package lists its bundled workflows as a pi package does, and installed as one it lists them once, as bundled", () => {
		const root = join(BUNDLED_DIR, "..", "..");
		const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
		expect(manifest.pi.extensions).toBeDefined();
		settings(agentDir, [root]);
		const { byName, warnings } = loadSavedWorkflows({ cwd, agentDir, claude: false });
		expect(warnings).toEqual([]);
		const bundled = [...byName.values()].filter((saved) => saved.scope === "bundled");
		expect(bundled.map((saved) => join(root, manifest.pi.workflows[bundled.indexOf(saved)]))).toEqual(
			bundled.map((saved) => saved.filename),
		);
		expect(bundled.length).toBe(manifest.pi.workflows.length);
		expect([...byName.values()].filter((saved) => saved.scope === "installed")).toEqual([]);
	});

	it("the example package examples/packages/review-kit verifies: its shipped cassette replays offline", async () => {
		settings(agentDir, [join(BUNDLED_DIR, "..", "packages", "review-kit")]);
		const verified = await cliInProcess(["verify", "--all"], { cwd, agentDir });
		expect(verified.code, verified.stdout + verified.stderr).toBe(0);
		const lines = verified.stdout.split("\n");
		expect(lines[0]).toMatch(
			/^ok review-kit:change-summary \(from .*review-kit \(review-kit@1\.0\.0\), sha256 [0-9a-f]{12}\): replay test passed: 1 recorded call matched$/,
		);
		expect(lines).toEqual(
			expect.arrayContaining([
				expect.stringMatching(
					/^ok review-kit:risk-triage .*: digest matches the lock; no cassette shipped, so no replay test$/,
				),
			]),
		);
	});

	it("refuses a workflow added to (or renamed in) a package version after it was first seen, until approved", async () => {
		const root = join(agentDir, "npm", "node_modules", "tools");
		makePackage(root, { name: "tools", version: "1.0.0", pi: MANIFEST }, { "workflows/r.js": workflow("r") });
		settings(agentDir, ["npm:tools"]);
		expect(load().byName.has("tools:r")).toBe(true);
		writeFileSync(join(root, "workflows", "planted.js"), workflow("planted"));
		const lockFile = join(agentDir, "workflows.lock.json");
		expect(() => resolveScriptSource({ name: "tools:planted" }, { cwd, agentDir })).toThrow(
			`Installed workflow \`tools:planted\` (${join(root, "workflows", "planted.js")}) was not in package tools@1.0.0 when that version was installed (the lock has no digest for it: the file was added or its meta.name changed since), so it does not run. If the change is yours and you trust it, approve it: \`pi-workflows verify tools:planted --accept\`; otherwise re-install the package: \`pi install npm:tools\` (the lock is ${lockFile})`,
		);
		const accepted = await cliInProcess(["verify", "tools:planted", "--accept"], { cwd, agentDir });
		expect(accepted.code, accepted.stdout).toBe(0);
		expect(resolveScriptSource({ name: "tools:planted" }, { cwd, agentDir }).tier).toBe("installed");
	});

	it("verifies a package seen for the first time when a session starts, tells a failure once, and keeps the verdict", async () => {
		const example = join(BUNDLED_DIR, "..", "packages", "review-kit");
		const copy = makePackage(
			join(outside, "review-kit"),
			JSON.parse(readFileSync(join(example, "package.json"), "utf8")),
			{
				"workflows/change-summary.js": readFileSync(
					join(example, "workflows", "change-summary.js"),
					"utf8",
				).replace("in one line of at most 80 characters", "in one short line"),
				"workflows/change-summary.cassette.json": readFileSync(
					join(example, "workflows", "change-summary.cassette.json"),
					"utf8",
				),
			},
		);
		settings(agentDir, [copy]);
		const told: string[] = [];
		const ctx = { cwd, isProjectTrusted: () => false, ui: { notify: (text: string) => told.push(text) } };
		await verifyNewInstalled(ctx as never, agentDir);
		expect(told).toHaveLength(1);
		expect(told[0]).toMatch(
			/^pi-workflows: installed workflow review-kit:change-summary \(from .*\) did not verify: replay test FAILED \(0 recorded calls matched\): .*in one short line.*`pi-workflows verify review-kit:change-summary` shows it again; the setting workflows.verifyBlocksInstall keeps such a workflow from running$/s,
		);
		await verifyNewInstalled(ctx as never, agentDir);
		expect(told).toHaveLength(1);
		const lock = JSON.parse(readFileSync(join(agentDir, "workflows.lock.json"), "utf8"));
		expect(lock.workflows["review-kit:change-summary"].verified).toMatchObject({ ok: false });
	});
});
