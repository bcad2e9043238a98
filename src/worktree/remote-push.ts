/**
 * Pushing a remote child's commit as `workflows/<runId>/<label-slug>`: a name free on the remote (children of one run
 * on other workers push there too), pushed only if it is still free (a lease on "does not exist"), the next name when
 * another worker took it meanwhile; when the remote refuses or cannot be reached, the commit stays in the clone.
 */
import { errorMessage } from "../errors.ts";
import { GitFailure, runGit } from "./git.ts";
import { gitSaid } from "./git-errors.ts";
import { branchPrefix, firstFree } from "./naming.ts";
import { local, network, type RemoteClone, type RemoteCloneOptions } from "./remote-clone.ts";
import { inRepoQueue } from "./repo-queue.ts";

/** What became of a push. */
export type PushOutcome =
	| { pushed: true; branch: string }
	| {
			pushed: false;
			/** The name it was pushed as, and is kept as in the clone. */
			branch: string;
			/** Why, with git's or the remote's own words, and where the commit is kept. */
			error: string;
	  };

/** Branch names pushes of this process are trying: two children of one label on one worker do not race for one name. */
const inFlight = new Set<string>();

/** A push that lost the name to another worker tries the next one, this many times. */
const NAME_ATTEMPTS = 5;

/** Pushes `tip` to the clone's remote as the first free `workflows/<runId>/<slug>[-n]`. Never throws for git. */
export async function pushBranch(
	clone: RemoteClone,
	plan: { tip: string; runId: string; slug: string },
	options: RemoteCloneOptions,
): Promise<PushOutcome> {
	const prefix = branchPrefix(plan.runId);
	const taken = new Set<string>();
	let branch = `${prefix}${plan.slug}`;
	try {
		for (const name of await remoteNames(clone, prefix, options)) taken.add(name);
		for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
			const slug = await firstFree(
				plan.slug,
				async (candidate) =>
					taken.has(candidate) ||
					inFlight.has(`${clone.url}\0${prefix}${candidate}`) ||
					(await keptLocally(clone, `${prefix}${candidate}`, options)),
			);
			branch = `${prefix}${slug}`;
			const key = `${clone.url}\0${branch}`;
			inFlight.add(key);
			const outcome = await pushAs(clone, plan.tip, branch, options).finally(() => inFlight.delete(key));
			if (outcome === "pushed") return { pushed: true, branch };
			taken.add(slug);
		}
		return await keepLocally(
			clone,
			plan.tip,
			branch,
			`${NAME_ATTEMPTS} names were taken on the remote one after another while pushing`,
			options,
		);
	} catch (error) {
		return keepLocally(clone, plan.tip, branch, pushCause(error), options);
	}
}

/** The slugs of the run's branches on the remote. */
async function remoteNames(clone: RemoteClone, prefix: string, options: RemoteCloneOptions): Promise<string[]> {
	const out = (await runGit(["ls-remote", "--heads", "origin", `refs/heads/${prefix}*`], network(options, clone)))
		.stdout;
	const names: string[] = [];
	for (const line of out.split("\n")) {
		const ref = line.split("\t")[1] ?? "";
		if (ref.startsWith(`refs/heads/${prefix}`)) names.push(ref.slice(`refs/heads/${prefix}`.length));
	}
	return names;
}

/** The remote has `ref` now. */
async function onRemote(clone: RemoteClone, ref: string, options: RemoteCloneOptions): Promise<boolean> {
	const out = (await runGit(["ls-remote", "origin", ref], network(options, clone))).stdout;
	return out.split("\n").some((line) => line.split("\t")[1] === ref);
}

/** A branch an earlier push that failed left in the clone: its name stays reserved for its retry. */
async function keptLocally(clone: RemoteClone, branch: string, options: RemoteCloneOptions): Promise<boolean> {
	return runGit(["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], local(options, clone.path)).then(
		() => true,
		() => false,
	);
}

/** "taken" when the name exists on the remote; throws git's failure when the push failed otherwise. */
async function pushAs(
	clone: RemoteClone,
	tip: string,
	branch: string,
	options: RemoteCloneOptions,
): Promise<"pushed" | "taken"> {
	const ref = `refs/heads/${branch}`;
	try {
		// An empty lease: the ref must not exist yet, so a same-named branch another worker pushed is never replaced.
		await runGit(
			["push", "--porcelain", `--force-with-lease=${ref}:`, "origin", `${tip}:${ref}`],
			network(options, clone),
		);
		return "pushed";
	} catch (error) {
		if (!(error instanceof GitFailure) || error.timedOut) throw error;
		// Porcelain lines: "!\t<src>:<dst>\t[rejected] (stale info)" or "[remote rejected] (pre-receive hook declined)".
		const line = /^!\t[^\t]*\t(.*)$/m.exec(error.stdout)?.[1];
		if (line && /^\[rejected\] \((stale info|fetch first|non-fast-forward|already exists)\)/.test(line)) {
			return "taken";
		}
		// Refused on the remote's side (its ref lock, a hook): the name is taken only if it is there now.
		if (await onRemote(clone, ref, options).catch(() => false)) return "taken";
		throw error;
	}
}

/** The cause of a failed push in git's and the remote's words: the remote's own lines (a hook's message) first. */
function pushCause(error: unknown): string {
	if (!(error instanceof GitFailure)) return errorMessage(error);
	if (error.timedOut) return error.message;
	const remote = error.stderr
		.split("\n")
		.filter((line) => line.startsWith("remote: "))
		.map((line) => line.slice("remote: ".length).trim())
		.filter(Boolean);
	const rejected = /^!\t[^\t]*\t\[[^\]]*\] \((.*)\)$/m.exec(error.stdout)?.[1];
	const said = [...remote, rejected ?? gitSaid(error.stderr)].filter(Boolean);
	return said.join("; ") || error.message;
}

/** The commit as a branch of the clone, so a retry can push it; the outcome says where it is and how. */
async function keepLocally(
	clone: RemoteClone,
	tip: string,
	branch: string,
	cause: string,
	options: RemoteCloneOptions,
): Promise<PushOutcome> {
	const kept = await inRepoQueue(clone.path, () =>
		runGit(["update-ref", `refs/heads/${branch}`, tip], local(options, clone.path)),
	).then(
		() => true,
		() => false,
	);
	const where = kept
		? `The commit ${tip.slice(0, 12)} is kept in the worker's clone ${clone.path} as branch \`${branch}\`: push it from there (\`git -C ${clone.path} push origin ${branch}\`) once the remote takes it`
		: `The commit ${tip.slice(0, 12)} could not be kept as a branch of the worker's clone ${clone.path} either: it stays there as an unnamed commit until git's garbage collection (\`git -C ${clone.path} push origin ${tip}:refs/heads/${branch}\`)`;
	return {
		pushed: false,
		branch,
		error: `Could not push branch \`${branch}\` to ${clone.url}: ${cause}. ${where}.`,
	};
}
