/**
 * A dry run's `bash`: the command run for real inside bubblewrap (`bwrap`), so a script that finds its work with
 * `git ls-files` or `git diff --name-only` fans out as the real run will. The whole file system is bound read-only,
 * `/tmp` is a private empty one, the homes are hidden, there is no network, and the working directory is kept: a command that writes fails
 * as on a read-only file system and nothing outside the private `/tmp` changes. Where no `bwrap` can make such a
 * sandbox (macOS, a container without user namespaces) there is none, and the dry run fences `bash` as before.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, sep } from "node:path";
import { WorkflowError } from "../../errors.ts";
import type { WorkflowTool } from "../core/types.ts";

/** Where a sandbox can be made: the `bwrap` binary that made one when asked. */
export interface BashSandbox {
	bwrap: string;
}

/** Output kept of one command before `tool()` cuts it further: its first and last halves of this many characters. */
const MAX_CAPTURE_CHARS = 1024 * 1024;

/** Probes already made, by `bwrap` path: a sandbox either works on this machine or it does not. */
const probes = new Map<string, Promise<boolean>>();

/**
 * The sandbox this machine can make: `bwrap` on `PATH` (of `env`) that runs a command in it, else undefined. The
 * probe runs once per binary.
 */
export async function findBashSandbox(env: NodeJS.ProcessEnv = process.env): Promise<BashSandbox | undefined> {
	const bwrap = onPath("bwrap", env.PATH ?? "");
	if (bwrap === undefined) return undefined;
	let works = probes.get(bwrap);
	if (works === undefined) {
		works = new Promise<boolean>((resolve) => {
			const child = spawn(bwrap, [...sandboxArgs("/"), "true"], { stdio: "ignore" });
			child.once("error", () => resolve(false));
			child.once("exit", (code) => resolve(code === 0));
		});
		probes.set(bwrap, works);
	}
	return (await works) ? { bwrap } : undefined;
}

/**
 * pi's `bash` as a dry run lends it: `{ command, timeout? }` (seconds) run by `bash -c` in `sandbox`, in `cwd`.
 * Gives what pi's tool gives: stdout and stderr together, and on a non-zero exit `isError` with "Command exited with
 * code N" after it and `details.exit_code`. The step's `timeoutMs` and the script's end reach it through `signal`,
 * which ends the command and everything it started; `maxMs` bounds every command (a shorter `timeout` still holds).
 */
export function sandboxedBash(sandbox: BashSandbox, cwd: string, maxMs?: number): WorkflowTool {
	return async (params, signal) => {
		const { command, timeout } = (params ?? {}) as { command?: unknown; timeout?: unknown };
		if (typeof command !== "string" || command.trim() === "") {
			throw new WorkflowError("tool_failed", '`tool("bash")` needs `command`: a non-empty string');
		}
		const child = spawn(sandbox.bwrap, [...sandboxArgs(cwd), "bash", "-c", command], {
			cwd,
			env: sandboxEnv(process.env),
			stdio: ["ignore", "pipe", "pipe"],
			detached: true,
		});
		const own = typeof timeout === "number" && timeout > 0 ? timeout : undefined;
		const most = maxMs !== undefined && maxMs > 0 ? maxMs / 1000 : undefined;
		const seconds = own !== undefined && most !== undefined ? Math.min(own, most) : (own ?? most);
		const { output, code, ended } = await finished(child, signal, seconds);
		if (ended !== undefined) throw new WorkflowError("tool_failed", withStatus(output, ended));
		// As pi's bash words it: "(no output)" for none, the exit code after the output.
		const text = output || "(no output)";
		if (code === 0) return { output: text, details: { exit_code: 0, sandboxed: true } };
		return {
			output: withStatus(text, `Command exited with code ${code}`),
			isError: true,
			details: { exit_code: code, sandboxed: true },
		};
	};
}

/** Names of variables that hold credentials: a dry run's output may be public (CI), so its commands never see them. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|SESSION|COOKIE/i;

/** The host's environment less its credentials, with `TMPDIR` the private `/tmp` (the host's may be hidden under it). */
function sandboxEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !SECRET_NAME.test(name)));
	return { ...kept, TMPDIR: "/tmp" };
}

/** The command's output and exit code, or why it was ended: aborted, or over its own `timeout`. */
function finished(
	child: ChildProcess,
	signal: AbortSignal,
	seconds: number | undefined,
): Promise<{ output: string; code: number; ended?: string }> {
	const output = new Capture();
	child.stdout?.setEncoding("utf8").on("data", (text: string) => output.add(text));
	child.stderr?.setEncoding("utf8").on("data", (text: string) => output.add(text));
	return new Promise((resolve, reject) => {
		let ended: string | undefined;
		// The command's whole process group: `bash -c` may have started others.
		const end = (why: string) => {
			ended ??= why;
			try {
				if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
			} catch {
				// Already gone.
			}
		};
		const onAbort = () => end("Command aborted");
		if (signal.aborted) onAbort();
		signal.addEventListener("abort", onAbort, { once: true });
		const timer =
			seconds !== undefined
				? setTimeout(() => end(`Command timed out after ${seconds} seconds`), seconds * 1000)
				: undefined;
		const done = () => {
			signal.removeEventListener("abort", onAbort);
			if (timer) clearTimeout(timer);
		};
		child.once("error", (error) => {
			done();
			reject(new WorkflowError("tool_failed", `the sandbox (${error.message}) could not start the command`));
		});
		child.once("close", (code) => {
			done();
			resolve({ output: output.text(), code: code ?? 1, ...(ended !== undefined ? { ended } : {}) });
		});
	});
}

/** A command's output, its middle dropped past `MAX_CAPTURE_CHARS`, so a chatty command cannot fill the host. */
class Capture {
	#head = "";
	#tail = "";
	#dropped = 0;

	add(text: string): void {
		const half = MAX_CAPTURE_CHARS / 2;
		if (this.#head.length < half) {
			const room = half - this.#head.length;
			this.#head += text.slice(0, room);
			text = text.slice(room);
		}
		this.#tail += text;
		if (this.#tail.length > half) {
			this.#dropped += this.#tail.length - half;
			this.#tail = this.#tail.slice(-half);
		}
	}

	text(): string {
		if (this.#dropped === 0) return this.#head + this.#tail;
		return `${this.#head}\n[… ${this.#dropped} characters dropped …]\n${this.#tail}`;
	}
}

function withStatus(output: string, status: string): string {
	return `${output ? `${output}\n\n` : ""}${status}`;
}

/**
 * bwrap's arguments: everything read-only, a private `/tmp`, the homes hidden (a person's keys, pi's credentials and
 * settings live there, and a plan may be public), its own network (no interfaces but a loopback of its own) and
 * process ids, ended with the host. The project is bound again over what hides it when it lives there (a temp
 * checkout, a clone in the home), from its repository's root so git finds it.
 */
function sandboxArgs(cwd: string): string[] {
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
	const hidden = ["/tmp", ...homes()];
	for (const home of hidden.slice(1)) args.push("--tmpfs", home);
	const root = projectRoot(cwd);
	if (hidden.some((dir) => root.startsWith(`${dir}${sep}`))) args.push("--ro-bind", root, root);
	args.push("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session", "--chdir", realOr(cwd));
	return args;
}

/** The person's home and root's, as real folders, each once; never `/` itself. */
function homes(): string[] {
	const found = [homedir(), "/root"].filter((dir) => dir !== "" && existsSync(dir)).map(realOr);
	return [...new Set(found)].filter((dir) => dir !== "/" && dir !== "/tmp" && !dir.startsWith(`/tmp${sep}`));
}

function realOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** The folder holding `.git` at or above `cwd` (real path), else `cwd`'s own. */
function projectRoot(cwd: string): string {
	const real = realOr(cwd);
	for (let dir = real; ; dir = dirname(dir)) {
		if (existsSync(join(dir, ".git"))) return dir;
		if (dirname(dir) === dir) return real;
	}
}

function onPath(name: string, path: string): string | undefined {
	for (const dir of path.split(delimiter)) {
		if (dir === "") continue;
		const file = join(dir, name);
		try {
			accessSync(file, constants.X_OK);
			return file;
		} catch {
			// Not here.
		}
	}
	return undefined;
}
