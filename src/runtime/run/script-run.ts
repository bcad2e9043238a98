/**
 * Runs one parsed script body (top-level or nested) in its own sandbox with the workflow globals, and turns what
 * the sandbox reports into a value or a coded `WorkflowError` positioned in the author's file; and ends a script,
 * saying what it left running.
 */
import { CATCHABLE_CODES, limitError, WorkflowError, type WorkflowErrorCode } from "../../errors.ts";
import type { GuestError, SandboxValue } from "../../sandbox/index.ts";
import { emitLog } from "../core/run-context.ts";
import type { JsonValue, WorkflowCutOff } from "../core/types.ts";
import type { ParsedWorkflow } from "../meta/read.ts";
import { hintFor } from "./error-hints.ts";
import { createHostFunctions, guestPrelude } from "./globals.ts";
import { plainDataFix, returnPosition } from "./return-sites.ts";
import type { WholeScope } from "./scope.ts";

/** Read from the guest files on the first run rather than at import (the core entry's import reads no file). */
let prelude: string | undefined;

export type ScriptOutcome = { ok: true; value: JsonValue } | { ok: false; error: WorkflowError };

/** Runs `parsed.body` with `args`; resolves, never rejects. */
export async function runScriptBody(
	scope: WholeScope,
	parsed: ParsedWorkflow,
	args: JsonValue | undefined,
): Promise<ScriptOutcome> {
	const sandbox = scope.run.newSandbox();
	try {
		prelude ??= guestPrelude();
		const outcome = await sandbox.run({
			prelude,
			body: parsed.body,
			filename: scope.filename,
			data: {
				maxItems: scope.run.limits.maxItems,
				// 0: no host question before a large `parallel()`/`pipeline()`.
				fanOutAbove: scope.run.fanOut.threshold,
				cwd: scope.run.host.cwd,
				hasArgs: args !== undefined,
				args: (args ?? null) as SandboxValue,
			},
			hostFunctions: createHostFunctions(scope),
			signal: scope.life.signal,
		});
		if (outcome.ok) return { ok: true, value: outcome.value as JsonValue };
		return { ok: false, error: fromGuestError(outcome.error, scope, parsed.body) };
	} finally {
		await sandbox.dispose();
	}
}

/** Maps a sandbox failure to the error the user sees: which limit, its value, how to raise it, and where. */
export function fromGuestError(error: GuestError, scope: WholeScope, body = ""): WorkflowError {
	const { limits } = scope.run;
	const location =
		error.line !== undefined && error.column !== undefined ? { line: error.line, column: error.column } : undefined;
	const stack = error.stack ? { scriptStack: error.stack } : {};
	switch (error.kind) {
		case "thrown": {
			const code =
				typeof error.props?.code === "string" && CATCHABLE_CODES.has(error.props.code)
					? (error.props.code as WorkflowErrorCode)
					: undefined;
			if (code) {
				const details = error.props?.details;
				return new WorkflowError(code, error.message, {
					location,
					...stack,
					...(details && typeof details === "object" && !Array.isArray(details) ? { details } : {}),
				});
			}
			const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
			const hint = hintFor(error, scope.run.census, body, scope.filename);
			// What the script threw, as its author wrote it: the engine's "Uncaught " says nothing a reader needs.
			const thrown = `${name}${error.message}` || error.name || "Error";
			return new WorkflowError("script_error", hint ? `${hint} (${thrown})` : thrown, { location, ...stack });
		}
		case "syntax":
			return new WorkflowError("syntax_error", error.message, { location });
		case "limit_memory":
			return limitError(
				"limit_memory",
				"The script ran out of memory",
				mib(limits.memoryBytes),
				"Use less memory or raise `limits.memoryBytes`",
				location,
			);
		case "limit_stack":
			return limitError(
				"limit_stack",
				"The script overflowed its stack (too deep recursion or nesting)",
				mib(limits.stackBytes),
				"Nest less deeply or raise `limits.stackBytes`",
				location,
			);
		case "limit_cpu":
			return limitError(
				"limit_cpu",
				"The script ran without pausing for too long (a loop that never awaits?)",
				`${limits.syncSliceMs} ms`,
				// Only a host call ends a stretch: `await null` resolves inside the engine, so it would not help.
				"Pause between heavy steps with `await sleep(0)` (`await null` does not end the stretch), or raise `limits.syncSliceMs`",
				location,
			);
		case "limit_value_size":
			if (isResult(error.path)) {
				const { location: at, note } = returnPosition(body);
				return limitError(
					"limit_value_size",
					`The script's return value is too large to cross the sandbox boundary${note}`,
					`${limits.maxValueBytes} bytes`,
					"Return less (a summary, or only the fields needed), or raise `limits.maxValueBytes`",
					at,
				);
			}
			return limitError(
				"limit_value_size",
				`\`${error.path ?? "a value"}\` is too large to cross the sandbox boundary`,
				`${limits.maxValueBytes} bytes`,
				"Pass less data or raise `limits.maxValueBytes`",
				location,
			);
		case "not_awaited":
		case "value_not_json":
			if (isResult(error.path)) return returnValueError(error, body);
			return new WorkflowError(error.kind, error.message, {
				location,
				...(error.path ? { details: { path: error.path } } : {}),
			});
		case "unsettled":
			return new WorkflowError(
				"unsettled",
				"The script is waiting for a promise that nothing can settle (no agent, sleep or host call is pending). Await only promises that agent(), parallel(), pipeline(), sleep() or workflow() return",
				{ location, ...stack },
			);
		case "cancelled": {
			// The run's cancel or deadline, or (for a nested workflow) its parent returning.
			const reason = scope.life.signal.reason;
			return reason instanceof WorkflowError ? reason : new WorkflowError("cancelled", "The workflow was cancelled");
		}
		case "corrupt":
			return new WorkflowError(
				"sandbox_corrupt",
				`The script's sandbox sent the host a malformed message (${error.message}), so the run was stopped and its worker ended. The script corrupted its engine's memory, or the engine has a bug: do not trust this script's output, and report it with the script`,
			);
		default:
			return new WorkflowError("internal", `Sandbox failure: ${error.message}`, { location, ...stack });
	}
}

function isResult(path: string | undefined): boolean {
	return path === "result" || path?.startsWith("result.") === true || path?.startsWith("result[") === true;
}

/** The returned value is not plain data: at the `return`, with how to make this kind of value data. */
function returnValueError(error: GuestError, body: string): WorkflowError {
	const { location, note } = returnPosition(body);
	const path = error.path as string;
	const found = error.found ?? "not plain data";
	const fix = plainDataFix(error.found);
	return new WorkflowError(
		error.kind === "not_awaited" ? "not_awaited" : "value_not_json",
		`\`${path}\` is ${found}, but the script's return value must be plain JSON data${note}: ${fix}`,
		{ ...(location ? { location } : {}), details: { path, ...(error.found ? { found: error.found } : {}) } },
	);
}

function mib(bytes: number): string {
	return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB` : `${bytes} bytes`;
}

/**
 * Ends `scope`'s script: stops what it left running and, when there was some, records it in the run's `cutOff` and
 * logs a warning that names each piece and where it was started. Returns what it stopped.
 */
export function endScript(scope: WholeScope, ended: "returned" | "failed" = "returned"): WorkflowCutOff[] {
	const cut = scope.life.end();
	if (cut.length === 0) return cut;
	const { run } = scope;
	run.cutOff.push(...cut);
	const who = scope.workflowName ? `Nested workflow \`${scope.workflowName}\`` : "The script";
	const list = cut.map(describe).join(", ");
	emitLog(run, {
		level: "warn",
		message: `${who} ${ended} while ${cut.length} call(s) it started were still running; they were stopped: ${list}. Await them to use their results`,
		data: { cutOff: cut.map((entry) => ({ ...entry })) as unknown as JsonValue },
	});
	return cut;
}

/** Entries shown in a message; the rest are counted (all of them are in `cutOff`). */
const SHOWN = 5;

/**
 * A script that returned while work it started was still running: its results were dropped, so the run fails
 * rather than complete with less than the script meant, at the first launch in the script's own file.
 */
export function unawaitedWorkError(scope: WholeScope, cut: WorkflowCutOff[]): WorkflowError {
	// A nested workflow's error is wrapped in one that names it, so "the script" is enough here.
	const shown = cut.slice(0, SHOWN).map(describe).join(", ");
	const more = cut.length > SHOWN ? ` and ${cut.length - SHOWN} more` : "";
	const first = cut.find((entry) => entry.filename === scope.filename && entry.line !== undefined);
	return new WorkflowError(
		"not_awaited",
		`The script returned while ${cut.length} call(s) it started were still running, so their results were lost: ${shown}${more}. Await every call before returning: \`await agent(…)\`, or collect the promises and \`await Promise.all(promises)\`; a function that makes calls returns a promise too, so await it (\`await main()\`); \`forEach(async …)\` does not wait, so use \`for (const x of list) await …\` or \`await parallel(list.map((x) => () => agent(…)))\``,
		{
			...(first?.line !== undefined && first.column !== undefined
				? { location: { line: first.line, column: first.column } }
				: {}),
			details: { cutOff: cut.map((entry) => ({ ...entry })) },
		},
	);
}

function describe(entry: WorkflowCutOff): string {
	const where = entry.line !== undefined ? ` (${entry.line}:${entry.column})` : "";
	const inside = entry.workflow ? ` in \`${entry.workflow}\`` : "";
	return `${entry.kind} \`${entry.name}\`${inside}${where}`;
}
