/**
 * Where records live: `<agentDir>/workflow-runs/<project>/`, next to pi's sessions, computed the way pi computes its
 * agent dir (without importing pi). A project's folder is a readable slug of its real path plus a short hash, so two
 * projects never share one and odd characters in a path stay out of file names.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The longest slug kept before the hash; the tail of a path names a project best. */
const SLUG_MAX = 48;

/** `<agentDir>/workflow-runs`, agentDir being `$PI_CODING_AGENT_DIR` (tilde-expanded) or `~/.pi/agent`. */
export function defaultRunsRoot(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
	const agentDir = env.PI_CODING_AGENT_DIR;
	return join(agentDir ? resolve(expandTilde(agentDir, home)) : join(home, ".pi", "agent"), "workflow-runs");
}

/** The folder name of a project: `work-wt-app-3fa9c2d1e0`. */
export function projectFolderName(realCwd: string): string {
	const hash = createHash("sha256").update(realCwd).digest("hex").slice(0, 10);
	const slug = realCwd
		.replace(/[^A-Za-z0-9._-]+/g, "-")
		.replace(/-{2,}/g, "-")
		.slice(-SLUG_MAX)
		.replace(/^[-.]+|-+$/g, "");
	return `${slug || "root"}-${hash}`;
}

function expandTilde(path: string, home: string): string {
	if (path === "~") return home;
	if (path.startsWith("~/")) return join(home, path.slice(2));
	return path;
}
