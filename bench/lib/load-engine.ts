/**
 * Loads one engine on its own, for the rows that measure a fresh process. pi-workflows comes from source or from
 * a built copy; the modules are imported dynamically on purpose, so a process loads only the engine it measures
 * and a built root can be chosen at run time.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { WorkflowAgentRunner } from "../../src/runtime/core/types.ts";
import type * as Runtime from "../../src/runtime/index.ts";
import type * as Sandbox from "../../src/sandbox/index.ts";
import type { EngineName, Workload } from "./engines.ts";

/** One engine, loaded. */
export interface LoadedEngine {
	/** Runs `workload` once with concurrency 8; throws when pi-workflows reports a failed run. */
	run(workload: Workload, runner: WorkflowAgentRunner): Promise<unknown>;
	/** Ends pi-workflows' warm workers (a no-op for the others). */
	close(): Promise<void>;
	/** pi-workflows: starts a pool worker, as the extension does when a pi session starts; resolves once it is ready. */
	warm?(): Promise<void>;
}

/** Loads `engine`; for pi-workflows, `root` is "src" or the directory of a built copy. */
export async function loadEngine(engine: EngineName, root = "src"): Promise<LoadedEngine> {
	if (engine === "pi-workflows") {
		// A built copy is bundled: its core entry index.js is the one file that has both (as an installed copy).
		const built = root === "src" ? undefined : pathToFileURL(`${resolve(root)}/index.js`).href;
		const runtime = (await import(built ?? "../../src/runtime/index.ts")) as typeof Runtime;
		const sandbox = (await import(built ?? "../../src/sandbox/index.ts")) as typeof Sandbox;
		return {
			async run(workload, runner) {
				const result = await runtime.runWorkflowScript(workload.source, { agentRunner: runner, concurrency: 8 });
				if (result.status !== "completed") throw new Error(`run ${result.status}: ${result.error?.message}`);
				return result.value;
			},
			close: () => sandbox.shutdownSandboxPool(),
			// Older revisions (compared with `git worktree`) have no warmSandboxPool, and a built copy's core entry no
			// sandboxStats: their "warm" run is a cold one.
			...(typeof sandbox.warmSandboxPool === "function" && typeof sandbox.sandboxStats === "function"
				? {
						async warm() {
							sandbox.warmSandboxPool();
							while (sandbox.sandboxStats().idleWorkers === 0) await new Promise((done) => setTimeout(done, 5));
						},
					}
				: {}),
		};
	}
	if (engine === "node:vm") {
		const { runVmWorkflow } = await import("../harness/vm-runtime.ts");
		return {
			run: (workload, runner) => runVmWorkflow(workload.source, { runner, concurrency: 8 }),
			close: async () => {},
		};
	}
	const { runPlainWorkflow } = await import("../harness/plain.ts");
	return {
		run: (workload, runner) => runPlainWorkflow(workload.plain, { runner, concurrency: 8 }),
		close: async () => {},
	};
}
