/**
 * Every example dry-run with no model, then run for real with children as pi sessions on the faux provider, each
 * child answering what the dry run made up for its call: the dry run completes with zero tokens, writes nothing in
 * the project, and makes the same agent calls as the real run.
 */
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { dryAgentResult } from "../../src/runtime/dry/answer.ts";
import { createDryAsk, dryTools } from "../../src/runtime/dry/stand-ins.ts";
import {
	dryRunWorkflowScript,
	runWorkflowScript,
	shutdownSchemaWorker,
	type WorkflowAgentRunner,
} from "../../src/runtime/index.ts";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";
import { EXAMPLES_DIR, exampleFiles, exampleSource } from "./harness.ts";

const RUN = "wf-20261203-040000-dry0ex";
/** The tools a command-line host fences in a dry run; the real run gets the same placeholders, so only the children differ. */
const FENCED = ["bash", "read", "grep", "find", "ls", "edit", "write"];

let fx: RunnerFixture;
let repo: TempRepo;
beforeEach(async () => {
	fx = await createRunnerFixture();
	repo = createTempRepo();
	// The project holds the examples (nested workflow() paths resolve from cwd); pi has their agent files.
	cpSync(EXAMPLES_DIR, repo.dir, { recursive: true });
	cpSync(join(EXAMPLES_DIR, "agents"), join(fx.dirs.agentDir, "agents"), { recursive: true });
});
afterEach(() => {
	fx.teardown();
	repo.dispose();
});
afterAll(() => shutdownSchemaWorker());

/** Every file under `dir` but git's own, sorted: what a run wrote shows as a difference. */
function snapshot(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((path) => !path.startsWith(".git"))
		.sort();
}

/** pi children on the faux provider, one at a time, each answering its call's dry answer (submit_result for a schema). */
function fauxRunner(): WorkflowAgentRunner {
	const pi = fx.runner({ cwd: repo.dir, worktreePlace: async () => ({ runId: RUN, dir: repo.runDir }) });
	return (request, context) => {
		const dry = dryAgentResult(request);
		fx.faux.route(
			() => true,
			[
				request.schema
					? fauxAssistantMessage([fauxToolCall("submit_result", dry.structuredOutput as never)], {
							stopReason: "toolUse",
						})
					: fauxAssistantMessage(dry.result ?? ""),
			],
		);
		return pi(request, context);
	};
}

describe.each(exampleFiles())("%s dry-run", (file) => {
	it("completes with no model and zero tokens, writes nothing, and makes the calls a real run makes", async () => {
		const filename = join(repo.dir, file);
		const before = snapshot(repo.dir);
		const { result, plan } = await dryRunWorkflowScript(exampleSource(file), {
			cwd: repo.dir,
			filename,
			fenceTools: FENCED,
		});
		expect(result.status, JSON.stringify(result.error)).toBe("completed");
		expect(result.usage.total).toBe(0);
		expect(result.cost.usd).toBe(0);
		expect(snapshot(repo.dir)).toEqual(before);
		expect(plan.totals.agentCalls).toBe(result.counts.calls);
		expect(result.counts.calls).toBeGreaterThan(0);

		const { tools } = dryTools({}, [], FENCED, repo.dir);
		const labels: string[] = [];
		const real = await runWorkflowScript(exampleSource(file), {
			agentRunner: fauxRunner(),
			cwd: repo.dir,
			filename,
			concurrency: 1,
			...(plan.sampledArgs !== undefined ? { args: plan.sampledArgs } : {}),
			onProgress: (event) => {
				if (event.type === "agent_queued") labels[event.index] = event.label;
			},
			ask: createDryAsk(undefined).ask,
			tools,
		});
		expect(real.status, JSON.stringify(real.error)).toBe("completed");
		expect(real.counts.calls).toBe(result.counts.calls);
		// A dry answer is seeded by the call's key, not by the index it happened to take: the same calls, the same labels.
		expect(plan.calls.map((c) => c.label).sort()).toEqual([...labels].sort());
	}, 120_000);
});
