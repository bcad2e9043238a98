/**
 * `isolation: "worktree"` for the pi runner: the run's worktree set (made at the first isolated call, once the run
 * knows its id and folder), the note that tells the child where it works, and what its result and reports say of
 * the worktree once the child is done.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage, WorkflowError } from "../errors.ts";
import { newRunId } from "../runs/index.ts";
import type { WorkflowAgentResult, WorkflowWorktree } from "../runtime/core/types.ts";
import { createRunWorktrees, type RunWorktrees, type Worktree, type WorktreeOutcome } from "../worktree/index.ts";

/** Where a run keeps its isolated children's worktrees. */
export interface WorktreePlace {
	/** Names the branches: `workflows/<runId>/<label-slug>`. */
	runId: string;
	/** The run's folder for worktrees, outside the repository. */
	dir: string;
}

/** How the runner finds its run's place; undefined (no run record) falls back to a fresh id and a temp folder. */
export type WorktreePlaceSource = () => Promise<WorktreePlace | undefined>;

/** Files a report lists; the count says how many there were. */
const LISTED_FILES = 100;

/** The worktree set of one runner (one run), made at its first isolated call. */
export function lazyRunWorktrees(place: WorktreePlaceSource | undefined): () => Promise<RunWorktrees> {
	let made: Promise<RunWorktrees> | undefined;
	return () => {
		made ??= (async () => {
			const known = await place?.();
			// A host without a run store still gets isolation: a private folder (mkdtemp makes it 0700) and an id of its own.
			const resolved = known ?? {
				runId: newRunId(),
				dir: await mkdtemp(join(tmpdir(), "pi-workflows-worktrees-")),
			};
			return createRunWorktrees({ runId: resolved.runId, dir: resolved.dir });
		})();
		// A place that failed once (a temp dir that cannot be made) is tried again by the next call.
		made.catch(() => {
			made = undefined;
		});
		return made;
	};
}

/** The child's task, after a note on where it works and what happens to its edits. */
export function isolatedPrompt(prompt: string, worktree: Worktree): string {
	const note = [
		`You are working in an isolated git worktree at ${worktree.cwd}, on branch \`${worktree.branch}\`, made from commit ${worktree.base.slice(0, 12)} (the repository's HEAD; uncommitted changes in the main working tree are not here).`,
		`Your edits stay in this worktree and do not touch the main working tree at ${worktree.repo}; when you finish, everything you changed is committed on \`${worktree.branch}\` for the caller to merge. Work only inside ${worktree.path}.`,
	].join(" ");
	return `${note}\n\n${prompt}`;
}

/** What an isolated child going on after an interruption is told of its reopened worktree. */
export function sameWorktreeNote(worktree: Worktree): string {
	if (worktree.reopened === "remade") {
		return `Your isolated git worktree was made again at ${worktree.cwd} on branch \`${worktree.branch}\`, from the repository's HEAD: your interrupted attempt left no change to keep. If you had changed files, do it again.`;
	}
	return `You are in the same isolated git worktree as before, at ${worktree.cwd} on branch \`${worktree.branch}\`: the changes of your finished turns are there. Changes of the interrupted turn may be there too, whole or in part (a tool may have stopped halfway): check the files you were changing before you go on.`;
}

/** What a report says of a worktree: where it is, and once closed, whether its branch was kept and with which files. */
export function worktreeReport(worktree: Worktree, outcome?: WorktreeOutcome): WorkflowWorktree {
	const report: WorkflowWorktree = { path: worktree.path, branch: worktree.branch };
	if (!outcome) return report;
	if (!outcome.kept) return { ...report, kept: false };
	return {
		...report,
		kept: true,
		files: outcome.files.slice(0, LISTED_FILES),
		fileCount: outcome.files.length,
		commit: outcome.commit,
	};
}

/** A child that could not get its worktree: it fails before it starts, with the code and what to do. */
export function worktreeOpenFailure(error: unknown): Pick<WorkflowAgentResult, "status" | "error" | "code"> {
	return {
		status: "failed",
		error: `isolation "worktree": ${errorMessage(error)}`,
		...(error instanceof WorkflowError ? { code: error.code } : {}),
	};
}

/**
 * The child's result once its worktree is closed: the worktree report on it; a child whose changes could not be
 * committed failed (its answer is not what the caller asked for without them), unless it was stopped anyway.
 */
export async function closeWorktree(worktree: Worktree, result: WorkflowAgentResult): Promise<WorkflowAgentResult> {
	try {
		const outcome = await worktree.close();
		return { ...result, worktree: worktreeReport(worktree, outcome) };
	} catch (error) {
		const reported = { ...result, worktree: worktreeReport(worktree) };
		const cause = `isolation "worktree": ${errorMessage(error)}`;
		const code = error instanceof WorkflowError ? { code: error.code } : {};
		if (result.status === "completed") return { ...reported, status: "failed", error: cause, ...code };
		return { ...reported, warnings: [...(result.warnings ?? []), cause] };
	}
}
