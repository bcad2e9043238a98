/**
 * Every corpus script dry-run with no model: it completes (or fails, or is refused, exactly as its manifest entry
 * says), spends no token, writes nothing in the corpus folder, and makes the agent calls a run with a runner that
 * gives the same answers makes (the corpus test's faking runner, here answering what the dry run made up).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dryAgentResult } from "../../src/runtime/dry/answer.ts";
import { createDryAsk, dryTools } from "../../src/runtime/dry/stand-ins.ts";
import { dryRunWorkflowScript, runWorkflowScript, shutdownSchemaWorker } from "../../src/runtime/index.ts";
import { sandboxStats } from "../../src/sandbox/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { CORPUS_DIR, type CorpusEntry, corpusEntries } from "./harness.ts";

/** What a command-line host fences; the comparison run gets the same placeholders. */
const FENCED = ["bash", "read", "grep", "find", "ls", "edit", "write"];
/** The corpus test's run options, so both runs meet the same limits. */
const LIMITS = { maxAgentCalls: 200, memoryBytes: 64 * 1024 * 1024, syncSliceMs: 2000 };

afterAll(() => shutdownSchemaWorker());

function snapshot(): string[] {
	return readdirSync(CORPUS_DIR, { recursive: true, encoding: "utf8" }).sort();
}

describe.each(corpusEntries().map((entry) => [entry.file, entry] as [string, CorpusEntry]))("%s", (_file, entry) => {
	it(`dry-runs to the manifest's outcome (${entry.expected.outcome}) with no model, and makes a real run's calls`, async () => {
		const filename = join(CORPUS_DIR, "scripts", entry.file);
		const source = readFileSync(filename, "utf8");
		const options = {
			cwd: CORPUS_DIR,
			filename,
			concurrency: 4,
			fanOutThreshold: 0,
			limits: LIMITS,
			...(entry.args !== undefined ? { args: entry.args } : {}),
			...(entry.runBudget ? { budget: entry.runBudget } : {}),
			...(entry.session ? { parentConversation: { entries: [], ...entry.session } } : {}),
		};
		const before = snapshot();
		const { result, plan } = await dryRunWorkflowScript(source, { ...options, fenceTools: FENCED });
		expect(snapshot()).toEqual(before);
		expect(result.usage.total).toBe(0);
		const expected = entry.expected;
		if (expected.outcome === "completes") {
			expect(result.status, JSON.stringify(result.error)).toBe("completed");
			expect(result.counts.calls).toBeGreaterThan(0);
		} else {
			expect(result.status).toBe("failed");
			expect(result.error?.message).toContain(expected.message);
		}
		if (expected.outcome === "refused") expect(result.counts.calls).toBe(0);

		const fake = createFakeRunner((request) => {
			const dry = dryAgentResult(request);
			return request.schema ? { structured: dry.structuredOutput } : (dry.result ?? "");
		});
		const real = await runWorkflowScript(source, {
			...options,
			...(plan.sampledArgs !== undefined ? { args: plan.sampledArgs } : {}),
			agentRunner: fake.runner,
			ask: createDryAsk(undefined).ask,
			tools: dryTools({}, [], FENCED, process.cwd()).tools,
		});
		expect(real.status).toBe(result.status);
		expect(real.counts.calls).toBe(result.counts.calls);
		// A script that dies with calls in flight: how many reached the queue before the end is the race's, not the plan's.
		if (expected.outcome === "completes") {
			expect(plan.totals.agentCalls).toBe(new Set(fake.requests.map((r) => r.index)).size);
		}
		const { liveSandboxes, activeRuns } = sandboxStats();
		expect({ liveSandboxes, activeRuns }).toEqual({ liveSandboxes: 0, activeRuns: 0 });
	});
});
