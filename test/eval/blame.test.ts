/**
 * Blame by replay (issue 45): real runs of a three-call workflow on pi sessions with the faux provider, some with a
 * planted bad answer, blamed against a passing run of the same args. Blame replays in the real QuickJS and grades
 * with the grader script; no child starts (the faux sees no request) and the run records stay as they were.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blameRun } from "../../src/eval/blame/index.ts";
import type { ScriptFile } from "../../src/eval/spec.ts";
import { type AgentDirs, createAgentDirs } from "../agents/agent-files.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { GRADER, recordTrialRun, WORKFLOW } from "./blame-fixture.ts";

checkSandboxLeaks();

const CALLS = ["research", "draft", "check"] as const;

let faux: FauxHarness;
let dirs: AgentDirs;
/** The calls whose next answers are bad (set before each recorded run). */
let planted = new Set<string>();
let badCount = 0;

function reply(call: string, good: (task: string) => string) {
	return (request: { task: string }) =>
		fauxAssistantMessage(planted.has(call) ? `BAD ${call} #${++badCount}` : good(request.task));
}

beforeAll(async () => {
	faux = await createFauxHarness();
	dirs = createAgentDirs();
	const many = <T>(make: () => T) => Array.from({ length: 400 }, make);
	faux.route(
		/^research /,
		many(() => reply("research", (task) => `notes on ${task.slice(9)}`)),
	);
	faux.route(
		/^draft /,
		many(() => reply("draft", (task) => `a draft of ${task.split(" ")[1]}`)),
	);
	faux.route(
		/^check /,
		many(() => reply("check", () => "ok")),
	);
	faux.route(
		/^recheck /,
		many(() => fauxAssistantMessage("rechecked")),
	);
	faux.route(
		/^polish /,
		many(() => fauxAssistantMessage("polished")),
	);
});
afterAll(() => {
	faux.dispose();
	dirs.dispose();
});

const workflow: ScriptFile = { source: WORKFLOW, filename: "write.js" };
const grader: ScriptFile = { source: GRADER, filename: "grade.js" };

/** One recorded run of the workflow on `topic`, with `bad` calls answered badly; its run id. */
async function record(topic: string, bad: readonly string[], script = workflow): Promise<string> {
	planted = new Set(bad);
	const { runId, result } = await recordTrialRun(dirs, faux, script, topic);
	planted = new Set();
	expect(result.status).toBe("completed");
	return runId;
}

/** Every file of the run store with its content's hash: the records before and after blame. */
function runStoreHashes(): Record<string, string> {
	const root = join(dirs.agentDir, "workflow-runs");
	const hashes: Record<string, string> = {};
	const walk = (dir: string) => {
		for (const name of readdirSync(dir)) {
			const path = join(dir, name);
			if (statSync(path).isDirectory()) walk(path);
			else hashes[path] = createHash("sha256").update(readFileSync(path)).digest("hex");
		}
	};
	walk(root);
	return hashes;
}

const blameOptions = () => ({ cwd: dirs.cwd, runsRoot: join(dirs.agentDir, "workflow-runs"), grader });

describe("blameRun", () => {
	it("names the planted call decisive and no other, over 21 planted failures, with no child started", async () => {
		const pairs: { failed: string; passing: string; plantedCall: string }[] = [];
		for (let n = 0; n < 21; n++) {
			const topic = `topic${n}`;
			const plantedCall = CALLS[n % 3] as string;
			const failed = await record(topic, [plantedCall]);
			const passing = await record(topic, []);
			pairs.push({ failed, passing, plantedCall });
		}
		const before = runStoreHashes();
		const requests = faux.requests.length;
		let named = 0;
		let onlyPlanted = 0;
		for (const { failed, passing, plantedCall } of pairs) {
			const blame = await blameRun({ ...blameOptions(), failedRunId: failed, with: passing });
			expect(blame.failedGrade.pass).toBe(false);
			expect(blame.calls.map((call) => call.label)).toEqual(["research", "draft", "check"]);
			const decisive = blame.calls.filter((call) => call.effect === "decisive").map((call) => call.label);
			if (decisive.includes(plantedCall)) named++;
			if (decisive.every((label) => label === plantedCall)) onlyPlanted++;
			if (plantedCall === "research") {
				// Swapping the notes changed both later prompts: they were answered from the passing run by key.
				const research = blame.calls[0];
				expect(research?.match).toBe("key");
				expect(research?.answers).toMatchObject({ passingByKey: 2 });
			}
		}
		expect(named / pairs.length).toBeGreaterThanOrEqual(0.9);
		expect(onlyPlanted / pairs.length).toBeGreaterThanOrEqual(0.9);
		expect(faux.requests.length).toBe(requests);
		expect(runStoreHashes()).toEqual(before);
	}, 300_000);

	it("finds a planted pair (either bad answer fails the run) by the pair search", async () => {
		const failed = await record("pair", ["draft", "check"]);
		const passing = await record("pair", []);
		const requests = faux.requests.length;
		const blame = await blameRun({ ...blameOptions(), failedRunId: failed, with: passing });
		expect(blame.calls.map((call) => [call.label, call.effect])).toEqual([
			["research", "not decisive"],
			["draft", "not decisive"],
			["check", "not decisive"],
		]);
		expect(blame.pairs?.decisive).toEqual([["draft", "check"]]);
		expect(faux.requests.length).toBe(requests);
	}, 120_000);

	it("says why a call is not testable: the passing run made no such call; its swap led to a call neither run made", async () => {
		const branching: ScriptFile = {
			filename: "branching.js",
			source: `export const meta = { name: "branching", description: "calls that depend on answers" };
const notes = await agent("research " + args.topic, { label: "research" });
if (notes.includes("BAD")) await agent("recheck " + args.topic, { label: "recheck" });
const draft = await agent("draft " + args.topic + " from: " + notes, { label: "draft" });
if (!draft.includes("BAD")) await agent("polish " + draft + " with " + notes, { label: "polish" });
const verdict = await agent("check " + args.topic + " against: " + notes, { label: "check" });
return { notes, draft, verdict };
`,
		};
		const failed = await record("branching", ["research", "draft"], branching);
		const passing = await record("branching", [], branching);
		const blame = await blameRun({ ...blameOptions(), failedRunId: failed, with: passing });
		expect(blame.calls.map((call) => [call.label, call.effect, call.why])).toEqual([
			["research", "decisive", "swapping its answer passes (good)"],
			["recheck", "not testable", "the passing run made no call `recheck` to take an answer from"],
			["draft", "not testable", "the replay diverged to a call neither run made: `polish`"],
			["check", "not decisive", "the same answer in both runs"],
		]);
		expect(blame.calls[2]?.match).toBe("label");
	}, 60_000);

	it("refuses two runs of different args, saying what differs and what to pass", async () => {
		const failed = await record("one", ["draft"]);
		const passing = await record("two", []);
		await expect(blameRun({ ...blameOptions(), failedRunId: failed, with: passing })).rejects.toMatchObject({
			code: "blame_runs_differ",
			message: `Runs ${failed} and ${passing} differ in args ({"topic":"one"} and {"topic":"two"}): blame swaps answers between runs of the same workflow and args. Pass --with a passing run of the same case`,
		});
	}, 60_000);
});
