/**
 * The bin on a Node too old for pi. `run`, `resume` and `worker` load pi, which needs Node 22.19; the rest run on
 * Node 20. `npx --prefix <clone> pi-workflows run …` on a Node 20 machine runs the bin on that machine's Node,
 * while the checkout has a Node 22 of its own (the `node` dev dependency) and a project may have one installed: the
 * bin finds one and runs itself again on it, or says exactly what to run.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The Node that pi-coding-agent declares in its `engines`. */
export const PI_NODE = "22.19";

/** The commands that load pi. */
const PI_COMMANDS = new Set(["run", "resume", "worker"]);

/** Set in the environment of the bin run again, so it never looks again (a found Node that is not new enough). */
const AGAIN = "PI_WORKFLOWS_OWN_NODE";

/** True when `version` ("22.19.0", "v20.20.2") is at least `PI_NODE`. */
export function newEnoughForPi(version: string): boolean {
	const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
	const [needMajor = 0, needMinor = 0] = PI_NODE.split(".").map(Number);
	return major > needMajor || (major === needMajor && minor >= needMinor);
}

/**
 * Where a Node of the package's own may be: its `node` dependency (installed in a clone, or by `npm install node@22`
 * in it), and when the package is itself installed in a project's `node_modules`, the project's.
 */
export function ownNodePlaces(packageRoot: string): string[] {
	const places = [join(packageRoot, "node_modules", "node", "bin", "node")];
	const parent = dirname(packageRoot);
	// An installed package: <project>/node_modules/pi-workflows, or <project>/node_modules/@scope/pi-workflows.
	const modules = basename(parent).startsWith("@") ? dirname(parent) : parent;
	if (basename(modules) === "node_modules") places.push(join(modules, "node", "bin", "node"));
	return places;
}

/** The first of `places` that is a Node new enough for pi. */
function findNode(places: readonly string[]): string | undefined {
	for (const place of places) {
		if (!existsSync(place)) continue;
		const version = spawnSync(place, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
		if (newEnoughForPi(version)) return place;
	}
	return undefined;
}

/** The package's folder: this file is `src/cli/own-node.ts`, or bundled into `dist/cli/` (same depth). */
function packageRoot(): string {
	return fileURLToPath(new URL("../../", import.meta.url));
}

/**
 * For a command that loads pi on a Node too old for it: runs the bin again on the package's own Node and resolves
 * with its exit code; undefined when this Node will do, when nothing needs pi, or when there is no such Node (the
 * command then says what to run: `tooOldForPi`).
 */
export async function onOwnNode(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
	if (newEnoughForPi(process.versions.node) || !PI_COMMANDS.has(argv[0] ?? "") || env[AGAIN]) return undefined;
	const node = findNode(ownNodePlaces(packageRoot()));
	if (!node || !process.argv[1]) return undefined;
	const child = spawn(node, [...process.execArgv, process.argv[1], ...argv], {
		stdio: "inherit",
		env: { ...env, [AGAIN]: "1" },
	});
	// Ctrl-C reaches the child from the terminal (one process group): it stops and saves the run; this process waits
	// for it. A SIGTERM sent to this process alone is passed on.
	const ignore = () => {};
	const pass = () => child.kill("SIGTERM");
	process.on("SIGINT", ignore);
	process.on("SIGTERM", pass);
	return new Promise((resolve) => {
		child.on("exit", (code, signal) => {
			process.off("SIGINT", ignore);
			process.off("SIGTERM", pass);
			resolve(code ?? (signal === "SIGINT" ? 130 : 1));
		});
		child.on("error", () => resolve(1));
	});
}

/** What to do when a command needs pi and this Node is too old, with no Node of the package's own found. */
export function tooOldForPi(command: string): string {
	const places = ownNodePlaces(packageRoot());
	// The folder whose node_modules holds the last place: the project's when the package is installed in one.
	const last = places.at(-1) ?? "";
	const home = dirname(dirname(dirname(dirname(last))));
	return `\`${command}\` needs pi, which needs Node ${PI_NODE} or newer; this is Node ${process.versions.node} (${process.execPath}), and there is no Node ${PI_NODE}+ of the package's own (looked for ${places.join(" and ")}). Install one there and run the same command again: npm install --no-save --prefix ${home} node@22; or run it with a Node ${PI_NODE}+ first on PATH`;
}
