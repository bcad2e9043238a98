/**
 * One `git` command: spawned without a shell, with a deadline, no prompts and no editor, in an environment that
 * cannot point it at another repository. Fails with a `GitFailure` (exit code, stderr) the caller classifies.
 */
import { execFile } from "node:child_process";
import { WorkflowError } from "../errors.ts";

/** Options of `runGit`. */
export interface GitOptions {
	/** The directory git runs in. */
	cwd: string;
	/** Killed (SIGKILL) after this long. Default: 30000. */
	timeoutMs?: number;
	/** The git executable. Default: "git" from PATH. */
	git?: string;
	/** Variables set for this command on top of the process's own. Default: none. */
	env?: Readonly<Record<string, string>>;
}

/** What a git command printed. */
export interface GitOutput {
	stdout: string;
	stderr: string;
}

/** A git command that ran and failed (non-zero exit, or killed at its deadline). */
export class GitFailure extends Error {
	override readonly name = "GitFailure";
	readonly args: readonly string[];
	readonly stderr: string;
	/** What it printed on stdout before failing (`git push --porcelain` says there which refs were refused). */
	readonly stdout: string;
	readonly timedOut: boolean;

	constructor(args: readonly string[], stderr: string, timedOut: boolean, timeoutMs: number, stdout = "") {
		const said = firstLines(stderr);
		super(
			timedOut
				? `\`git ${args.join(" ")}\` did not finish within ${timeoutMs} ms`
				: `\`git ${args.join(" ")}\` failed${said ? `: ${said}` : ""}`,
		);
		this.args = args;
		this.stderr = stderr;
		this.stdout = stdout;
		this.timedOut = timedOut;
	}
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Variables that would make git work on another repository, index or tree than the one in `cwd`. */
const REDIRECTING = [
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_INDEX_FILE",
	"GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY",
	"GIT_PREFIX",
];

/** Runs `git <args>` in `options.cwd`. Throws `worktree_git_missing` when there is no git to run. */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitOutput> {
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const git = options.git ?? "git";
	const env: NodeJS.ProcessEnv = {
		...process.env,
		// Never wait for a person: no credential prompt, no editor, no pager; messages in English so they can be read.
		GIT_TERMINAL_PROMPT: "0",
		GIT_EDITOR: ":",
		GIT_PAGER: "cat",
		LC_ALL: "C",
		...options.env,
	};
	for (const name of REDIRECTING) delete env[name];
	return new Promise((resolve, reject) => {
		execFile(
			git,
			[...args],
			{ cwd: options.cwd, env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: MAX_OUTPUT_BYTES },
			(error, stdout, stderr) => {
				if (!error) {
					resolve({ stdout, stderr });
					return;
				}
				if ((error as NodeJS.ErrnoException).code === "ENOENT") {
					reject(
						new WorkflowError(
							"worktree_git_missing",
							`\`isolation: "worktree"\` needs git, and \`${git}\` was not found on PATH. Install git, or leave \`isolation\` out`,
							{ details: { git } },
						),
					);
					return;
				}
				reject(new GitFailure(args, String(stderr), error.killed === true, timeoutMs, String(stdout)));
			},
		);
	});
}

/** The first lines of git's message, on one line. */
function firstLines(text: string): string {
	return text
		.split("\n")
		.map((line) => line.trim())
		.filter(Boolean)
		.slice(0, 3)
		.join(" ");
}
