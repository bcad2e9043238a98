/**
 * Reading a worker's message as untrusted bytes. A script that corrupts its engine's memory can make the worker
 * post anything, so every field is checked here before the host acts on it; nothing in this file throws.
 */

import { encodeHostValue } from "./marshal.ts";
import type { EngineReport, WorkerMessage } from "./protocol.ts";
import { MAX_WIRE_DEPTH } from "./protocol.ts";
import type { GuestError, GuestErrorKind, HostFunctionKind, SandboxOutcome, SandboxValue } from "./types.ts";

/** What the host knows of the run a message should belong to. */
export interface WireRun {
	runId: number;
	/** Kind of each host function the run declared, by name. */
	functions: ReadonlyMap<string, HostFunctionKind>;
	/** A value's JSON text is never longer than this (the worker checks bytes; a character is at least one). */
	maxValueBytes: number;
}

/** A call message whose fields all checked out, with its arguments parsed. */
export type CheckedCall = Extract<WorkerMessage, { type: "call" }> & { args: SandboxValue[] };

/** A worker message after checking: what to act on, another run's message to ignore, or what is wrong with it. */
export type CheckedMessage =
	| { type: "call"; call: CheckedCall }
	| { type: "done"; outcome: SandboxOutcome; engine: EngineReport }
	| { type: "fatal"; message: string }
	| { type: "stale" }
	| { type: "corrupt"; problem: string };

/** Kinds a worker may report; `corrupt` is the host's own verdict and never comes from a worker. */
const WORKER_KINDS: ReadonlySet<string> = new Set<GuestErrorKind>([
	"thrown",
	"syntax",
	"limit_memory",
	"limit_stack",
	"limit_cpu",
	"limit_value_size",
	"value_not_json",
	"not_awaited",
	"unsettled",
	"cancelled",
	"internal",
]);

type Fields = Record<string, unknown>;

/** Checks one message from the worker running `run`. Never throws. */
export function checkWorkerMessage(message: unknown, run: WireRun): CheckedMessage {
	try {
		return check(message, run);
	} catch (error) {
		// Reading plain structured-clone data cannot throw; if it does anyway, the message is not what we sent.
		return corrupt(`reading it threw ${describeThrown(error)}`);
	}
}

function check(message: unknown, run: WireRun): CheckedMessage {
	if (!isObject(message)) return corrupt(`a message is ${typeName(message)}, not an object`);
	const { type } = message;
	if (type !== "call" && type !== "done" && type !== "fatal") {
		return corrupt(`a message has type ${quote(type)} during a run`);
	}
	if (!Number.isSafeInteger(message.runId))
		return corrupt(`a "${type}" message's \`runId\` is ${quote(message.runId)}`);
	if (message.runId !== run.runId) return { type: "stale" };
	if (type === "fatal") {
		return typeof message.message === "string"
			? { type: "fatal", message: message.message }
			: corrupt(`a "fatal" message's \`message\` is ${typeName(message.message)}`);
	}
	return type === "call" ? checkCall(message, run) : checkDone(message, run);
}

function checkCall(message: Fields, run: WireRun): CheckedMessage {
	const { callId, name, kind, argsJson } = message;
	if (!Number.isSafeInteger(callId) || (callId as number) < 1) {
		return corrupt(`a call's \`callId\` is ${quote(callId)}, not a positive integer`);
	}
	const declared = typeof name === "string" ? run.functions.get(name) : undefined;
	if (declared === undefined) return corrupt(`a call names ${quote(name)}, which is not a declared host function`);
	if (kind !== declared) return corrupt(`a call to \`${name}\` is of kind ${quote(kind)}; \`${name}\` is ${declared}`);
	if (typeof argsJson !== "string")
		return corrupt(`the arguments of \`${name}\` are ${typeName(argsJson)}, not JSON text`);
	if (argsJson.length > run.maxValueBytes) {
		return corrupt(`the arguments of \`${name}\` are longer than ${run.maxValueBytes} characters`);
	}
	// The guest's encoder never nests deeper (the arguments array adds one level); a forged deeper value would cost
	// the host a long parse, and more than its own stack in every later JSON.stringify of an event.
	if (nestsDeeperThan(argsJson, MAX_WIRE_DEPTH + 1)) {
		return corrupt(`the arguments of \`${name}\` nest deeper than ${MAX_WIRE_DEPTH} levels`);
	}
	const args = parseJson(argsJson);
	if (!Array.isArray(args?.value)) return corrupt(`the arguments of \`${name}\` are not a JSON array`);
	const call = { type: "call", runId: run.runId, callId, name, kind, argsJson, args: args.value } as CheckedCall;
	return { type: "call", call };
}

function checkDone(message: Fields, run: WireRun): CheckedMessage {
	const engine = checkEngine(message.engine);
	if (typeof engine === "string") return corrupt(engine);
	const { outcome } = message;
	if (!isObject(outcome) || typeof outcome.ok !== "boolean") return corrupt("the run's outcome is not `{ ok, … }`");
	if (outcome.ok) {
		const { json } = outcome;
		if (typeof json !== "string") return corrupt(`the run's value is ${typeName(json)}, not JSON text`);
		if (json.length > run.maxValueBytes)
			return corrupt(`the run's value is longer than ${run.maxValueBytes} characters`);
		if (nestsDeeperThan(json, MAX_WIRE_DEPTH))
			return corrupt(`the run's value nests deeper than ${MAX_WIRE_DEPTH} levels`);
		const value = parseJson(json);
		if (!value) return corrupt("the run's value is not valid JSON");
		return { type: "done", outcome: { ok: true, value: value.value }, engine };
	}
	const error = checkError(outcome.error, run);
	if (typeof error === "string") return corrupt(error);
	return { type: "done", outcome: { ok: false, error }, engine };
}

function checkEngine(engine: unknown): EngineReport | string {
	if (!isObject(engine)) return `the engine report is ${typeName(engine)}`;
	const { disposedCleanly, disposeError, reusable, instantiateMs } = engine;
	if (typeof disposedCleanly !== "boolean" || typeof reusable !== "boolean") {
		return "the engine report's `disposedCleanly` or `reusable` is not a boolean";
	}
	if (disposeError !== undefined && typeof disposeError !== "string") {
		return `the engine report's \`disposeError\` is ${typeName(disposeError)}`;
	}
	if (typeof instantiateMs !== "number" || !Number.isFinite(instantiateMs)) {
		return `the engine report's \`instantiateMs\` is ${quote(instantiateMs)}`;
	}
	return { disposedCleanly, reusable, instantiateMs, ...(disposeError !== undefined ? { disposeError } : {}) };
}

/** A guest error with only the fields a `GuestError` has, each of its type; or what is wrong. */
function checkError(error: unknown, run: WireRun): GuestError | string {
	if (!isObject(error)) return `the run's error is ${typeName(error)}`;
	const { kind, message, name, stack, path, found, line, column, props } = error;
	if (typeof kind !== "string" || !WORKER_KINDS.has(kind)) return `the run's error has kind ${quote(kind)}`;
	if (typeof message !== "string") return `the run's error message is ${typeName(message)}`;
	const checked: GuestError = { kind: kind as GuestErrorKind, message };
	for (const [key, value] of [
		["name", name],
		["stack", stack],
		["path", path],
		["found", found],
	] as const) {
		if (value === undefined) continue;
		if (typeof value !== "string") return `the run's error \`${key}\` is ${typeName(value)}`;
		checked[key] = value;
	}
	if (line !== undefined || column !== undefined) {
		if (!isPosition(line) || !isPosition(column))
			return `the run's error position is ${quote(line)}:${quote(column)}`;
		checked.line = line;
		checked.column = column;
	}
	if (props !== undefined) {
		const isRecord = isObject(props) && !Array.isArray(props);
		if (!isRecord || !encodeHostValue(props, "props", run.maxValueBytes).ok) {
			return "the run's error `props` are not a JSON object";
		}
		checked.props = props as Record<string, SandboxValue>;
	}
	return checked;
}

function isPosition(value: unknown): value is number {
	return Number.isSafeInteger(value) && (value as number) >= 1;
}

/**
 * Whether the arrays and objects of JSON text nest deeper than `max`. Text with no more than `max` brackets cannot,
 * and counting them with native `indexOf` costs little on the megabytes a call may carry (the exact scan costs more
 * than parsing them); only text with more brackets gets the exact scan.
 */
function nestsDeeperThan(text: string, max: number): boolean {
	let brackets = 0;
	for (const open of ["[", "{"]) {
		for (let at = text.indexOf(open); at !== -1; at = text.indexOf(open, at + 1)) {
			if (++brackets > max) return nestingOf(text) > max;
		}
	}
	return false;
}

/** How deep the arrays and objects of JSON text nest, in one pass that skips strings (no parse, no recursion). */
function nestingOf(text: string): number {
	let depth = 0;
	let deepest = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (inString) {
			if (code === 0x5c) i++;
			else if (code === 0x22) inString = false;
		} else if (code === 0x22) inString = true;
		else if (code === 0x5b || code === 0x7b) {
			if (++depth > deepest) deepest = depth;
		} else if (code === 0x5d || code === 0x7d) depth--;
	}
	return deepest;
}

function parseJson(text: string): { value: SandboxValue } | undefined {
	try {
		return { value: JSON.parse(text) as SandboxValue };
	} catch {
		return undefined;
	}
}

function isObject(value: unknown): value is Fields {
	return typeof value === "object" && value !== null;
}

function typeName(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	return `${/^[aeiou]/.test(typeof value) ? "an" : "a"} ${typeof value}`;
}

/** A short, safe rendering of a field's value for the message. */
function quote(value: unknown): string {
	if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
	if (typeof value === "number" || typeof value === "boolean" || value === undefined) return String(value);
	return typeName(value);
}

function corrupt(problem: string): CheckedMessage {
	return { type: "corrupt", problem };
}

/** `name: message` of a thrown value, or its type; never throws. */
export function describeThrown(error: unknown): string {
	try {
		if (error instanceof Error) return `${String(error.name)}: ${String(error.message)}`;
	} catch {
		// A value whose name or message cannot be read is described by its type.
	}
	return typeName(error);
}
