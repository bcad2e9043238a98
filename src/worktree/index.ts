/** Git worktrees for isolated children: one per child from HEAD, kept as a branch when the child changed something. */

export { type DiffStat, diffStat } from "./commit.ts";
export { type GitOptions, type GitOutput, runGit } from "./git.ts";
export { branchPrefix, labelSlug } from "./naming.ts";
export { prepareClone, type RemoteClone, type RemoteCloneOptions } from "./remote-clone.ts";
export {
	type FetchedBranch,
	type HostGitOptions,
	type HostRemote,
	hostCommitWarnings,
	hostFetchBranch,
	hostRunCommit,
	hostRunHead,
	matchingRemote,
	type RunCommit,
} from "./remote-host.ts";
export { isAlive } from "./remote-sweep.ts";
export {
	type RemoteWorktreeReport,
	type TakenBranch,
	type TakeRemoteBranchOptions,
	takeRemoteBranch,
} from "./remote-take.ts";
export { repositoryName, sameRepository } from "./remote-url.ts";
export {
	openRemoteWorkspace,
	type RemoteWorkspace,
	type RemoteWorkspaceOptions,
	type RemoteWorkspaceResult,
	remoteWorkspaceNote,
} from "./remote-workspace.ts";
export { busyRepos } from "./repo-queue.ts";
export {
	createRunWorktrees,
	type RunWorktrees,
	type RunWorktreesOptions,
	type Worktree,
	type WorktreeOutcome,
} from "./worktrees.ts";
