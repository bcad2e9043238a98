/**
 * A repository's three places for remote-workspace tests: a bare remote in a temp folder, the host's clone of it
 * (a local user, one commit pushed as `main`) and a worker's empty cache folder.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempRemote {
	/** The bare repository the host pushes to and workers clone (`--repo`). */
	remote: string;
	/** The host's working tree, with `origin` = `remote`. */
	host: string;
	/** A worker's cache folder (not made yet). */
	cache: string;
	/** Runs git in `cwd` (default: the host); throws with git's stderr when it fails. */
	git(args: string[], cwd?: string): string;
	/** Writes a file in the host's working tree. */
	write(path: string, content: string): void;
	/** The host's HEAD commit. */
	head(): string;
	/** A hook of the bare remote (`pre-receive`…) running `script` with /bin/sh. */
	hook(name: string, script: string): void;
	dispose(): void;
}

export function createTempRemote(): TempRemote {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "pi-workflows-remote-")));
	const remote = join(root, "remote.git");
	const host = join(root, "host");
	const git = (args: string[], cwd = host) =>
		execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
	mkdirSync(host);
	git(["init", "--quiet", "--bare", "--initial-branch=main", remote], root);
	git(["init", "--quiet", "--initial-branch=main"]);
	git(["config", "user.name", "Host User"]);
	git(["config", "user.email", "host@example.com"]);
	git(["config", "commit.gpgsign", "false"]);
	git(["remote", "add", "origin", remote]);
	const write = (path: string, content: string) => {
		mkdirSync(dirname(join(host, path)), { recursive: true });
		writeFileSync(join(host, path), content);
	};
	write("src/math.js", "export const add = (a, b) => a - b;\n");
	write("README.md", "# demo\n");
	git(["add", "--all"]);
	git(["commit", "--quiet", "-m", "init"]);
	git(["push", "--quiet", "origin", "main"]);
	return {
		remote,
		host,
		cache: join(root, "worker-cache"),
		git,
		write,
		head: () => git(["rev-parse", "HEAD"]).trim(),
		hook(name, script) {
			const path = join(remote, "hooks", name);
			writeFileSync(path, `#!/bin/sh\n${script}\n`);
			chmodSync(path, 0o755);
		},
		dispose() {
			rmSync(root, { recursive: true, force: true });
		},
	};
}

/** A file's text in the host's working tree. */
export function readHost(remote: TempRemote, path: string): string {
	return readFileSync(join(remote.host, path), "utf8");
}
