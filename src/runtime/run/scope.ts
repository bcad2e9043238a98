/**
 * The whole of a run's shared state and of a script's scope, as the ceiling builds them: the floor's parts, what
 * `agent()` calls need (runtime/agent/scope.ts), and the question before a large fan-out, which only the
 * combinators here ask.
 */
import type { AgentRun, AgentScope } from "../agent/scope.ts";
import type { JsonValue } from "../core/types.ts";
import type { FanOutGate } from "../spend/fan-out.ts";

export interface WholeRun extends AgentRun {
	/** The question before a large `parallel()`/`pipeline()`, asked once per run. */
	fanOut: FanOutGate;
	/**
	 * Runs `workflow(nameOrPath, args)` for a script (nested.ts). Handed in by run.ts, so the globals need not import
	 * the nested runner, which runs a script body with those globals.
	 */
	runNested: (
		scope: WholeScope,
		nameOrPath: JsonValue,
		args: JsonValue | undefined,
		stack: string,
	) => Promise<JsonValue>;
}

export interface WholeScope extends AgentScope {
	run: WholeRun;
}
