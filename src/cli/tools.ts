/**
 * `--allow-tools bash,read`: the pi built-in tools a CLI run's `tool()` may call. There is no session here, so no
 * permission hook or prompt: nothing is lent unless the person names it, and then exactly the named tools, built
 * with pi's own tool factories in the run's directory.
 */
import { type GrantedScript, WorkflowGrants } from "../host/grants.ts";
import { visibleText } from "../progress/visible-text.ts";
import { usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

/** The built-ins `--allow-tools` can name. */
export const CLI_TOOL_NAMES: readonly string[] = ["bash", "read", "grep", "find", "ls", "edit", "write"];

/** The names given to `--allow-tools` (comma-separated, repeatable), checked; empty when none. */
export function allowedTools(values: readonly string[]): string[] {
	const names = values
		.flatMap((value) => value.split(","))
		.map((name) => name.trim())
		.filter((name) => name !== "");
	for (const name of names) {
		if (!CLI_TOOL_NAMES.includes(name)) {
			throw usageError(
				`--allow-tools ${name}: not one of pi's built-in tools the command line can lend (${CLI_TOOL_NAMES.join(", ")})`,
			);
		}
	}
	if (values.length > 0 && names.length === 0) throw usageError("--allow-tools needs tool names, like bash,read");
	return [...new Set(names)];
}

/**
 * The tools a run lends. A file outside the saved folders (tier inline): exactly those `--allow-tools` names, never
 * a grant. A saved workflow: those it names, granted now to this version of its script, and those granted to this
 * version before; an earlier version's grant is not lent, and stderr says what changed and how to grant it again.
 * `projectTrusted`: pi's trust in the project, decided once pi is loaded (an untrusted project's grants are not read).
 */
export function grantedCliTools(
	source: GrantedScript,
	allowTools: readonly string[],
	ctx: Pick<CliContext, "cwd" | "agentDir" | "stderr"> & { projectTrusted: boolean },
): string[] {
	const grants = WorkflowGrants.of(source, ctx);
	if (!grants) return [...allowTools];
	const changed = grants.changedSince();
	const before = changed ? (grants.stored()?.tools ?? []) : [];
	if (allowTools.length > 0) grants.grant(allowTools);
	const lent = grants.tools();
	const withheld = before.filter((tool) => !lent.includes(tool));
	if (changed && withheld.length > 0) {
		const calls = withheld.map((tool) => `tool(${JSON.stringify(tool)})`).join(", ");
		ctx.stderr.write(
			visibleText(
				`Note: ${grants.describe()} changed since sha256 ${changed.sha256.slice(0, 12)} was granted ${calls}; not lent until granted again:\n${changed.diff}\nGrant this version with --allow-tools ${withheld.join(",")}\n`,
			),
		);
	}
	return lent;
}
