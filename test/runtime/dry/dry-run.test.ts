/**
 * A dry run of a script with a schema fan-out, a pipeline, questions and tool steps, in the real sandbox: the plan's
 * counts, the answers each stand-in gave, and no side effect of any tool but the read-only ones.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_MODEL } from "../../../src/runtime/dry/plan.ts";
import {
	dryRunPlanText,
	dryRunWorkflowScript,
	shutdownSchemaWorker,
	type WorkflowTool,
} from "../../../src/runtime/index.ts";

const SCRIPT = `
export const meta = {
	name: "plan-demo",
	description: "Lists files, reviews each, asks, then fixes",
	phases: [{ title: "find" }, { title: "review" }, { title: "fix" }],
	args: { type: "object", properties: { dir: { type: "string" } }, required: ["dir"] },
};
phase("find");
const listing = await tool("ls", { path: args.dir });
const files = listing.output.split("\\n").filter(Boolean);
phase("review");
const REVIEW = {
	type: "object",
	properties: { severity: { enum: ["low", "high"] }, note: { type: "string", maxLength: 30 } },
	required: ["severity", "note"],
};
const reviews = await parallel(files.map((f) => () => agent("review " + f, { label: "review " + f, schema: REVIEW, agentType: "reviewer", model: "anthropic/claude-haiku" })));
const go = await ask("Fix the high ones?", { choices: ["yes", "no"] });
const style = await ask("Which style?", { default: "terse" });
const who = await ask("Who signs off?");
phase("fix");
const fixed = [];
if (go === "yes") {
	for (const [i, r] of reviews.entries()) {
		if (r.severity !== "high") continue;
		await tool("bash", { command: "touch fixed-" + i });
		fixed.push(await agent("fix " + files[i], { label: "fix " + files[i], isolation: "worktree" }));
	}
}
await tool("write", { path: "out.txt", content: "x" });
return { files, reviews, fixed, style, who };
`;

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "dry-run-"));
	for (const name of ["a.ts", "b.ts", "c.ts", "d.ts"]) writeFileSync(join(dir, name), "x");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
afterAll(() => shutdownSchemaWorker());

/** A real `ls` over the file system, and tools that would change it: a dry run must run only the first. */
function hostTools(ran: string[]): Record<string, WorkflowTool> {
	return {
		ls: async (params) => {
			ran.push("ls");
			const path = (params as { path: string }).path;
			// The dry run hands a read-only tool the real path it checked is inside the project.
			return { output: readdirSync(resolve(dir, path)).sort().join("\n") };
		},
		bash: async () => {
			ran.push("bash");
			return { output: "" };
		},
	};
}

describe("dryRunWorkflowScript", () => {
	it("runs the script with no model: read-only tools run, the rest fenced, questions answered, calls counted", async () => {
		const ran: string[] = [];
		const { result, plan } = await dryRunWorkflowScript(SCRIPT, {
			cwd: dir,
			args: { dir: "." },
			tools: hostTools(ran),
			fenceTools: ["write"],
		});
		expect(result.status).toBe("completed");
		expect(result.usage.total).toBe(0);
		// Once, though its reviews have a schema and the script runs on three draws of them: each draw reads the same.
		expect(ran).toEqual(["ls"]);
		expect(plan.draws?.count).toBe(3);
		expect(readdirSync(dir).sort()).toEqual(["a.ts", "b.ts", "c.ts", "d.ts"]);
		// Four reviews, their severity sampled per call (seeded by its key): the high ones fixed, each after a fenced bash.
		const { reviews } = result.value as { reviews: { severity: string }[] };
		const high = ["a.ts", "b.ts", "c.ts", "d.ts"].filter((_, i) => reviews[i]?.severity === "high");
		// Both branches of the script are taken: some reviews high, some low.
		expect(high.length).toBeGreaterThan(0);
		expect(high.length).toBeLessThan(4);
		const n = high.length;
		expect(plan.phases.map((p) => [p.name, p.agentCalls, p.widestFanOut, p.toolsRun, p.toolsFenced])).toEqual([
			["find", 0, 0, 1, 0],
			["review", 4, 4, 0, 0],
			["fix", n, 1, 0, n + 1],
		]);
		expect(plan.totals).toEqual({
			agentCalls: 4 + n,
			widestFanOut: 4,
			toolsRun: 1,
			toolsFenced: n + 1,
			questions: 3,
			worktreeCalls: n,
		});
		expect(plan.calls.slice(0, 4).map((c) => [c.label, c.agentType, c.model, c.fanOut, c.schema])).toEqual(
			["a.ts", "b.ts", "c.ts", "d.ts"].map((f) => [`review ${f}`, "reviewer", "anthropic/claude-haiku", 4, true]),
		);
		expect(plan.calls.slice(4).map((c) => [c.label, c.phase, c.isolation, c.model, c.fanOut])).toEqual(
			high.map((f) => [`fix ${f}`, "fix", "worktree", undefined, undefined]),
		);
		expect(plan.questions.map((q) => [q.question, q.answer, q.source])).toEqual([
			["Fix the high ones?", "yes", "first choice"],
			["Which style?", "terse", "default"],
			["Who signs off?", "[dry run] answer to question #3", "placeholder"],
		]);
		expect(plan.returns).toMatch(
			new RegExp(
				`^\\{ files: string\\[4\\], reviews: \\{ severity: string, note: string \\}\\[4\\], fixed: string\\[${n}\\]`,
			),
		);
		expect(result.value).toMatchObject({ style: "terse" });
		const text = dryRunPlanText(plan);
		expect(text).toContain("  1. find\n     1 tool step: 1 run (ls), 0 fenced, not run\n");
		const calls = n === 1 ? "1 agent call" : `${n} agent calls`;
		expect(text).toMatch(
			new RegExp(
				`  3\\. fix\\n     at least ${calls}( \\(\\d+–\\d+ over the draws\\))?, widest fan-out at least 1; general-purpose on \\(no model: would use pi's default\\)\\n     ${n + 1} tool steps: 0 run, ${n + 1} fenced, not run \\(bash, write\\)\\n`,
			),
		);
		expect(text).toContain(
			`${n === 1 ? "1 call" : `${n} calls`} with isolation "worktree": a real run gives each a git worktree and branch; this one made none`,
		);
	});

	it("takes given answers by question text or in order", async () => {
		const byText = await dryRunWorkflowScript(SCRIPT, {
			cwd: dir,
			args: { dir: "." },
			tools: hostTools([]),
			fenceTools: ["write"],
			answers: { "Fix the high ones?": "no" },
		});
		expect(byText.plan.args).toBe("given");
		expect(byText.plan.questions[0]).toMatchObject({ answer: "no", source: "given" });
		expect(byText.plan.calls.filter((c) => c.phase === "fix")).toEqual([]);
		const inOrder = await dryRunWorkflowScript(SCRIPT, {
			cwd: dir,
			args: { dir: "." },
			tools: hostTools([]),
			fenceTools: ["write"],
			answers: ["no", "long", "Ann"],
		});
		expect(inOrder.plan.questions.map((q) => [q.answer, q.source])).toEqual([
			["no", "given"],
			["long", "given"],
			["Ann", "given"],
		]);
	});

	it("says what a real run would warn of: the fan-out question and the agent cap", async () => {
		const { plan } = await dryRunWorkflowScript(
			`export const meta = { name: "wide", description: "many at once" };
			const out = await parallel(Array.from({ length: 6 }, (_, i) => () => agent("item " + i)));
			return out.length;`,
			{ cwd: dir, fanOutThreshold: 3, limits: { maxAgentCalls: 5 } },
		);
		expect(plan.warnings).toEqual([
			"`parallel()` would start 6 agents at once, over the fan-out threshold: pi's TUI asks before starting them",
			expect.stringContaining("parallel[5] failed: Agent call limit reached (5)."),
		]);
		expect(plan.totals.agentCalls).toBe(5);
		const text = dryRunPlanText(plan);
		expect(text).toContain("Warnings a real run would give:");
		expect(text).toContain("(no model: would use pi's default)");
	});

	it("samples args from meta.args when none are given, each property with a default taking it", async () => {
		const { result, plan } = await dryRunWorkflowScript(
			`export const meta = { name: "needs-args", description: "reads its args", args: { type: "object", properties: { n: { type: "integer", minimum: 2 }, tag: { enum: ["x", "y"] }, mode: { type: "string", default: "fast" } }, required: ["n", "tag"] } };
			return { n: args.n, tag: args.tag, mode: args.mode };`,
			{ cwd: dir },
		);
		expect(plan.args).toBe("sampled");
		expect(result.value).toEqual({ n: 2, tag: "x", mode: "fast" });
		expect(plan.sampledArgs).toEqual({ n: 2, tag: "x", mode: "fast" });
		expect(dryRunPlanText(plan)).toContain(
			'No args were given: the run used a sample value of the meta.args schema:\n  {"n":2,"tag":"x","mode":"fast"}',
		);
	});
});

describe("sampled args and the script's own defaults", () => {
	it("keeps a nested meta.args default and leaves out the optional args the script reads with a fallback", async () => {
		const { result, plan } = await dryRunWorkflowScript(
			`export const meta = { name: "defaults", description: "reads its args with fallbacks", args: { type: "object", properties: {
	topic: { type: "string" },
	depth: { type: "integer", minimum: 5, maximum: 9 },
	limit: { type: "integer", minimum: 5 },
	style: { type: "string", enum: ["long", "short"] },
	opts: { type: "object", properties: { rounds: { type: "integer", minimum: 1, default: 3 } }, required: ["rounds"] },
}, required: ["topic", "opts"] } };
const depth = args.depth ?? 2;
const { limit = 4 } = args;
return { depth, limit, style: args.style, rounds: args.opts.rounds };`,
			{ cwd: dir },
		);
		expect(plan.args).toBe("sampled");
		// The script's 2 and 4, the schema's 3; an optional property read without a fallback is still sampled.
		expect(result.value).toEqual({ depth: 2, limit: 4, style: "long", rounds: 3 });
		expect(plan.sampledArgs).toEqual({ topic: expect.any(String), style: "long", opts: { rounds: 3 } });
	});
});

describe("the plan's models", () => {
	it("names pi's default model `default`, never an empty string, beside the models calls name", async () => {
		const { plan } = await dryRunWorkflowScript(
			`export const meta = { name: "mixed", description: "d" };
phase("work");
await agent("one");
await agent("two", { model: "anthropic/claude-haiku-4-5" });
return 1;`,
			{},
		);
		expect(plan.phases.map((phase) => phase.models)).toEqual([[DEFAULT_MODEL, "anthropic/claude-haiku-4-5"]]);
		expect(DEFAULT_MODEL).toBe("default");
		expect(dryRunPlanText(plan)).toContain(
			"general-purpose on (no model: would use pi's default), anthropic/claude-haiku-4-5",
		);
	});
});
