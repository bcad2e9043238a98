/** The workflow runtime: run a script, and the types a host implements (the runner) or receives (events, result). */
export { DEFAULT_LIMITS, DEFAULT_MAX_RESULT_BYTES, runWorkflowScript } from "./run.ts";
export { createWorkflowQueue } from "./queue.ts";
export type { WorkflowQueue, WorkflowQueueOptions } from "./queue.ts";
export { parseWorkflowSource, validateArgs } from "./meta.ts";
export type { ParsedWorkflow } from "./meta.ts";
export { DEFAULT_AGENT_TYPE } from "./agent-options.ts";
export { SCHEMA_ATTEMPTS } from "./agent-call.ts";
export { resolveWorkflowPath } from "./nested.ts";
export type * from "./events.ts";
export type * from "./types.ts";
export type { BudgetSnapshot } from "./budget.ts";
