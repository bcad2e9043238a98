/**
 * The worker's warm-up before it reports ready: one throwaway run through the paths every run takes (boot,
 * prelude, an async host call and its answer, the result, disposal), so that the first real run does not pay
 * for V8 compiling QuickJS's functions and our glue on first use (about 100 ms on a slow machine).
 */
import { type EngineBridge, EngineRun } from "./engine.ts";
import type { QuickJSInstance } from "./instance.ts";
import { DEFAULT_SANDBOX_LIMITS } from "./limits.ts";
import type { HostMessage } from "./protocol.ts";

const PRELUDE = "(function (host, data) { globalThis.echo = host.echo; globalThis.data = data; })";
const BODY = "(async () => { const back = await echo({ items: [1, 'two', null] }); return { back, data }; })()";

/** Runs the throwaway run on `instance`. Resolves when it is over, whatever its outcome; never rejects. */
export async function warmUp(instance: Promise<QuickJSInstance>): Promise<void> {
	let engine: EngineRun | undefined;
	const bridge: EngineBridge = {
		// Answered on a later turn, as the host would: the engine is never re-entered from inside a host call.
		post: (callId, _spec, argsJson) => {
			setImmediate(() => engine?.settle([{ callId, result: { ok: true, json: argsJson } }]));
			return false;
		},
		callSync: () => null,
		cancelRequested: () => false,
		poll: () => false,
		enterSlice: () => {},
		leaveSlice: () => {},
	};
	const request: Extract<HostMessage, { type: "run" }> = {
		type: "run",
		runId: 0,
		slot: 0,
		prelude: PRELUDE,
		body: BODY,
		filename: "warm-up.js",
		dataJson: '{"warm":true}',
		functions: [{ name: "echo", kind: "async", params: ["value"], callSite: true, cached: false }],
		limits: { ...DEFAULT_SANDBOX_LIMITS },
	};
	try {
		engine = await EngineRun.start(instance, request, bridge);
		await engine.done;
	} catch {
		// A failed warm-up only means the first run is slower; that run reports any real fault itself.
	}
}
