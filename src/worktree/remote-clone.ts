/**
 * A worker's clone of the run's repository (`--repo`): one bare repository per URL in the worker's cache folder,
 * made once and fetched into when a job's commit is not in it yet. Every command that changes it goes through its
 * queue, so any number of children of any number of runs share it.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { errorMessage, WorkflowError } from "../errors.ts";
import { retryLocked } from "./commit.ts";
import { GitFailure, type GitOptions, runGit } from "./git.ts";
import { gitSaid } from "./git-errors.ts";
import { labelSlug } from "./naming.ts";
import { inRepoQueue } from "./repo-queue.ts";

/** Where a worker's clone of a repository is and how its git commands are bounded. */
export interface RemoteCloneOptions {
	/** The repository the host's run works on, as this machine reaches it (`--repo`): a URL, `host:path` or a path. */
	repoUrl: string;
	/** The worker's cache folder: the clone is `<cacheDir>/<name>-<hash>.git`, made (0700) when missing. */
	cacheDir: string;
	/** Deadline of each local git command, in ms. Default: 30000. */
	timeoutMs?: number;
	/** Deadline of each fetch and push, in ms (a first fetch of a large repository takes a while). Default: 600000. */
	networkTimeoutMs?: number;
	/** The git executable. Default: "git" from PATH. */
	git?: string;
}

/** A worker's bare clone of one repository. */
export interface RemoteClone {
	/** The bare repository's folder (its git directory). */
	readonly path: string;
	/** The remote it fetches from and pushes to (`origin`), a path made absolute. */
	readonly url: string;
	/** The machine sets its own ssh command (`GIT_SSH_COMMAND`, `GIT_SSH`, `core.sshCommand`): git's is left alone. */
	readonly ownSsh: boolean;
}

const NETWORK_TIMEOUT_MS = 600_000;
/** A full commit id, SHA-1 or SHA-256: an abbreviated one could name another commit once the clone grows. */
const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Every branch and tag, each under a name of its own, so a fetch never touches refs this module keeps in the clone. */
const ALL_REFS = ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"];
/** gc runs inside the fetch that triggers it (in the clone's queue), not detached beside later commands. */
const GC_INLINE = ["-c", "gc.autoDetach=false"];

/** The clone of `options.repoUrl` in `options.cacheDir`, made (empty, `origin` set) when there is none yet. */
export async function openClone(options: RemoteCloneOptions): Promise<RemoteClone> {
	const url = remoteUrl(options.repoUrl);
	const cacheDir = resolve(options.cacheDir);
	const path = join(cacheDir, clonePathName(url));
	return inRepoQueue(path, async () => {
		if (!existsSync(join(path, "HEAD"))) await makeClone(path, url, cacheDir, options);
		const configured = await runGit(["config", "--get", "core.sshCommand"], local(options, path)).then(
			(out) => out.stdout.trim() !== "",
			() => false,
		);
		const ownSsh = configured || process.env.GIT_SSH_COMMAND !== undefined || process.env.GIT_SSH !== undefined;
		return { path, url, ownSsh };
	});
}

/**
 * Makes sure `commit` is in the clone: fetches it when it is not (the commit alone, else every branch and tag).
 * Throws `worktree_remote_failed` when the remote cannot be read, `worktree_commit_missing` when it has no such
 * commit (it was never pushed).
 */
export async function ensureCommit(clone: RemoteClone, commit: string, options: RemoteCloneOptions): Promise<void> {
	checkCommitId(commit);
	return inRepoQueue(clone.path, async () => {
		if (await hasCommit(clone, commit, options)) return;
		const fetch = (refs: string[]) => fetchInto(clone, refs, options);
		// Servers on protocol v2 (and GitHub) hand out any commit a branch reaches: one fetch of what the job needs.
		const alone = await fetch([commit]).then(
			() => true,
			() => false,
		);
		if (alone && (await hasCommit(clone, commit, options))) return;
		try {
			await fetch(ALL_REFS);
		} catch (error) {
			throw remoteFailure(error, clone, "fetch the run's commit from");
		}
		if (await hasCommit(clone, commit, options)) return;
		throw new WorkflowError(
			"worktree_commit_missing",
			`The run's commit ${commit.slice(0, 12)} is not on ${clone.url}: the worker fetched every branch and tag and none has it. Push the commit the run started from (\`git push\` on the host), then run again`,
			{ details: { commit, repo: clone.url, clone: clone.path } },
		);
	});
}

/** Throws `worktree_failed` unless `commit` is a full commit id (an abbreviated one could name another commit later). */
export function checkCommitId(commit: string): void {
	if (!FULL_COMMIT.test(commit)) {
		throw new WorkflowError(
			"worktree_failed",
			`A remote child's workspace needs the full id of the run's commit, and got ${JSON.stringify(commit)}. The host sends \`git rev-parse HEAD\` of its repository: this is a bug of the host, please report it`,
			{ details: { commit } },
		);
	}
}

/**
 * The clone, with every branch and tag of the remote fetched: for a worker's start, so a `--repo` it cannot read
 * fails there (`worktree_remote_failed`) and the first job finds most commits already in it.
 */
export async function prepareClone(options: RemoteCloneOptions): Promise<RemoteClone> {
	const clone = await openClone(options);
	await inRepoQueue(clone.path, () =>
		fetchInto(clone, ALL_REFS, options).catch((error: unknown) => {
			throw remoteFailure(error, clone, "fetch from");
		}),
	);
	return clone;
}

/** `git fetch origin <refs>`, without FETCH_HEAD (shared by every fetch) and with pruning for the full refspecs. */
function fetchInto(clone: RemoteClone, refs: string[], options: RemoteCloneOptions): Promise<unknown> {
	const prune = refs === ALL_REFS ? ["--prune"] : [];
	// Another worker process on the same cache may be fetching into the clone too: its ref locks are waited out.
	return retryLocked(() =>
		runGit(
			[...GC_INLINE, "fetch", "--quiet", "--no-write-fetch-head", ...prune, "origin", ...refs],
			network(options, clone),
		),
	);
}

/** The remote's URL as git reaches it from inside the clone: a relative path made absolute, anything else as it is. */
export function remoteUrl(repoUrl: string): string {
	const url = repoUrl.trim();
	if (url === "" || url.startsWith("-")) {
		throw new WorkflowError(
			"worktree_remote_failed",
			`The worker's \`--repo\` ${url === "" ? "is empty" : `(${url}) reads as an option`}: give the git URL of the repository the host runs in (the one its \`git remote -v\` lists)`,
		);
	}
	// `scheme://…` and scp-like `host:path` are URLs; anything else is a folder on this machine.
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/]+:/.test(url) || isAbsolute(url)) return url;
	return resolve(url);
}

/** `<last path segment>-<12 hex of the URL's hash>.git`: readable in a listing, distinct per URL. */
function clonePathName(url: string): string {
	const tail = url.replace(/\/+$/, "").split(/[/:]/).pop() ?? "";
	const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
	return `${labelSlug(tail.replace(/\.git$/, "")).slice(0, 40)}-${hash}.git`;
}

/** Made in a temp folder and renamed into place, so a second worker on the same cache never sees half a clone. */
async function makeClone(path: string, url: string, cacheDir: string, options: RemoteCloneOptions): Promise<void> {
	await mkdir(cacheDir, { recursive: true, mode: 0o700 });
	const temp = await mkdtemp(join(cacheDir, ".clone-"));
	try {
		await runGit(["init", "--bare", "--quiet", temp], local(options, cacheDir));
		await runGit(["config", "remote.origin.url", url], local(options, temp));
		await rename(temp, path).catch((error: NodeJS.ErrnoException) => {
			// Another worker process made it first: use theirs.
			if (!existsSync(join(path, "HEAD"))) throw error;
		});
	} catch (error) {
		throw error instanceof WorkflowError
			? error
			: new WorkflowError(
					"worktree_failed",
					`Could not make the worker's clone of ${url} at ${path} (${errorMessage(error)}). Check that the cache folder ${cacheDir} is writable`,
					{ details: { repo: url, clone: path } },
				);
	} finally {
		await rm(temp, { recursive: true, force: true }).catch(() => undefined);
	}
}

async function hasCommit(clone: RemoteClone, commit: string, options: RemoteCloneOptions): Promise<boolean> {
	return runGit(["cat-file", "-e", `${commit}^{commit}`], local(options, clone.path)).then(
		() => true,
		(error: unknown) => {
			if (error instanceof GitFailure && !error.timedOut) return false;
			throw error;
		},
	);
}

/** A fetch or push that could not reach the remote or was refused by it: `worktree_remote_failed`, with git's words. */
export function remoteFailure(error: unknown, clone: RemoteClone, step: string): WorkflowError {
	if (error instanceof WorkflowError) return error;
	const said = error instanceof GitFailure ? (error.timedOut ? error.message : gitSaid(error.stderr)) : "";
	return new WorkflowError(
		"worktree_remote_failed",
		`The worker could not ${step} ${clone.url} (${said || errorMessage(error)}). Check that this machine reaches it and that its git credentials may read it (try \`git ls-remote ${clone.url}\` on the worker)`,
		{ details: { repo: clone.url, clone: clone.path } },
	);
}

/** Options of a local command in `cwd`. */
export function local(options: RemoteCloneOptions, cwd: string): GitOptions {
	return {
		cwd,
		...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
		...(options.git !== undefined ? { git: options.git } : {}),
	};
}

/**
 * Options of a fetch or push in `cwd`: the network deadline, and ssh in batch mode unless the machine chose its own
 * ssh command, so a key's passphrase or an unknown host fails at once instead of waiting at the worker's terminal.
 */
export function network(options: RemoteCloneOptions, clone: RemoteClone): GitOptions {
	return {
		...local(options, clone.path),
		timeoutMs: options.networkTimeoutMs ?? NETWORK_TIMEOUT_MS,
		...(clone.ownSsh ? {} : { env: { GIT_SSH_COMMAND: "ssh -o BatchMode=yes" } }),
	};
}
