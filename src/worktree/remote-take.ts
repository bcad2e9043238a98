/**
 * The host's one step after a remote child: what its worker's `finish()` reported becomes, in the host's repository,
 * a kept branch like a local isolated child's (fetched from the remote that is the workers' `--repo`), or a warning
 * saying where the changes are when they cannot be brought over.
 */
import { errorMessage } from "../errors.ts";
import { type HostGitOptions, hostFetchBranch, matchingRemote } from "./remote-host.ts";
import type { RemoteWorkspaceResult } from "./remote-workspace.ts";

/** Files a report lists, as a local child's does; `fileCount` says how many there were. */
const LISTED_FILES = 100;

/** Options of `takeRemoteBranch`. */
export interface TakeRemoteBranchOptions extends HostGitOptions {
	/** What the worker's `RemoteWorkspace.finish()` gave. */
	result: RemoteWorkspaceResult;
	/** The run's commit the child started from (for the list of files). */
	base: string;
	/** The child's worktree folder on its worker, for the report. Default: "". */
	path?: string;
}

/** The report of a child's worktree, in the shape of a local isolated child's (`WorkflowWorktree`). */
export interface RemoteWorktreeReport {
	/** The child's worktree folder on its worker (removed once it ended). */
	path: string;
	/** The branch in the host's repository. */
	branch: string;
	/** Always true: a remote child that changed nothing has no report. */
	kept: true;
	/** Files added, changed or deleted on the branch (the first 100). */
	files: string[];
	/** How many files changed. */
	fileCount: number;
	/** The branch's tip. */
	commit: string;
}

/** What the child's result gets: the report of its kept branch, or a warning saying where its changes are. */
export interface TakenBranch {
	/** Present when the branch is in the host's repository now. */
	worktree?: RemoteWorktreeReport;
	/** Present when the child changed files and they could not be brought to the host's repository. */
	warning?: string;
}

/**
 * Fetches a pushed branch into the host's repository (from its remote whose URL is the worker's, else from the URL
 * itself). Never throws: a child that changed nothing gives `{}`, one whose branch cannot be had gives a warning.
 */
export async function takeRemoteBranch(options: TakeRemoteBranchOptions): Promise<TakenBranch> {
	const { result } = options;
	if (!result.changed || !result.branch || !result.commit) return {};
	if (!result.pushed || !result.remote) {
		return {
			warning: result.error ?? `The child's changes were not pushed from its worker (branch ${result.branch})`,
		};
	}
	try {
		const remote = await matchingRemote({ ...options, repoUrl: result.remote });
		const fetched = await hostFetchBranch({
			...options,
			remote: remote?.name ?? result.remote,
			branch: result.branch,
			commit: result.commit,
			base: options.base,
		});
		const files = fetched.files ?? result.files ?? [];
		return {
			worktree: {
				path: options.path ?? "",
				branch: fetched.branch,
				kept: true,
				files: files.slice(0, LISTED_FILES),
				fileCount: files.length,
				commit: fetched.commit,
			},
		};
	} catch (error) {
		return {
			warning: `The child's changes are on branch \`${result.branch}\` of ${result.remote}, and could not be brought to this repository: ${errorMessage(error)}`,
		};
	}
}
