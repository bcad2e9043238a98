/**
 * The peers' design, written small for comparison: the script runs in a `node:vm` context of this process, with
 * agent, parallel, pipeline, phase and log as host functions over the same queue (createWorkflowQueue). There is
 * no boundary: a loop in the script blocks the host's event loop, and values are shared, not copied.
 */
import { createContext, runInContext, runInNewContext } from "node:vm";
import { type ExportNamedDeclaration, parse, type VariableDeclaration } from "acorn";
import { createWorkflowQueue } from "../../src/runtime/core/queue.ts";
import type { WorkflowMeta } from "../../src/runtime/core/types.ts";
import { type BaselineAgentOptions, BaselineRun, type BaselineRunOptions } from "./agent-caller.ts";

/** Runs a workflow script on the node:vm harness; resolves to the script's return value. */
export async function runVmWorkflow(source: string, options: BaselineRunOptions): Promise<unknown> {
	const { meta, body } = splitHeader(source);
	const queue = createWorkflowQueue({ concurrency: options.concurrency });
	const run = new BaselineRun(options, (task) => queue.run(task));
	run.start(meta);
	const parallel = (thunks: Array<() => unknown>) =>
		Promise.all(
			thunks.map((thunk) =>
				Promise.resolve()
					.then(thunk)
					.catch(() => null),
			),
		);
	const pipeline = (
		items: unknown[],
		...stages: Array<(previous: unknown, item: unknown, index: number) => unknown>
	) =>
		Promise.all(
			items.map(async (item, index) => {
				let previous = item;
				for (const stage of stages) {
					try {
						previous = await stage(previous, item, index);
					} catch {
						return null;
					}
					if (previous === null || previous === undefined) return null;
				}
				return previous;
			}),
		);
	const phase = async (name: string, fn?: () => unknown) => {
		const parent = run.phase;
		run.emit({ type: "phase_start", phase: name, ...(parent ? { parent } : {}) });
		run.phase = name;
		if (!fn) return undefined;
		try {
			return await fn();
		} finally {
			run.emit({ type: "phase_end", phase: name });
			run.phase = parent;
		}
	};
	const log = (message: unknown) => run.emit({ type: "log", level: "info", message: String(message) });
	const globals = {
		agent: (prompt: string, opts?: BaselineAgentOptions) => run.agent(prompt, opts),
		parallel,
		pipeline,
		phase,
		log,
		args: options.args,
	};
	const value = await runInContext(body, createContext(globals), { filename: "workflow.js" });
	run.end(value);
	return value;
}

/** The literal header, evaluated, and the rest of the script wrapped in an async function. */
function splitHeader(source: string): { meta: WorkflowMeta; body: string } {
	const program = parse(source, {
		ecmaVersion: "latest",
		sourceType: "module",
		allowReturnOutsideFunction: true,
		allowAwaitOutsideFunction: true,
	});
	const header = program.body[0] as ExportNamedDeclaration;
	const init = (header.declaration as VariableDeclaration).declarations[0].init;
	if (!init) throw new Error("The script has no `export const meta = {…}` header");
	const meta = runInNewContext(`(${source.slice(init.start, init.end)})`) as WorkflowMeta;
	return { meta, body: `(async () => {${source.slice(header.end)}\n})()` };
}
