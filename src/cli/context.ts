/** What every command gets: where it runs and where its output goes. */

export interface CliContext {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** pi's agent directory: saved workflows, agent types, auth, and the run store's root. */
	agentDir: string;
	/** Results (JSON, lists, diagnostics): what a program reads. */
	stdout: NodeJS.WritableStream;
	/** Where `ask()` answers are read from, when it is a terminal. Default: none (nobody can answer). */
	stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
	/** Progress, errors and hints: what a person reads. `isTTY` turns on the live view. */
	stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
}
