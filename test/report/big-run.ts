/**
 * A 1,000-agent run on the run store, for the report's bench and its test of large runs: three phases (a fan-out
 * of 600, a review of each of those found, one summary), some calls failing and retried, a resume that replays
 * the rest; children are a scripted runner (test/helpers/fake-runner.ts) with short, varied delays, the sandbox is
 * the real QuickJS, the event log the store's own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunStore, type RunRecord, type RunStore } from "../../src/runs/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { runRecordedSession } from "./recorded-session.ts";

/** The script: `scans` scans, a review of each, a summary. */
export function bigRunScript(scans: number): string {
	return `export const meta = { name: "big-audit", description: "A wide fan-out, then a review of each, then a summary" };
phase("scan");
const found = await parallel(Array.from({ length: ${scans} }, (_, i) => () => agent("Scan module " + i + " for deprecated calls", { label: "scan " + i })));
phase("review");
const reviews = await parallel(found.map((f, i) => () => agent("Review the findings of module " + i + ": " + f, { label: "review " + i, retries: 1 })));
phase("summarize");
return await agent("Summarize " + reviews.filter(Boolean).length + " reviews", { label: "summary" });
`;
}

/** The run made, and how to remove it. */
export interface BigRun {
	store: RunStore;
	record: RunRecord;
	calls: number;
	/** Runs the resume (the second session), when `runBigRun` was told not to; once. */
	resume(): Promise<void>;
	dispose(): void;
}

/**
 * Runs `calls` agents (at least 3): the first session with failures, then (unless `resume` is false: then the
 * returned `resume()` does it) a resume.
 */
export async function runBigRun(calls = 1000, options: { resume?: boolean } = {}): Promise<BigRun> {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-big-run-"));
	const scans = Math.ceil((calls - 1) * 0.6);
	const reviews = calls - 1 - scans;
	// Scans beyond `reviews` find nothing to review: slice the list the script reviews.
	const script = bigRunScript(scans).replace("found.map(", `found.slice(0, ${reviews}).map(`);
	const store = createRunStore({ cwd: root, root: join(root, "runs") });
	const record = await store.create({ script, meta: { name: "big-audit", description: "d" } });
	let firstSession = true;
	const fake = createFakeRunner((request) => {
		const n = request.index;
		const delayMs = 1 + ((n * 7) % 9);
		// In the first session every 50th review fails twice (retried, then null), and the summary's caller throws.
		if (firstSession && request.label.startsWith("review") && n % 50 === 0)
			return { fail: `module ${n} timed out`, delayMs };
		if (firstSession && request.label === "summary") return { fail: "summary model overloaded", delayMs };
		return { text: `module ${n}: ${n % 3} deprecated calls`, delayMs, tokens: 200 + (n % 100), costUsd: 0.0004 };
	});
	await runRecordedSession(record, script, 1, { agentRunner: fake.runner, concurrency: 16 });
	const resume = async () => {
		if (!firstSession) return;
		firstSession = false;
		await runRecordedSession(record, script, 2, { agentRunner: fake.runner, concurrency: 16 });
	};
	if (options.resume !== false) await resume();
	return { store, record, calls, resume, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
