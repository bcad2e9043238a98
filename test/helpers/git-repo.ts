/**
 * A real git repository in a temp folder for worktree tests: `git init`, a local user.name/email, one commit, and
 * a folder beside it for a run's worktrees. `git()` runs git there synchronously and returns what it printed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempRepo {
	/** The repository's root (its realpath, as git reports it). */
	dir: string;
	/** A folder outside the repository for a run's worktrees. */
	runDir: string;
	/** Runs git in the repository (or in `cwd`); throws with git's stderr when it fails. */
	git(args: string[], cwd?: string): string;
	write(path: string, content: string): void;
	read(path: string): string;
	/** Paths in `.git/worktrees/` (stale worktree entries) and `*.lock` files under `.git`. */
	leftovers(): { worktrees: string[]; locks: string[] };
	dispose(): void;
}

export function createTempRepo(options: { commit?: boolean } = {}): TempRepo {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-git-"));
	const dir = join(root, "repo");
	mkdirSync(dir);
	const git = (args: string[], cwd = dir) =>
		execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
	git(["init", "--quiet", "--initial-branch=main"]);
	git(["config", "user.name", "Test User"]);
	git(["config", "user.email", "test@example.com"]);
	git(["config", "commit.gpgsign", "false"]);
	const write = (path: string, content: string) => {
		mkdirSync(dirname(join(dir, path)), { recursive: true });
		writeFileSync(join(dir, path), content);
	};
	if (options.commit !== false) {
		write("src/math.js", "export const add = (a, b) => a - b;\n");
		write("README.md", "# demo\n");
		git(["add", "--all"]);
		git(["commit", "--quiet", "-m", "init"]);
	}
	return {
		dir: git(["rev-parse", "--show-toplevel"]).trim() || dir,
		runDir: join(root, "run", "worktrees"),
		git,
		write,
		read: (path) => readFileSync(join(dir, path), "utf8"),
		leftovers() {
			const entries = join(dir, ".git", "worktrees");
			const worktrees = existsSync(entries) ? readdirSync(entries) : [];
			const locks = execFileSync("find", [join(dir, ".git"), "-name", "*.lock"], { encoding: "utf8" })
				.split("\n")
				.filter(Boolean);
			return { worktrees, locks };
		},
		dispose() {
			rmSync(root, { recursive: true, force: true });
		},
	};
}
