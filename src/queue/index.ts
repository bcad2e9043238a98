/**
 * `pi-workflows/queue`: children on other machines through BullMQ on Redis, for hosts of their own. The host's
 * runner (`createQueueHost(…).runner(…)`, a `WorkflowAgentRunner` for `runWorkflowScript`), the planner that resolves
 * a call's agent type from the host's agent files (`queuePlanner`), and a worker (`startQueueWorker`) that runs the
 * children as pi sessions. Needs pi (the planner reads agent files with pi's frontmatter parser; the worker runs pi).
 */
export {
	createQueueHost,
	type QueueControls,
	type QueueHost,
	type QueueHostOptions,
	type QueueJobEvent,
	type QueueRunOptions,
} from "./host.ts";
export { type QueueWorker, type QueueWorkerOptions, startQueueWorker } from "./job-runner.ts";
export { type QueuePlanOptions, queuePlanner } from "./plan.ts";
