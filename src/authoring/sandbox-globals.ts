/**
 * The names a workflow script can read without declaring them: the ECMAScript built-ins of the engine that runs
 * workflows (QuickJS, less what the sandbox removes) and the workflow globals. A test compares this list with what
 * the real sandbox's `globalThis` holds, so the two cannot drift.
 */

/** Built-ins QuickJS provides and the sandbox keeps (`SharedArrayBuffer`, `Atomics` and `WebAssembly` are gone). */
export const ENGINE_GLOBALS: readonly string[] = [
	"AggregateError",
	"Array",
	"ArrayBuffer",
	"BigInt",
	"BigInt64Array",
	"BigUint64Array",
	"Boolean",
	"DataView",
	"Date",
	"Error",
	"EvalError",
	"FinalizationRegistry",
	"Float16Array",
	"Float32Array",
	"Float64Array",
	"Function",
	"Infinity",
	"Int16Array",
	"Int32Array",
	"Int8Array",
	"InternalError",
	"Iterator",
	"JSON",
	"Map",
	"Math",
	"NaN",
	"Number",
	"Object",
	"Promise",
	"Proxy",
	"RangeError",
	"ReferenceError",
	"Reflect",
	"RegExp",
	"Set",
	"String",
	"Symbol",
	"SyntaxError",
	"TypeError",
	"URIError",
	"Uint16Array",
	"Uint32Array",
	"Uint8Array",
	"Uint8ClampedArray",
	"WeakMap",
	"WeakRef",
	"WeakSet",
	"decodeURI",
	"decodeURIComponent",
	"encodeURI",
	"encodeURIComponent",
	"escape",
	"eval",
	"globalThis",
	"isFinite",
	"isNaN",
	"parseFloat",
	"parseInt",
	"undefined",
	"unescape",
];

/** Web platform globals scripts written for Claude Code use, implemented in the guest (runtime/guest/lazy.js). */
export const WEB_GLOBALS: readonly string[] = [
	"DOMException",
	"TextDecoder",
	"TextEncoder",
	"URL",
	"URLSearchParams",
	"atob",
	"btoa",
	"clearTimeout",
	"queueMicrotask",
	"setTimeout",
	"structuredClone",
];

/** The workflow globals (guest/prelude.js installs them). */
export const WORKFLOW_GLOBALS: readonly string[] = [
	"agent",
	"args",
	"ask",
	"budget",
	"console",
	"cwd",
	"log",
	"parallel",
	"phase",
	"pipeline",
	"process",
	"sleep",
	"tool",
	"workflow",
];

/** Every name a script may read undeclared. `meta` is the body's own parameter, not a global. */
export const SANDBOX_GLOBALS: ReadonlySet<string> = new Set([...ENGINE_GLOBALS, ...WEB_GLOBALS, ...WORKFLOW_GLOBALS]);

/** The workflow globals that return a promise: using one's result without `await` is a mistake. */
export const ASYNC_GLOBALS: ReadonlySet<string> = new Set(["agent", "ask", "parallel", "pipeline", "tool", "workflow"]);
