/**
 * acorn, loaded on the first parse rather than with the package: importing the core entry reads no script, and a
 * run parses only after it has started its sandbox worker, so acorn then loads on this thread while the worker
 * boots on another. acorn ships CommonJS beside its module, so `require` loads it synchronously for the callers
 * that parse synchronously (`parseWorkflowSource`, `checkWorkflowScript`).
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

let acorn: typeof import("acorn") | undefined;

/** The `acorn` module. */
export function loadAcorn(): typeof import("acorn") {
	acorn ??= require("acorn") as typeof import("acorn");
	return acorn;
}

/**
 * Loads acorn in an event-loop turn of its own (reading and compiling it takes 10–20 ms in a cold process), so that a
 * run's start does not hold the host's loop (pi's screen) for that and the parse together. Nothing once it is loaded.
 */
export async function loadAcornApart(): Promise<void> {
	if (acorn) return;
	await nextTurn();
	loadAcorn();
	await nextTurn();
}

function nextTurn(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}
