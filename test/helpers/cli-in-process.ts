/** The command line run in this process (no spawn, no build), with what it wrote to stdout and stderr. */
import { PassThrough } from "node:stream";
import { runCli } from "../../src/cli/cli.ts";

export interface CliOutcome {
	code: number;
	stdout: string;
	stderr: string;
}

export async function cliInProcess(
	argv: readonly string[],
	place: { cwd: string; agentDir: string; env?: NodeJS.ProcessEnv },
): Promise<CliOutcome> {
	const stdout = new PassThrough();
	const stderr = new PassThrough();
	let out = "";
	let err = "";
	stdout.on("data", (chunk) => {
		out += String(chunk);
	});
	stderr.on("data", (chunk) => {
		err += String(chunk);
	});
	const code = await runCli(argv, { cwd: place.cwd, env: place.env ?? {}, agentDir: place.agentDir, stdout, stderr });
	return { code, stdout: out, stderr: err };
}
