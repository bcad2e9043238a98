/**
 * Turning what the guest threw into a `GuestError`: the kind (script error, syntax error, which limit), the
 * position in the author's file, and the messages for limits. Pure functions, used by the worker.
 */
import type { GuestError, GuestErrorKind, SandboxLimits, SandboxValue } from "./types.ts";

/** What the guest's `describe()` reports about a thrown value. */
export interface DescribedThrow {
	name?: string;
	message: string;
	stack?: string;
	props: Record<string, SandboxValue>;
}

/** Where the run was when the error surfaced: syntax errors only count while code is being compiled. */
export type ErrorPhase = "boot" | "prelude" | "body" | "running";

/** Limits whose error text says which limit and how to raise it. */
export function limitMessage(kind: GuestErrorKind, limits: SandboxLimits): string {
	switch (kind) {
		case "limit_cpu":
			return `Script code ran for more than ${limits.syncSliceMs} ms without awaiting (limit: syncSliceMs)`;
		case "limit_memory":
			return `The script ran out of memory (limit: memoryBytes = ${limits.memoryBytes})`;
		case "limit_stack":
			return `The script nested too deeply: recursion or nesting overflowed the stack (limit: stackBytes = ${limits.stackBytes})`;
		case "unsettled":
			return "The script is awaiting a promise that nothing can settle: no host call is in flight and no job is queued";
		case "cancelled":
			return "The run was cancelled";
		default:
			return kind;
	}
}

/**
 * Classifies a described throw. `tripped` is why our interrupt handler stopped the guest, if it did; QuickJS's
 * own limit errors are recognised by name and message ("out of memory", "stack overflow").
 */
export function toGuestError(
	described: DescribedThrow,
	options: { filename: string; phase: ErrorPhase; tripped: "cpu" | "cancel" | null; limits: SandboxLimits },
): GuestError {
	const kind = classify(described, options);
	const error: GuestError = {
		kind,
		message: kind === "thrown" || kind === "syntax" ? described.message : limitMessage(kind, options.limits),
	};
	if (described.name !== undefined && (kind === "thrown" || kind === "syntax")) error.name = described.name;
	if (described.stack !== undefined) error.stack = trimStack(described.stack);
	const position = locate(described.stack, options.filename);
	if (position) {
		error.line = position.line;
		error.column = position.column;
	}
	const props = { ...described.props };
	if (kind === "syntax") {
		delete props.fileName;
		delete props.lineNumber;
	}
	if (Object.keys(props).length > 0) error.props = props;
	return error;
}

function classify(
	described: DescribedThrow,
	options: { filename: string; phase: ErrorPhase; tripped: "cpu" | "cancel" | null },
): GuestErrorKind {
	if (options.tripped === "cancel") return "cancelled";
	if (options.tripped === "cpu") return "limit_cpu";
	// QuickJS raises these as InternalError, except its JSON parser, which says "stack overflow" in a SyntaxError.
	if (described.name === "InternalError" && described.message === "out of memory") return "limit_memory";
	if (described.name?.endsWith("Error") && described.message === "stack overflow") return "limit_stack";
	if (described.name === "SyntaxError" && isCompileError(described.stack, options.phase)) return "syntax";
	return "thrown";
}

/** A compile error's stack is one bare frame (`    at file:1:9`); a runtime SyntaxError (JSON.parse) has calls. */
function isCompileError(stack: string | undefined, phase: ErrorPhase): boolean {
	if (phase === "running" || phase === "boot" || stack === undefined) return false;
	const frames = stack.split("\n").filter((line) => line.trim() !== "");
	return frames.length === 1 && /^\s*at [^()]+:\d+:\d+$/.test(frames[0]);
}

/** The 1-based position of the first stack frame in `filename` (`    at fn (wf.js:3:9)` or `    at wf.js:1:9`). */
export function locate(stack: string | undefined, filename: string): { line: number; column: number } | undefined {
	if (stack === undefined) return undefined;
	const suffix = new RegExp(`(?:\\(|at )${escapeRegExp(filename)}:(\\d+):(\\d+)\\)?$`);
	for (const line of stack.split("\n")) {
		const match = suffix.exec(line.trimEnd());
		if (match) return { line: Number(match[1]), column: Number(match[2]) };
	}
	return undefined;
}

/**
 * Drops the frames of our own guest helpers (`<sandbox>`) and keeps the first frames of a deep stack (a stack
 * overflow has thousands), noting how many were left out.
 */
export function trimStack(stack: string, maxFrames = 40): string {
	const frames = stack.split("\n").filter((frame) => frame !== "" && !frame.includes("(<sandbox>:"));
	if (frames.length <= maxFrames) return frames.map((frame) => `${frame}\n`).join("");
	return `${frames.slice(0, maxFrames).join("\n")}\n    … ${frames.length - maxFrames} more frames\n`;
}

/** A stack without its first frame: the call-site stack of a host call starts in our own guest wrapper. */
export function dropFirstFrame(stack: string): string {
	const newline = stack.indexOf("\n");
	return newline === -1 ? "" : stack.slice(newline + 1);
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
