/**
 * `--allow-tools bash,read`: the pi built-in tools a CLI run's `tool()` may call. There is no session here, so no
 * permission hook or prompt: nothing is lent unless the person names it, and then exactly the named tools, built
 * with pi's own tool factories in the run's directory.
 */
import { usageError } from "./args.ts";

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
