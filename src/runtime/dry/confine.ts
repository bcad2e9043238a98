/**
 * What a dry run's read-only tools may reach: the project's folder and nothing else. A dry run runs in CI, where its
 * plan is public, and a script can print what it read (through `phase()`, a warning, a thrown error): so a path
 * outside the project, a link out of it, `~/.ssh` or `/proc/self/environ` is refused, whatever the host lends.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { toolRefusedError } from "../../errors.ts";
import type { WorkflowTool } from "../core/types.ts";

/** The spaces pi's tools read as plain ones in a path. */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * `tool` with its `path` parameter checked: resolved as pi's tools resolve it (a leading `@` dropped, `~` for the
 * home folder, relative to `cwd`), links followed, and handed on as that real path only when it is inside `cwd`'s
 * real folder. No `path` means the project itself.
 */
export function confinedTool(name: string, tool: WorkflowTool, cwd: string): WorkflowTool {
	return (params, signal) => {
		const given = (params as { path?: unknown } | null)?.path;
		// No path: the tool's own folder, the project; a path that is no string: the tool's own check refuses it.
		if (typeof given !== "string") return tool(params, signal);
		const real = realInside(cwd, given);
		if (real === undefined) {
			throw toolRefusedError(
				`a dry run's \`${name}\` reads only inside the project (${cwd}); ${JSON.stringify(given)} is outside it, a link out of it, or not there`,
				"Give a path in the project: a dry run's output may be public, so it reads nothing else",
			);
		}
		return tool({ ...(params as Record<string, never>), path: real }, signal);
	};
}

/** The real path of `path` (as pi resolves it against `cwd`) when it exists inside `cwd`'s real folder. */
function realInside(cwd: string, path: string): string | undefined {
	let plain = path.replace(UNICODE_SPACES, " ");
	if (plain.startsWith("@")) plain = plain.slice(1);
	if (plain === "~" || plain.startsWith("~/")) plain = homedir() + plain.slice(1);
	try {
		const root = realpathSync(cwd);
		const real = realpathSync(resolve(cwd, plain));
		const inside = relative(root, real);
		if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return undefined;
		// pi would read a real path with odd spaces as another one: refuse rather than guess.
		return real.replace(UNICODE_SPACES, " ") === real ? real : undefined;
	} catch {
		return undefined;
	}
}
