/**
 * The host functions behind the workflow globals of one script. The guest half (guest/prelude.js) validates what
 * must be checked in the guest and calls these by name; everything else — budget, queue, events — happens here.
 * And the guest half as one prelude: the files in `guest/`, each a function expression
 * `(function name(host, data, kit) {…})`. The eager ones are called in order inside the one function the sandbox
 * calls with `host` and `data`; guest/lazy.js fetches a lazy module's text from the host (`guestModule`) and
 * evaluates it when a script first reads one of its globals, so a run that never reads `URL` neither receives nor
 * compiles it. `kit` carries what one file hands a later one (url-parts.js's encoders to url.js).
 */
import { readFileSync } from "node:fs";
import type { HostFunction, SandboxValue } from "../../sandbox/index.ts";
import { runAgentCall } from "../agent/call.ts";
import { runAsk } from "../ask/ask.ts";
import { watchAbort } from "../core/abort-watch.ts";
import { emitLog, trackInFlight } from "../core/run-context.ts";
import type { JsonValue } from "../core/types.ts";
import { checkPhaseOptions } from "../spend/phase-budget.ts";
import { runToolCall } from "../step/call.ts";
import { isGated, runGatedCall } from "../step/gate.ts";
import type { WholeScope } from "./scope.ts";

/** Longest `sleep()`: a day. Longer is almost certainly a unit mistake. */
const MAX_SLEEP_MS = 24 * 60 * 60 * 1000;

/** Most `setTimeout()` timers one script may have pending (guest/timers.js says so first). */
const MAX_TIMERS = 10_000;

/** Builds the name → handler map the sandbox routes guest calls to. */
export function createHostFunctions(scope: WholeScope): Record<string, HostFunction> {
	return {
		...agentFunctions(scope),
		...phaseLogBudgetFunctions(scope),
		...askToolSleepFunctions(scope),
		...workflowFunctions(scope),
		...lazyModuleFunctions(),
	};
}

/** A guest value as text, whatever a forged call sent. */
function text(value: SandboxValue | undefined): string {
	return typeof value === "string" ? value : String(value);
}

// Functions the prelude calls through callAsync/callSync, which put every error at the script's own call site:
// the sandbox need not build a stack of its own for them (`callSite: false`).

/** `agent()` and what `parallel()`/`pipeline()` report: a failed slot, the question before a large fan-out. */
function agentFunctions(scope: WholeScope): Record<string, HostFunction> {
	const { run } = scope;
	return {
		agent: {
			kind: "async",
			params: ["prompt", "opts", "stack"],
			callSite: false,
			fn: ([prompt, options, stack]) => {
				const opts = (options ?? null) as JsonValue;
				// `gate`: the answer is checked by a command, and the agent asked again while it fails.
				const call = isGated(opts)
					? runGatedCall(scope, (prompt ?? null) as JsonValue, opts, text(stack))
					: runAgentCall(scope, prompt ?? null, options ?? null, text(stack));
				return trackInFlight(run, call);
			},
		},
		slotFailed: {
			kind: "event",
			params: ["kind", "index", "message"],
			fn: ([kind, index, message]) => {
				const combinator = kind === "pipeline" ? "pipeline" : "parallel";
				// The prelude sends the slot's index; a forged call may send anything, which is recorded as slot -1.
				const slot = Number.isSafeInteger(index) && (index as number) >= 0 ? (index as number) : -1;
				const phase = scope.phases.current;
				run.census.slotFailed({ kind: combinator, index: slot, cause: text(message), ...(phase ? { phase } : {}) });
				run.census.note("null", { what: `\`${combinator}()\` item ${slot}`, cause: text(message) });
				run.emit({
					type: "slot_failed",
					kind: combinator,
					index: slot,
					error: text(message),
					...(phase ? { phase } : {}),
				});
				emitLog(run, {
					level: "warn",
					message: `${combinator}[${slot}] failed: ${text(message)}`,
					...(phase ? { phase } : {}),
				});
			},
		},
		fanOutStarted: {
			// Sync, not an event: it is done before the slots start, so the calls they queue come after it, in order.
			kind: "sync",
			params: ["kind", "width"],
			callSite: false,
			fn: ([kind, width]) => {
				const phase = scope.phases.current;
				run.emit({
					type: "fan_out",
					kind: kind === "pipeline" ? "pipeline" : "parallel",
					// A forged call may send anything: recorded as width 0.
					width: Number.isSafeInteger(width) && (width as number) >= 0 ? (width as number) : 0,
					...(phase ? { phase } : {}),
					...(scope.workflowName ? { workflow: scope.workflowName } : {}),
				});
			},
		},
		fanOut: {
			kind: "async",
			params: ["kind", "items", "agents"],
			callSite: false,
			// The prelude asks only above the threshold it was given; the gate checks again (a forged call is harmless).
			fn: ([kind, items, agents]) =>
				run.fanOut.pass(run, {
					kind: kind === "pipeline" ? "pipeline" : "parallel",
					items: typeof items === "number" ? items : 0,
					agents: typeof agents === "number" ? agents : 0,
					workflow: scope.name,
					...(scope.phases.current ? { phase: scope.phases.current } : {}),
				}),
		},
	};
}

/** `log()`, `phase()` and reads of `budget`. */
function phaseLogBudgetFunctions(scope: WholeScope): Record<string, HostFunction> {
	const { run } = scope;
	return {
		log: {
			kind: "event",
			params: ["level", "message", "data"],
			fn: ([level, message, data, hasData]) => {
				emitLog(run, {
					level: level === "warn" || level === "error" ? level : "info",
					message: text(message),
					...(hasData === true ? { data: (data ?? null) as JsonValue } : {}),
					...(scope.phases.current ? { phase: scope.phases.current } : {}),
				});
			},
		},
		phaseOptions: {
			kind: "sync",
			params: ["name", "options"],
			callSite: false,
			// Checked and kept before the phase starts, so its `phase_start` event carries the budget.
			fn: ([name, options]) => {
				const checked = checkPhaseOptions((options ?? null) as JsonValue);
				if (checked.budget && typeof name === "string") scope.phaseBudgets.set(name, checked.budget);
				return null;
			},
		},
		phaseStart: {
			kind: "event",
			params: ["name", "withFn"],
			fn: ([name, withFn]) => {
				// The prelude refuses other names; a forged call with one is ignored.
				if (typeof name === "string" && name.trim() !== "") {
					scope.phases.start(name, withFn === true, scope.phaseBudgets.get(name)?.limits);
				}
			},
		},
		phaseEnd: {
			kind: "event",
			params: ["name", "ok"],
			fn: ([name]) => scope.phases.end(text(name)),
		},
		budget: {
			kind: "sync",
			callSite: false,
			fn: () => run.budget.snapshot() as unknown as SandboxValue,
			// Reads are served in the worker until the budget changes (here, or in a nested workflow sharing it).
			watchChanges: (changed) => run.budget.onChange(changed),
		},
	};
}

/** `ask()`, `tool()`, `sleep()` and `setTimeout()`'s timers: waits on a person, a host tool or the clock. */
function askToolSleepFunctions(scope: WholeScope): Record<string, HostFunction> {
	const { run } = scope;
	// A script's `setTimeout()` timers by id: what `clearTimeout()` ends.
	const timers = new Map<number, () => void>();
	return {
		ask: {
			kind: "async",
			params: ["question", "opts", "stack"],
			callSite: false,
			// Tracked like agent calls: a stopped run waits for the handler's dialog to be told, not for an answer.
			fn: ([question, options, stack]) =>
				trackInFlight(run, runAsk(scope, question ?? null, options ?? null, text(stack))),
		},
		tool: {
			kind: "async",
			params: ["name", "params", "opts", "stack"],
			callSite: false,
			// Tracked like agent calls: a stopped run waits for the tool to be told, within the settle grace.
			fn: ([name, params, options, stack]) =>
				trackInFlight(
					run,
					runToolCall(scope, name ?? null, params ?? null, options ?? null, text(stack)).then(
						(result) => result as unknown as SandboxValue,
					),
				),
		},
		sleep: {
			kind: "async",
			params: ["ms"],
			callSite: false,
			// The script's lifetime, not the run's: a sleep nobody awaited ends with its script, not a day later.
			fn: ([ms]) => sleep(ms, scope.life.signal),
		},
		timer: {
			kind: "async",
			params: ["id", "ms"],
			callSite: false,
			// Like sleep(): bound to the script's lifetime. True when it fired, false when `clearTimeout()` ended it.
			fn: ([id, ms]) => {
				if (typeof id !== "number" || timers.has(id) || timers.size >= MAX_TIMERS) {
					throw new RangeError(`\`setTimeout()\` takes at most ${MAX_TIMERS} pending timers`);
				}
				return timer(ms, scope.life.signal, (cancel) => timers.set(id, cancel)).finally(() => timers.delete(id));
			},
		},
		timerCancel: {
			kind: "event",
			params: ["id"],
			fn: ([id]) => {
				if (typeof id === "number") timers.get(id)?.();
			},
		},
	};
}

/** `workflow()`: a nested workflow, run by run.ts's runner. */
function workflowFunctions(scope: WholeScope): Record<string, HostFunction> {
	const { run } = scope;
	return {
		workflow: {
			kind: "async",
			params: ["nameOrPath", "args", "hasArgs", "stack"],
			callSite: false,
			// Tracked like agent calls: a cancelled run must not resolve while the child's sandbox is still stopping.
			fn: ([nameOrPath, args, hasArgs, stack]) =>
				trackInFlight(
					run,
					run.runNested(scope, nameOrPath ?? null, hasArgs === true ? (args ?? null) : undefined, text(stack)),
				),
		},
	};
}

/** The text of a lazy web module (`URL`, `TextEncoder`, timers), which guest/lazy.js asks for on first read. */
function lazyModuleFunctions(): Record<string, HostFunction> {
	return {
		guestModule: {
			kind: "sync",
			params: ["index"],
			callSite: false,
			// guest/lazy.js asks once per module, the first time a script reads one of its globals (`URL`).
			fn: ([index]) => lazyModuleSource(typeof index === "number" ? index : -1),
		},
	};
}

function sleep(ms: SandboxValue | undefined, signal: AbortSignal): Promise<null> {
	checkDelay("sleep()", ms);
	if (signal.aborted) return Promise.reject(signal.reason);
	// One shared listener per signal (abort-watch), like agent calls: many sleeps at once add no listeners.
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			unwatch();
			resolve(null);
		}, ms);
		const unwatch = watchAbort(signal, () => {
			clearTimeout(timer);
			reject(signal.reason);
		});
	});
}

/** A group of guest files evaluated together on the first read of any of `names`. */
export interface LazyGuestModule {
	names: readonly string[];
	files: readonly string[];
}

/** Globals evaluated on first use. */
export const LAZY_MODULES: readonly LazyGuestModule[] = [
	{ names: ["URL", "URLSearchParams"], files: ["url-parts.js", "url-search.js", "url.js"] },
	{
		names: ["DOMException", "TextDecoder", "TextEncoder", "atob", "btoa", "structuredClone"],
		files: ["text.js", "web.js"],
	},
	{ names: ["clearTimeout", "queueMicrotask", "setTimeout"], files: ["timers.js"] },
];

/** Guest files run before every script, in order. */
export const EAGER_FILES: readonly string[] = ["lazy.js", "prelude.js"];

/** Every guest file (`npm run build` and the bench build copy them to `dist/runtime/guest/`). */
export const GUEST_FILES: readonly string[] = [...EAGER_FILES, ...LAZY_MODULES.flatMap((module) => module.files)];

function calls(files: readonly string[]): string {
	return files
		.map((file) => {
			const text = readFileSync(new URL(`../guest/${file}`, import.meta.url), "utf8").trimEnd();
			// Each file is one parenthesised function expression; its closing `;` would end the call early.
			return `(${text.endsWith(";") ? text.slice(0, -1) : text})(host, data, kit);`;
		})
		.join("\n");
}

/**
 * The prelude text the sandbox evaluates: a function of `(host, data)`, the engine's contract. The lazy modules'
 * names go in; their text stays here until the guest asks for it (`lazyModuleSource`). `eager` and `lazy` default
 * to the real sets; the bench passes others to measure what each costs.
 */
export function guestPrelude(
	eager: readonly string[] = EAGER_FILES,
	lazy: readonly LazyGuestModule[] = LAZY_MODULES,
): string {
	return `(function installGuest(host, data) {
const kit = Object.create(null);
kit.lazy = ${JSON.stringify(lazy.map((module) => module.names))};
${calls(eager)}
})`;
}

const sources = new Map<number, string>();

function checkDelay(what: string, ms: SandboxValue | undefined): asserts ms is number {
	if (typeof ms !== "number" || !(ms >= 0) || ms > MAX_SLEEP_MS) {
		throw new TypeError(`\`${what}\` takes milliseconds from 0 to ${MAX_SLEEP_MS}, got ${JSON.stringify(ms)}`);
	}
}

/** A `setTimeout()` timer: true once `ms` passed, false once `register`'s cancel is called, rejected at `signal`. */
function timer(
	ms: SandboxValue | undefined,
	signal: AbortSignal,
	register: (cancel: () => void) => void,
): Promise<boolean> {
	checkDelay("setTimeout()", ms);
	if (signal.aborted) return Promise.reject(signal.reason);
	return new Promise((resolve, reject) => {
		const end = (fired: boolean) => {
			clearTimeout(handle);
			unwatch();
			resolve(fired);
		};
		const handle = setTimeout(() => end(true), ms);
		const unwatch = watchAbort(signal, () => {
			clearTimeout(handle);
			reject(signal.reason);
		});
		register(() => end(false));
	});
}

/** The text of lazy module `index` of `LAZY_MODULES`: a function expression of `(host, data, kit)`. */
export function lazyModuleSource(index: number): string {
	const module = LAZY_MODULES[index];
	if (!module) throw new RangeError(`There is no lazy guest module ${index}`);
	let source = sources.get(index);
	if (source === undefined) {
		source = `(function (host, data, kit) {\n${calls(module.files)}\n})`;
		sources.set(index, source);
	}
	return source;
}
