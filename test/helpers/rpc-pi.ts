/**
 * pi in RPC mode through its own loader, with this checkout's extension and the faux provider loaded
 * (`pi --mode rpc -e ./src/pi.ts -e faux`): send commands, wait for the lines it prints.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const piCli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

/** pi's arguments: `mode` (`["-p"]`, `["--mode", "rpc"]`), offline, no session, the extension and the faux model. */
export function piArguments(mode: readonly string[]): string[] {
	const extensions = [join(root, "src", "pi.ts"), join(root, "test", "fixtures", "faux-provider-extension.ts")];
	return [
		piCli,
		...mode,
		"--offline",
		"--no-session",
		...extensions.flatMap((e) => ["-e", e]),
		"--model",
		"faux/faux-1",
	];
}

/** The environment pi runs in: its agent dir, and this Node first on PATH. */
export function piEnv(agentDir: string): NodeJS.ProcessEnv {
	return { ...process.env, PI_CODING_AGENT_DIR: agentDir, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
}

export type Line = Record<string, unknown> & { type: string };

/** A pi in RPC mode: send commands, wait for lines. */
export class RpcPi {
	readonly lines: Line[] = [];
	private readonly child: ChildProcessWithoutNullStreams;
	private waiters: (() => void)[] = [];
	private buffer = "";
	stderr = "";

	constructor(cwd: string, agentDir: string) {
		this.child = spawn(process.execPath, piArguments(["--mode", "rpc"]), { cwd, env: piEnv(agentDir) });
		this.child.stdout.on("data", (chunk: Buffer) => {
			this.buffer += chunk.toString("utf8");
			let newline = this.buffer.indexOf("\n");
			while (newline >= 0) {
				const text = this.buffer.slice(0, newline).trim();
				this.buffer = this.buffer.slice(newline + 1);
				if (text.startsWith("{")) this.lines.push(JSON.parse(text) as Line);
				newline = this.buffer.indexOf("\n");
			}
			for (const wake of this.waiters.splice(0)) wake();
		});
		this.child.stderr.on("data", (chunk: Buffer) => {
			this.stderr += chunk.toString("utf8");
		});
	}

	send(command: Record<string, unknown>): void {
		this.child.stdin.write(`${JSON.stringify(command)}\n`);
	}

	/** The first line (from `from` on) that `match` accepts; fails after `timeoutMs` saying what it saw. */
	async waitFor(match: (line: Line) => boolean, from = 0, timeoutMs = 60_000): Promise<Line> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = this.lines.slice(from).find(match);
			if (found) return found;
			if (Date.now() > deadline) {
				throw new Error(
					`no such line; saw:\n${this.lines.map((l) => JSON.stringify(l).slice(0, 300)).join("\n")}\n${this.stderr}`,
				);
			}
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, 1000);
				this.waiters.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
	}

	async close(): Promise<void> {
		if (this.child.exitCode !== null) return;
		const closed = new Promise((resolve) => this.child.once("close", resolve));
		this.child.stdin.end();
		this.child.kill("SIGTERM");
		await closed;
	}
}

/** The text of a `notify` request, else "". */
export const notifyOf = (line: Line) =>
	line.type === "extension_ui_request" && line.method === "notify" ? String(line.message) : "";
