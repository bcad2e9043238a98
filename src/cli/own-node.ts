/**
 * The process a command that runs workflows needs, which only a new start can give. `run`, `resume` and `worker`
 * load pi, which needs Node 22.19; the rest run on Node 20. `npx --prefix <clone> pi-workflows run …` on a Node 20
 * machine runs the bin on that machine's Node, while the checkout has a Node 22 of its own (the `node` dev dependency)
 * and a project may have one installed: the bin finds one and runs itself again on it, or says exactly what to run.
 * And glibc keeps the memory worker threads freed in their arenas unless `MALLOC_TRIM_THRESHOLD_` is set when the
 * process starts (docs/performance.md, row 5c): those commands start again with it, in the same process where Node
 * can (`process.execve`), so one start serves both.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The Node that pi-coding-agent declares in its `engines`. */
export const PI_NODE = "22.19";

/** The commands that load pi. */
const PI_COMMANDS = new Set(["run", "resume", "worker"]);

/**
 * Set in the environment of the bin run again, so it never looks again (a found Node that is not new enough):
 * "trim" when the start added the trim threshold, "1" when it did not.
 */
const AGAIN = "PI_WORKFLOWS_OWN_NODE";

/**
 * glibc's trim threshold for the commands' processes: freed memory above 128 KiB at the top of an arena goes back to
 * the system (the default starts there too, but glibc raises it up to 32 MiB once large blocks are freed, as V8 does
 * while each worker thread boots). It must be in the environment when the process starts.
 */
export const TRIM_THRESHOLD = "131072";
const TRIM = "MALLOC_TRIM_THRESHOLD_";

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

/** What a command's process is: its Node's version, and whether its C library is glibc (which reads `TRIM`). */
export interface ProcessKind {
	node: string;
	glibc: boolean;
}

/** This process's kind; whether it runs on glibc is only asked when `env` has no trim threshold of its own. */
function thisProcess(env: NodeJS.ProcessEnv): ProcessKind {
	return { node: process.versions.node, glibc: env[TRIM] === undefined && onGlibc() };
}

/** The report's header names glibc's version when Node runs on it (about 2.5 ms). */
function onGlibc(): boolean {
	if (process.platform !== "linux") return false;
	const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
	return !!report?.header?.glibcVersionRuntime;
}

/** How a command must start again: on which Node (undefined: this one), with which environment. */
export interface Relaunch {
	node: string | undefined;
	env: NodeJS.ProcessEnv;
}

/**
 * Whether the command in `argv` must start again, and how: on the package's own Node when this one is too old for
 * pi, and with the trim threshold on glibc when the user has not set it (any value of theirs is kept). Undefined for
 * a command that runs no workflow, a process that started again already, or one that needs neither.
 */
export function relaunchPlan(
	argv: readonly string[],
	env: NodeJS.ProcessEnv,
	given?: ProcessKind,
	ownNode: () => string | undefined = () => findNode(ownNodePlaces(packageRoot())),
): Relaunch | undefined {
	if (!PI_COMMANDS.has(argv[0] ?? "") || env[AGAIN]) return undefined;
	// Only now: the short commands pay nothing for the C library check.
	const kind = given ?? thisProcess(env);
	const trim = kind.glibc && env[TRIM] === undefined;
	const node = newEnoughForPi(kind.node) ? undefined : ownNode();
	// On an old Node with no Node of the package's own, the command says what to run (`tooOldForPi`).
	if (!newEnoughForPi(kind.node) && !node) return undefined;
	if (!trim && !node) return undefined;
	return { node, env: { ...env, ...(trim ? { [TRIM]: TRIM_THRESHOLD } : {}), [AGAIN]: trim ? "trim" : "1" } };
}

/**
 * For a command that runs workflows: starts the bin again as `relaunchPlan` says. On this Node, the process becomes
 * the new one (`process.execve`, Node 22.15+ on POSIX: same pid, signals and exit code, nothing waits beside it);
 * on another Node, or where execve is missing, a child process runs it and this one resolves with its exit code.
 * Undefined when nothing needs a new start.
 */
export async function relaunched(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
	const plan = relaunchPlan(argv, env);
	if (!plan || !process.argv[1]) return undefined;
	const args = [...process.execArgv, process.argv[1], ...argv];
	if (!plan.node && process.execve) process.execve(process.execPath, [process.execPath, ...args], plan.env);
	const child = spawn(plan.node ?? process.execPath, args, { stdio: "inherit", env: plan.env });
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
