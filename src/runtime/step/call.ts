/**
 * `tool(name, params, opts)`: a step without an agent. Checks the call, replays a result the journal holds (unless
 * `replay: false`), else runs the host's tool in the run's own small tool queue under the call's timeout and the
 * script's lifetime, cuts its output, journals the result before the script sees it, and reports it like an agent
 * call (events, a `$ command · 1.2s · exit 1` log line, the census).
 */
import { closestName } from "../../authoring/index.ts";
import { errorMessage, isWorkflowError, WorkflowError } from "../../errors.ts";
import { MAX_TIMEOUT_MS } from "../agent/options.ts";
import { firstFrameIn } from "../core/call-site.ts";
import type { ToolRef } from "../core/events.ts";
import { assertJsonValue } from "../core/json.ts";
import { emitLog, type ScriptScope } from "../core/run-context.ts";
import type { JsonValue, WorkflowToolOutput, WorkflowToolResult } from "../core/types.ts";

/** Longest `output` the script gets, in characters: the head and the tail are kept, a marker says what was cut. */
export const MAX_TOOL_OUTPUT_CHARS = 64 * 1024;
/** Largest `details` kept, in bytes of JSON; larger details are dropped (the output still arrives). */
export const MAX_TOOL_DETAILS_BYTES = 64 * 1024;
/** A tool call's timeout when the script gives none: long enough for a test suite, short of forever. */
export const DEFAULT_TOOL_TIMEOUT_MS = 10 * 60 * 1000;
/**
 * Tools a script can never reach, whatever the host lends: the run-control surface would let a run start or steer
 * runs, and pi's `codemode` runs scripts that may call `workflow` itself.
 */
export const RESERVED_TOOLS: readonly string[] = ["workflow", "workflow_runs", "codemode"];

/** The option names `tool()` takes. */
export const TOOL_OPTIONS = ["timeoutMs", "label", "phase", "replay"] as const;

/** `tool()` arguments after checking. */
export interface ToolArguments {
	name: string;
	params: { [key: string]: JsonValue };
	timeoutMs?: number;
	label?: string;
	phase?: string;
	replay: boolean;
}

function invalid(message: string): WorkflowError {
	return new WorkflowError("tool_options_invalid", message);
}

/** Checks `tool(name, params, opts)`; throws `tool_options_invalid` naming what is wrong and what it takes. */
export function checkToolArguments(name: JsonValue, params: JsonValue, options: JsonValue): ToolArguments {
	if (typeof name !== "string" || name.trim() === "") {
		throw invalid(`\`tool()\` takes the tool's name as a non-empty string first, got ${JSON.stringify(name)}`);
	}
	if (params !== null && (typeof params !== "object" || Array.isArray(params))) {
		throw invalid(
			`\`tool(${JSON.stringify(name)}, params)\` takes the tool's parameters as an object like \`{ command: "npm test" }\`, got ${JSON.stringify(params)}`,
		);
	}
	const checked: ToolArguments = { name, params: params ?? {}, replay: true };
	if (options === null) return checked;
	if (typeof options !== "object" || Array.isArray(options)) {
		throw invalid(
			`\`tool()\` options must be an object like \`{ timeoutMs, label, phase, replay }\`, got ${JSON.stringify(options)}`,
		);
	}
	for (const key of Object.keys(options)) {
		if ((TOOL_OPTIONS as readonly string[]).includes(key)) continue;
		const near = closestName(key, TOOL_OPTIONS);
		throw invalid(
			`\`tool()\` has no option \`${key}\`. ${near ? `Did you mean \`${near}\`? ` : ""}It takes ${TOOL_OPTIONS.map((o) => `\`${o}\``).join(", ")}`,
		);
	}
	const { timeoutMs, label, phase, replay } = options;
	if (timeoutMs !== undefined && timeoutMs !== null) {
		if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > MAX_TIMEOUT_MS) {
			throw invalid(
				`\`tool()\` option \`timeoutMs\` must be a positive number of ms up to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(timeoutMs)}`,
			);
		}
		checked.timeoutMs = timeoutMs;
	}
	for (const [key, value] of [
		["label", label],
		["phase", phase],
	] as const) {
		if (value === undefined || value === null) continue;
		if (typeof value !== "string" || value.trim() === "") {
			throw invalid(`\`tool()\` option \`${key}\` must be a non-empty string, got ${JSON.stringify(value)}`);
		}
		checked[key] = value;
	}
	if (replay !== undefined && replay !== null) {
		if (typeof replay !== "boolean") {
			throw invalid(`\`tool()\` option \`replay\` must be true or false, got ${JSON.stringify(replay)}`);
		}
		checked.replay = replay;
	}
	return checked;
}

/** Runs one `tool(name, params, opts)` made at the guest stack `stack`. */
export async function runToolCall(
	scope: ScriptScope,
	rawName: JsonValue,
	rawParams: JsonValue,
	rawOptions: JsonValue,
	stack: string,
): Promise<WorkflowToolResult> {
	const { run } = scope;
	const site = firstFrameIn(stack, scope.filename);
	const where = site ? { location: site } : {};
	const args = checkToolArguments(rawName, rawParams, rawOptions);
	const phase = args.phase ?? scope.phases.current;
	const ref: ToolRef = {
		key: scope.keys.next({ tool: args.name, params: args.params }),
		index: run.indexes.nextTool(),
		name: args.name,
		label: args.label ?? defaultLabel(args.name, args.params),
		...ledgerParams(args.params),
		...(site ?? {}),
		...(phase ? { phase } : {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	};
	const fail = (error: WorkflowError): WorkflowError => {
		run.census.tools.failed++;
		run.emit({ type: "tool_failed", ...ref, error: error.message, code: error.code });
		return error;
	};
	run.census.tools.calls++;
	const host = run.host.tools;
	if (!host) {
		throw fail(
			new WorkflowError(
				"tool_unavailable",
				`\`tool(${JSON.stringify(args.name)})\`: the host running this workflow lends no tools (no \`tools\` option). In pi, run it with the \`workflow\` tool; on the command line, name the tools with \`--allow-tools ${args.name}\``,
				{ ...where, details: { name: args.name } },
			),
		);
	}
	if (RESERVED_TOOLS.includes(args.name)) {
		throw fail(
			new WorkflowError(
				"tool_refused",
				`\`tool(${JSON.stringify(args.name)})\` is never callable from a workflow: a script cannot start or steer runs, nor run code that could (\`${RESERVED_TOOLS.join("`, `")}\`). Call \`workflow()\` for a nested workflow`,
				{ ...where, details: { name: args.name, reason: "reserved" } },
			),
		);
	}
	const fn = Object.hasOwn(host, args.name) ? host[args.name] : undefined;
	if (typeof fn !== "function") {
		const names = Object.keys(host).filter((name) => !RESERVED_TOOLS.includes(name));
		const near = closestName(args.name, names);
		throw fail(
			new WorkflowError(
				"tool_unknown",
				`\`tool(${JSON.stringify(args.name)})\`: no such tool here. ${near ? `Did you mean \`${near}\`? ` : ""}The tools this run may call: ${names.length > 0 ? names.map((n) => `\`${n}\``).join(", ") : "none"}`,
				{ ...where, details: { name: args.name, available: names } },
			),
		);
	}
	if (run.steps.calls >= run.limits.maxToolCalls) {
		throw fail(
			new WorkflowError(
				"limit_tool_calls",
				`Tool call limit reached (${run.limits.maxToolCalls}). A loop that calls \`tool()\` per item can run past it: bound the loop, or raise \`limits.maxToolCalls\``,
				{ ...where, details: { limit: run.limits.maxToolCalls } },
			),
		);
	}
	run.steps.calls++;
	if (args.replay) {
		const replayed = replayTool(scope, ref.key);
		if (replayed) {
			run.census.tools.replayed++;
			finished(scope, ref, replayed, 0, true);
			return replayed;
		}
	}
	// Counted against the run's deadline even while a question is open; past it, this ends the run.
	const working = run.deadline.work();
	if (scope.life.signal.aborted) {
		working();
		throw scope.life.signal.reason;
	}
	const untrack = scope.life.track({
		kind: "tool",
		name: ref.label,
		filename: scope.filename,
		...(site ?? {}),
		...(scope.workflowName ? { workflow: scope.workflowName } : {}),
	});
	const timeoutMs = args.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
	let started = Date.now();
	let result: WorkflowToolResult;
	try {
		result = await run.steps.queue.run(async () => {
			started = Date.now();
			run.emit({ type: "tool_started", ...ref, timeoutMs });
			return await callWithTimeout(scope, () => fn, args, timeoutMs);
		}, scope.life.signal);
	} catch (error) {
		if (error instanceof WorkflowError && error.code.startsWith("tool_")) {
			throw fail(new WorkflowError(error.code, error.message, { ...where, details: error.details ?? {} }));
		}
		// The script ended or the run was stopped: the call's reason is the run's.
		fail(new WorkflowError("cancelled", errorMessage(error)));
		throw error;
	} finally {
		working();
		untrack();
	}
	// On disk before the script sees it, like an agent's answer: a resume gives it again without running the tool.
	// A `replay: false` step is kept too, marked, so a replay test of this run can answer it (a resume never does).
	await recordTool(scope, ref, result, args.replay);
	finished(scope, ref, result, Date.now() - started, false);
	return result;
}

/** Runs the tool, racing its timeout and the script's end; turns what it throws into `tool_refused`/`tool_failed`. */
async function callWithTimeout(
	scope: ScriptScope,
	get: () => (params: JsonValue, signal: AbortSignal) => Promise<WorkflowToolOutput>,
	args: ToolArguments,
	timeoutMs: number,
): Promise<WorkflowToolResult> {
	const life = scope.life.signal;
	if (life.aborted) throw life.reason;
	const controller = new AbortController();
	const quoted = JSON.stringify(args.name);
	return new Promise<WorkflowToolResult>((resolve, reject) => {
		let done = false;
		const settle = (fn: () => void) => {
			if (done) return;
			done = true;
			clearTimeout(timer);
			life.removeEventListener("abort", onLife);
			fn();
		};
		const onLife = () => {
			controller.abort(life.reason);
			settle(() => reject(life.reason));
		};
		life.addEventListener("abort", onLife, { once: true });
		const timer = setTimeout(() => {
			const error = new WorkflowError(
				"tool_timeout",
				`\`tool(${quoted})\` did not finish within ${timeoutMs} ms; it was told to stop. Give it a longer \`timeoutMs\` or a shorter task`,
				{ details: { name: args.name, timeoutMs } },
			);
			controller.abort(error);
			settle(() => reject(error));
		}, timeoutMs);
		const failed = (error: unknown) => {
			const coded = toolError(args.name, error);
			settle(() => reject(coded));
		};
		// The output is read before the call settles: a getter or a Proxy trap that throws is the tool's failure, not
		// an exception in a callback nobody awaits (an unhandled rejection, and a call that never settles).
		const succeeded = (output: WorkflowToolOutput | undefined) => {
			let result: WorkflowToolResult;
			try {
				result = toResult(output);
			} catch (error) {
				failed(error);
				return;
			}
			settle(() => resolve(result));
		};
		try {
			Promise.resolve(get()(args.params, controller.signal)).then(succeeded, failed);
		} catch (error) {
			failed(error);
		}
	});
}

/** What a host's tool threw, as `tool_refused` (a permission hook said no) or `tool_failed`; never throws itself. */
function toolError(name: string, error: unknown): WorkflowError {
	const quoted = JSON.stringify(name);
	const failed = (cause: unknown) =>
		new WorkflowError("tool_failed", `\`tool(${quoted})\` failed: ${errorMessage(cause)}`, { details: { name } });
	try {
		if (!isWorkflowError(error) || error.code !== "tool_refused") return failed(error);
		const reason = String(error.details?.reason ?? error.message);
		// Who refused says what to do, when it is not a permission hook.
		const advice =
			typeof error.details?.advice === "string"
				? error.details.advice
				: "The session's permission hooks decide what a workflow's tools may do, as for the model's own calls";
		return new WorkflowError("tool_refused", `\`tool(${quoted})\` was refused: ${reason}. ${advice}`, {
			details: { name, reason },
		});
	} catch (thrown) {
		// A Proxy posing as a WorkflowError whose reads throw.
		return failed(thrown);
	}
}

/** The host's output as the script gets it: text cut with a marker, JSON details only, never undefined. */
export function toResult(output: WorkflowToolOutput | undefined): WorkflowToolResult {
	const text = typeof output?.output === "string" ? output.output : output == null ? "" : String(output.output ?? "");
	const result: WorkflowToolResult = { output: cutOutput(text), isError: output?.isError === true };
	if (output?.details !== undefined && output.details !== null) {
		try {
			const details = assertJsonValue(output.details, "tool details");
			if (JSON.stringify(details).length <= MAX_TOOL_DETAILS_BYTES) result.details = details;
		} catch {
			// Not JSON (a Buffer, a class instance): the text is what the script gets.
		}
	}
	return result;
}

/** `text` with its middle cut when longer than `MAX_TOOL_OUTPUT_CHARS`: a command's first lines and its last. */
export function cutOutput(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
	if (text.length <= max) return text;
	const head = Math.floor(max / 4);
	const tail = max - head;
	const cut = text.length - head - tail;
	return `${text.slice(0, head)}\n[… ${cut} characters cut: tool() keeps the first ${head} and the last ${tail} …]\n${text.slice(text.length - tail)}`;
}

/** The params the run's ledger of changes keeps: the path a step touches, the command it runs (cut). */
function ledgerParams(params: { [key: string]: JsonValue }): Pick<ToolRef, "path" | "command"> {
	const { path, command } = params;
	return {
		...(typeof path === "string" ? { path } : {}),
		...(typeof command === "string" ? { command: command.slice(0, 500) } : {}),
	};
}

/** The step's label: `npm test` for bash, `read src/a.ts`, else the tool's name. */
function defaultLabel(name: string, params: { [key: string]: JsonValue }): string {
	const first = ["command", "path", "pattern"].map((k) => params[k]).find((v) => typeof v === "string") as
		| string
		| undefined;
	const text = first === undefined ? name : name === "bash" ? first : `${name} ${first}`;
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function finished(
	scope: ScriptScope,
	ref: ToolRef,
	result: WorkflowToolResult,
	durationMs: number,
	cached: boolean,
): void {
	const { run } = scope;
	if (result.isError) run.census.tools.errors++;
	const exitCode = exitCodeOf(result.details);
	run.emit({
		type: "tool_finished",
		...ref,
		isError: result.isError,
		durationMs,
		outputChars: result.output.length,
		...(exitCode !== undefined ? { exitCode } : {}),
		...(cached ? { cached: true } : {}),
	});
	const time = cached ? "replayed" : `${(durationMs / 1000).toFixed(1)}s`;
	const status = exitCode !== undefined ? `exit ${exitCode}` : result.isError ? "error" : "ok";
	emitLog(run, {
		level: result.isError ? "warn" : "info",
		message: `${ref.name === "bash" ? "$" : "⚙"} ${ref.label} · ${time} · ${status}`,
		...(ref.phase ? { phase: ref.phase } : {}),
	});
}

function exitCodeOf(details: JsonValue | undefined): number | undefined {
	if (!details || typeof details !== "object" || Array.isArray(details)) return undefined;
	const code = details.exit_code ?? details.exitCode;
	return typeof code === "number" ? code : undefined;
}

/** The journal's result for `key`, when it is a tool line of the right shape: else the tool runs. */
function replayTool(scope: ScriptScope, key: string): WorkflowToolResult | undefined {
	const entry = scope.run.host.journal?.lookup(key);
	try {
		if (!entry || typeof entry !== "object" || entry.kind !== "tool" || entry.replay === false) return undefined;
		const value = entry.value;
		if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
		const { output, isError, details } = value;
		if (typeof output !== "string" || typeof isError !== "boolean") return undefined;
		return { output, isError, ...(details !== undefined ? { details } : {}) };
	} catch {
		// A journal whose entry cannot be read (a getter that throws) holds no result: the tool runs.
		return undefined;
	}
}

async function recordTool(
	scope: ScriptScope,
	ref: ToolRef,
	result: WorkflowToolResult,
	replay: boolean,
): Promise<void> {
	const { run } = scope;
	if (!run.host.journal) return;
	try {
		await run.host.journal.record({
			key: ref.key,
			kind: "tool",
			value: result as unknown as JsonValue,
			label: ref.label,
			...(replay ? {} : { replay: false as const }),
		});
	} catch (error) {
		emitLog(run, {
			level: "warn",
			message: replay
				? `Could not journal \`${ref.label}\` (${errorMessage(error)}); a resume will run it again`
				: `Could not journal \`${ref.label}\` (${errorMessage(error)}); a replay test of this run will have no result for it`,
			...(ref.phase ? { phase: ref.phase } : {}),
		});
	}
}
