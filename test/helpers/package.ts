/**
 * The package as users get it, for the consumer and CLI tests: `npm pack` of a copy of this checkout (so `prepare`
 * builds there and the checkout's own dist/ is never rewritten under other tests), installed from the tarball into
 * an empty project; or just the build, for tests that spawn the bin. Every folder is under the OS temp dir. pi's
 * packages come from this checkout's node_modules (linked), never from the registry.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { runCommand } from "./spawn.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
/** What a build and a pack need of the checkout. */
const SOURCES = [
	"package.json",
	"tsconfig.json",
	"tsconfig.build.json",
	"scripts/build.ts",
	"src",
	"examples",
	"skills",
	"docs",
	"README.md",
	"SECURITY.md",
];
/** pi's packages and typebox: the peer dependencies a pi install provides. */
export const PI_PEERS = [
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-ai",
	"@earendil-works/pi-agent-core",
	"@earendil-works/pi-tui",
	"typebox",
];

/** Environment for spawned commands: this Node first on PATH (npm scripts and `#!/usr/bin/env node` bins). */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	return { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`, ...extra };
}

/**
 * `childEnv()` without the machine's provider keys, with pi's agent directory at `agentDir`: what a spawned command
 * sees must not depend on who runs the suite ("no model available" stays that).
 */
export function keylessEnv(agentDir: string): NodeJS.ProcessEnv {
	const clean = Object.fromEntries(Object.entries(childEnv()).filter(([name]) => !/_API_KEY$|_TOKEN$/.test(name)));
	return { ...clean, PI_CODING_AGENT_DIR: agentDir };
}

/** A copy of the checkout's package sources with its node_modules linked in. */
function copyCheckout(): string {
	const dir = mkdtempSync(join(tmpdir(), "pi-workflows-pkg-"));
	for (const name of SOURCES) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
	symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
	return dir;
}

/** `npm run build` in a copy of the checkout; returns the copy (its dist/cli/main.js is the bin). */
export async function buildCopy(): Promise<string> {
	const dir = copyCheckout();
	const build = await runCommand("npm", ["run", "build"], { cwd: dir, env: childEnv() });
	if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
	return dir;
}

/** `npm pack` of a copy of the checkout (its prepare script builds it); returns the tarball's path. */
export async function packPackage(): Promise<{ tarball: string; dirs: string[] }> {
	const dir = copyCheckout();
	const out = mkdtempSync(join(tmpdir(), "pi-workflows-tgz-"));
	const pack = await runCommand("npm", ["pack", "--pack-destination", out], { cwd: dir, env: childEnv() });
	if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stdout}${pack.stderr}`);
	const [tarball] = readdirSync(out).filter((name) => name.endsWith(".tgz"));
	if (!tarball) throw new Error(`npm pack wrote no tarball:\n${pack.stdout}`);
	return { tarball: join(out, tarball), dirs: [dir, out] };
}

/**
 * An empty project with the tarball installed (its dependencies from npm's cache where it has them). With `pi`,
 * pi's packages are then linked in from this checkout's node_modules, as a project that has pi has them.
 */
export async function installTarball(tarball: string, options: { pi?: boolean } = {}): Promise<string> {
	const dir = mkdtempSync(join(tmpdir(), "pi-workflows-consumer-"));
	writeFileSync(
		join(dir, "package.json"),
		JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }),
	);
	const install = await runCommand(
		"npm",
		["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
		{ cwd: dir, env: childEnv() },
	);
	if (install.code !== 0) throw new Error(`npm install failed:\n${install.stdout}${install.stderr}`);
	if (options.pi) {
		// Linked after the install, which would prune packages its package.json does not list. Node follows the links
		// to this checkout's node_modules, where pi's own dependencies are.
		for (const name of PI_PEERS) {
			const target = join(dir, "node_modules", name);
			mkdirSync(dirname(target), { recursive: true });
			symlinkSync(realpathSync(join(ROOT, "node_modules", name)), target, "dir");
		}
	}
	return dir;
}

/** Removes temp folders (best effort). */
export function removeAll(dirs: string[]): void {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
