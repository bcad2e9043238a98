/**
 * Fresh processes for the rows that measure a process from its start (start-up, memory): run a bench script in
 * its own Node and read the one JSON line it prints.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Runs `script` (a URL of a bench file) with `args` in a new Node process; resolves to its JSON output. */
export function runChild<T>(
	script: URL,
	args: string[],
	options: { nodeFlags?: string[]; cwd: URL; env?: NodeJS.ProcessEnv },
): Promise<T> {
	return new Promise((resolve, reject) => {
		execFile(
			process.execPath,
			[...(options.nodeFlags ?? []), fileURLToPath(script), ...args],
			{ cwd: fileURLToPath(options.cwd), env: options.env, timeout: 120_000, maxBuffer: 1024 * 1024 },
			(error, stdout, stderr) => {
				if (error) {
					reject(new Error(`${fileURLToPath(script)} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
					return;
				}
				const line = stdout.trim().split("\n").at(-1) ?? "";
				try {
					resolve(JSON.parse(line) as T);
				} catch {
					reject(new Error(`${fileURLToPath(script)} printed no JSON: ${stdout}\n${stderr}`));
				}
			},
		);
	});
}
