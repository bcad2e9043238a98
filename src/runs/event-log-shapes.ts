/**
 * The fields a reader of the event log relies on, checked per line type before any reader sees the line: the
 * ledger's lines (`child_tool`, `child_worktree`, the script's `tool_finished`/`tool_failed`, `run_start`'s script
 * hash, the slow marks `call_slow`/`run_slow`). A line a hand or a tool tampered with (`"files":[null]`, `"stat":{"toString":1}`) is skipped and named
 * with its line number, as a bad journal line is, rather than failing the view that reads it.
 */

type Line = Record<string, unknown>;

/** Why the line's fields are not what its type says, or undefined when they are (or the type has no rules here). */
export function lineShapeProblem(line: Line): string | undefined {
	switch (line.type) {
		case "child_tool":
			return (
				callProblem(line) ??
				fieldProblem(line, "tool", "string", true) ??
				entryProblem(line) ??
				fieldProblem(line, "attempt", "number")
			);
		case "child_worktree":
			return (
				callProblem(line) ??
				fieldProblem(line, "branch", "string", true) ??
				fieldProblem(line, "commit", "string", true) ??
				fieldProblem(line, "stat", "string", true) ??
				filesProblem(line.files)
			);
		case "tool_finished":
		case "tool_failed":
			return fieldProblem(line, "name", "string", true) ?? entryProblem(line);
		case "run_start":
			return fieldProblem(line, "scriptSha256", "string");
		case "call_slow":
			return callProblem(line) ?? slowProblem(line);
		case "run_slow":
			return slowProblem(line);
		default:
			return undefined;
	}
}

/** The call a child's line names. */
function callProblem(line: Line): string | undefined {
	return fieldProblem(line, "index", "number", true) ?? fieldProblem(line, "label", "string", true);
}

/** A slow mark's two durations. */
function slowProblem(line: Line): string | undefined {
	return fieldProblem(line, "elapsedMs", "number", true) ?? fieldProblem(line, "usualMs", "number", true);
}

/** What one tool run reports: its file, command, counts and outcome. */
function entryProblem(line: Line): string | undefined {
	for (const field of ["path", "command"]) {
		const problem = fieldProblem(line, field, "string");
		if (problem) return problem;
	}
	for (const field of ["added", "removed", "exitCode", "durationMs"]) {
		const problem = fieldProblem(line, field, "number");
		if (problem) return problem;
	}
	return fieldProblem(line, "isError", "boolean");
}

function filesProblem(files: unknown): string | undefined {
	if (files === undefined) return undefined;
	if (!Array.isArray(files)) return "`files` is not a list";
	for (const [i, file] of files.entries()) {
		if (typeof file !== "object" || file === null || typeof (file as Line).path !== "string")
			return `\`files[${i}]\` is not an object with a string \`path\``;
		const counts = fieldProblem(file as Line, "added", "number") ?? fieldProblem(file as Line, "removed", "number");
		if (counts) return `\`files[${i}]\`: ${counts}`;
	}
	return undefined;
}

/** `field` of `line` is of `type` (a finite number for "number"), or absent unless `required`. */
function fieldProblem(
	line: Line,
	field: string,
	type: "string" | "number" | "boolean",
	required = false,
): string | undefined {
	const value = line[field];
	if (value === undefined) return required ? `\`${field}\` is missing` : undefined;
	const ok = type === "number" ? typeof value === "number" && Number.isFinite(value) : typeof value === type;
	return ok ? undefined : `\`${field}\` is not a ${type}`;
}
