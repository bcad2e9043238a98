/**
 * The sandbox: runs guest JavaScript in QuickJS (WASM) in worker threads, with named host calls, limits on
 * memory, stack, synchronous CPU time and value size, and JSON-only values across the boundary.
 */

export { DEFAULT_SANDBOX_LIMITS, resolveLimits } from "./limits.ts";
// The boundary's rule for values, for callers that check values before they cross
export { checkJsonData, type JsonDataProblem } from "./marshal.ts";
// Creating and running
export {
	createSandbox,
	type SandboxOptions,
	type SandboxStats,
	sandboxStats,
	shutdownSandboxPool,
	warmSandboxPool,
} from "./sandbox.ts";

// Types
export type {
	GuestError,
	GuestErrorKind,
	HostFunction,
	HostFunctionKind,
	Sandbox,
	SandboxLimits,
	SandboxOutcome,
	SandboxRunRequest,
	SandboxValue,
} from "./types.ts";
