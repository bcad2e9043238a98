/**
 * The host functions behind the workflow globals of one script. The guest half (guest/prelude.js) validates what
 * must be checked in the guest and calls these by name; everything else — budget, queue, events — happens here.
 */
import type { HostFunction, SandboxValue } from "../sandbox/index.ts";
import { watchAbort } from "./abort-watch.ts";
import { runAgentCall } from "./agent/call.ts";
import { runAsk } from "./ask.ts";
import { emitLog, type ScriptScope, trackInFlight } from "./run-context.ts";
import { checkPhaseOptions } from "./spend/phase-budget.ts";
import { runToolCall } from "./tool/call.ts";
import { isGated, runGatedCall } from "./tool/gate.ts";
import type { JsonValue } from "./types.ts";

/** Longest `sleep()`: a day. Longer is almost certainly a unit mistake. */
const MAX_SLEEP_MS = 24 * 60 * 60 * 1000;

/** Builds the name → handler map the sandbox routes guest calls to. */
export function createHostFunctions(scope: ScriptScope): Record<string, HostFunction> {
	const { run } = scope;
	const str = (value: SandboxValue | undefined): string => (typeof value === "string" ? value : String(value));
	return {
		// Functions the prelude calls through callAsync/callSync, which put every error at the script's own call site:
		// the sandbox need not build a stack of its own for them (`callSite: false`).
		agent: {
			kind: "async",
			params: ["prompt", "opts", "stack"],
			callSite: false,
			fn: ([prompt, options, stack]) => {
				const opts = (options ?? null) as JsonValue;
				// `gate`: the answer is checked by a command, and the agent asked again while it fails.
				const call = isGated(opts)
					? runGatedCall(scope, (prompt ?? null) as JsonValue, opts, str(stack))
					: runAgentCall(scope, prompt ?? null, options ?? null, str(stack));
				return trackInFlight(run, call);
			},
		},
		ask: {
			kind: "async",
			params: ["question", "opts", "stack"],
			callSite: false,
			// Tracked like agent calls: a stopped run waits for the handler's dialog to be told, not for an answer.
			fn: ([question, options, stack]) =>
				trackInFlight(run, runAsk(scope, question ?? null, options ?? null, str(stack))),
		},
		tool: {
			kind: "async",
			params: ["name", "params", "opts", "stack"],
			callSite: false,
			// Tracked like agent calls: a stopped run waits for the tool to be told, within the settle grace.
			fn: ([name, params, options, stack]) =>
				trackInFlight(
					run,
					runToolCall(scope, name ?? null, params ?? null, options ?? null, str(stack)).then(
						(result) => result as unknown as SandboxValue,
					),
				),
		},
		log: {
			kind: "event",
			params: ["level", "message", "data"],
			fn: ([level, message, data, hasData]) => {
				emitLog(run, {
					level: level === "warn" || level === "error" ? level : "info",
					message: str(message),
					...(hasData === true ? { data: (data ?? null) as JsonValue } : {}),
					...(scope.phases.current ? { phase: scope.phases.current } : {}),
				});
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
				run.census.slotFailed({ kind: combinator, index: slot, cause: str(message), ...(phase ? { phase } : {}) });
				run.census.note("null", { what: `\`${combinator}()\` item ${slot}`, cause: str(message) });
				run.emit({
					type: "slot_failed",
					kind: combinator,
					index: slot,
					error: str(message),
					...(phase ? { phase } : {}),
				});
				emitLog(run, {
					level: "warn",
					message: `${combinator}[${slot}] failed: ${str(message)}`,
					...(phase ? { phase } : {}),
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
				}),
		},
		phaseEnd: {
			kind: "event",
			params: ["name", "ok"],
			fn: ([name]) => scope.phases.end(str(name)),
		},
		budget: {
			kind: "sync",
			callSite: false,
			fn: () => run.budget.snapshot() as unknown as SandboxValue,
			// Reads are served in the worker until the budget changes (here, or in a nested workflow sharing it).
			watchChanges: (changed) => run.budget.onChange(changed),
		},
		sleep: {
			kind: "async",
			params: ["ms"],
			callSite: false,
			// The script's lifetime, not the run's: a sleep nobody awaited ends with its script, not a day later.
			fn: ([ms]) => sleep(ms, scope.life.signal),
		},
		workflow: {
			kind: "async",
			params: ["nameOrPath", "args", "hasArgs", "stack"],
			callSite: false,
			// Tracked like agent calls: a cancelled run must not resolve while the child's sandbox is still stopping.
			fn: ([nameOrPath, args, hasArgs, stack]) =>
				trackInFlight(
					run,
					run.runNested(scope, nameOrPath ?? null, hasArgs === true ? (args ?? null) : undefined, str(stack)),
				),
		},
	};
}

function sleep(ms: SandboxValue | undefined, signal: AbortSignal): Promise<null> {
	if (typeof ms !== "number" || !(ms >= 0) || ms > MAX_SLEEP_MS) {
		throw new TypeError(`\`sleep()\` takes milliseconds from 0 to ${MAX_SLEEP_MS}, got ${JSON.stringify(ms)}`);
	}
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
