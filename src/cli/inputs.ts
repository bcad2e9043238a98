/**
 * What `run`, `resume` and `check` read from the command line: the script (a file, or the `meta.name` of a saved
 * workflow as the tool finds it) and the `--args` JSON (inline or `@file`), and pi's agent directory.
 */
import { dirname, resolve } from "node:path";
import { errorMessage } from "../errors.ts";
import { readInputFile } from "../host/input-file.ts";
import { type ResolvedScript, resolveScriptSource } from "../host/script-source.ts";
import { defaultRunsRoot } from "../runs/index.ts";
import type { JsonValue } from "../runtime/core/types.ts";
import { usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

/** A script to run or check. */
export interface CliScript {
	source: string;
	filename: string;
	/** Where it came from, by trust (`ResolvedScript.tier`). */
	tier?: ResolvedScript["tier"];
}

/** pi's agent directory (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`): the run store's root is its `workflow-runs`. */
export function agentDirOf(env: NodeJS.ProcessEnv): string {
	return dirname(defaultRunsRoot(env));
}

/**
 * `target` as a file when it looks like a path (`.js`, or a `/`), else as a saved workflow's name
 * (`.pi/workflows/*.js`, then `<agentDir>/workflows/*.js`). Throws `workflow_not_found` saying where it looked;
 * each saved workflow file skipped on the way (a FIFO, a device, a bad header) is a warning on stderr. Workflows of
 * the project's pi packages are found with `projectTrusted` (`run --approve`: the CLI has no pi session to ask).
 */
export function readScript(
	target: string,
	ctx: Pick<CliContext, "cwd" | "agentDir" | "stderr">,
	projectTrusted = false,
): CliScript {
	const isPath = target.endsWith(".js") || target.includes("/") || target.includes("\\");
	const { source, filename, tier } = resolveScriptSource(isPath ? { path: target } : { name: target }, {
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		projectTrusted,
		warn: (warning) => ctx.stderr.write(`Warning: ${warning}\n`),
	});
	return { source, filename, ...(tier !== undefined ? { tier } : {}) };
}

/** `--args`: inline JSON, or `@path` to a JSON file (relative to `cwd`). */
export function readArgs(text: string, cwd: string): JsonValue {
	return readJsonFlag("args", text, cwd, `--args '{"files":["a.ts"]}', or --args @args.json`);
}

/** `--case` of `blame`: the eval case the grader gets (`expect`, …), a JSON object inline or `@file`. */
export function readCase(text: string, cwd: string): Record<string, JsonValue> {
	const value = readJsonFlag("case", text, cwd, `--case '{"expect":"W0"}', or --case @case.json`);
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		throw usageError(
			`--case takes a JSON object (an eval file's case: id, args, expect), got ${JSON.stringify(value)}`,
		);
	}
	return value;
}

/** `--answers` of a dry run: a JSON object (question text → answer) or array (answers in order), inline or `@file`. */
export function readAnswers(text: string, cwd: string): Record<string, string> | string[] {
	const value = readJsonFlag("answers", text, cwd, `--answers '{"Merge now?":"yes"}', or --answers '["yes","no"]'`);
	const isText = (answer: unknown) => typeof answer === "string";
	const ok = Array.isArray(value)
		? value.every(isText)
		: value !== null && typeof value === "object" && Object.values(value).every(isText);
	if (!ok) {
		throw usageError(
			`--answers must be an object of question → answer or an array of answers, every answer a string; got ${JSON.stringify(value).slice(0, 80)}`,
		);
	}
	return value as Record<string, string> | string[];
}

/**
 * A flag's JSON: inline, or `@path` to a JSON file (relative to `cwd`): a regular file of at most 8 MiB, never a
 * device or a FIFO; `example` shows the right form.
 */
function readJsonFlag(flag: string, text: string, cwd: string, example: string): JsonValue {
	let json = text;
	if (text.startsWith("@")) {
		const path = resolve(cwd, text.slice(1));
		const read = readInputFile(path);
		if (!read.ok) {
			throw usageError(
				read.problem === "unreadable"
					? `--${flag} ${text}: cannot read ${path} (${read.reason}). Name a JSON file that exists`
					: `--${flag} ${text}: cannot read ${path}: ${read.reason}. Name a regular JSON file of at most 8 MiB`,
			);
		}
		json = read.text;
	}
	try {
		return JSON.parse(json) as JsonValue;
	} catch (error) {
		const where = text.startsWith("@") ? ` in ${text.slice(1)}` : "";
		throw usageError(`--${flag} is not JSON${where} (${errorMessage(error)}). Pass a JSON value, e.g. ${example}`);
	}
}
