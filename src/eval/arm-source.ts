/**
 * An arm's script: a file beside the eval file or a saved workflow's name (as `pi-workflows run` finds it), and with
 * `rev`, the file as that git revision has it, so "my edit against main" needs no copy of the old script.
 */
import { execFileSync } from "node:child_process";
import { basename, dirname, resolve } from "node:path";
import { errorMessage } from "../errors.ts";
import { resolveScriptSource } from "../host/script-source.ts";
import { evalFileError } from "./file.ts";
import type { EvalArm, EvalSpec, ScriptFile } from "./spec.ts";

/** Where saved workflows are looked for, and where a skipped one is reported. */
export interface ArmSourcePlaces {
	cwd: string;
	agentDir: string;
	warn?: (warning: string) => void;
}

/** How long one `git show` may take before the eval gives up on it. */
const GIT_TIMEOUT_MS = 30_000;

/** Each arm's script, read once before any trial starts (a missing file fails the eval before it spends). */
export function readArmScripts(spec: EvalSpec, places: ArmSourcePlaces): Record<string, ScriptFile> {
	return Object.fromEntries(
		Object.entries(spec.arms).map(([name, arm]) => [name, readArmScript(spec, name, arm, places)]),
	);
}

/** The grader's script, a path relative to the eval file; absent when the file names none. */
export function readGraderScript(spec: EvalSpec, places: ArmSourcePlaces): ScriptFile | undefined {
	if (spec.grader === undefined) return undefined;
	return readArmScript(spec, "grader", { workflow: resolve(dirname(spec.file), spec.grader) }, places);
}

function readArmScript(spec: EvalSpec, name: string, arm: EvalArm, places: ArmSourcePlaces): ScriptFile {
	const isPath = arm.workflow.endsWith(".js") || arm.workflow.includes("/") || arm.workflow.includes("\\");
	if (arm.rev !== undefined) {
		if (!isPath) {
			throw evalFileError(
				spec.file,
				`arm ${name}: "rev" reads a file from git, and "${arm.workflow}" is a saved workflow's name. Give the script's path instead`,
			);
		}
		return readAtRevision(resolve(dirname(spec.file), arm.workflow), arm.rev, spec.file, name);
	}
	const found = resolveScriptSource(
		isPath ? { path: resolve(dirname(spec.file), arm.workflow) } : { name: arm.workflow },
		{
			cwd: places.cwd,
			agentDir: places.agentDir,
			...(places.warn ? { warn: places.warn } : {}),
		},
	);
	return { source: found.source, filename: found.filename };
}

/** `git show <rev>:./<file>` in the file's folder: no shell, no prompt, a deadline. */
function readAtRevision(path: string, rev: string, evalFile: string, arm: string): ScriptFile {
	if (rev.startsWith("-") || rev.includes(":")) {
		throw evalFileError(
			evalFile,
			`arm ${arm}: "rev" ${JSON.stringify(rev)} is not a revision. Write a commit, a branch or a tag such as "HEAD~1"`,
		);
	}
	try {
		const source = execFileSync("git", ["show", `${rev}:./${basename(path)}`], {
			cwd: dirname(path),
			encoding: "utf8",
			timeout: GIT_TIMEOUT_MS,
			stdio: ["ignore", "pipe", "pipe"],
			env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
		});
		return { source, filename: `${path}@${rev}` };
	} catch (error) {
		const stderr = String((error as { stderr?: unknown }).stderr ?? "")
			.trim()
			.split("\n")[0];
		throw evalFileError(
			evalFile,
			`arm ${arm}: cannot read ${path} at revision "${rev}" (${stderr || errorMessage(error)}). Check that the file is committed there and that "rev" names a commit of its repository`,
		);
	}
}
