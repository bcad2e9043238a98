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
