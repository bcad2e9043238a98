/**
 * What an `agent()` call needs of its run beyond the floor's `RunContext` and `ScriptScope`: the run's schemas (its
 * structured answers) and the phase budgets its usage is charged to. Declared here, beside the calls that read them,
 * so the floor names no leaf above it; the run (runtime/run/scope.ts) builds scopes that have all of it.
 */
import type { RunContext, ScriptScope } from "../core/run-context.ts";
import type { SchemaSession } from "../schema/session.ts";
import type { CostCapGate } from "../spend/cost-cap.ts";
import type { PhaseBudget, PhaseBudgets } from "../spend/phase-budget.ts";
import type { LabelledCalls } from "./continuation.ts";

export interface AgentRun extends RunContext {
	/** The schemas of the run's `agent()` calls and headers, released when the run ends. */
	schemas: SchemaSession;
	/** The run's dollar cap, which every child passes before it starts (parking the run there). */
	costCap: CostCapGate;
}

export interface AgentScope extends ScriptScope {
	run: AgentRun;
	/** Budgets of this script's phases, by name. */
	phaseBudgets: PhaseBudgets;
	/** Budgets of the caller's phases a nested workflow was started in: its calls count against them too. */
	outerBudgets: readonly PhaseBudget[];
	/** The script's labelled calls, which `resume` names (continuation.ts). */
	labels: LabelledCalls;
}
