/**
 * The skill's patterns run as written, not only pass the check: each whole script of it runs through the runtime to
 * a completed result, its children answered without a model as a dry run answers them (a value the call's schema
 * accepts, or a text naming the call), its `tool("bash", …)` steps run by a real shell in a temp folder, its `ask()`
 * answered, its nested workflow a real file. Each also passes a dry run, and a replay test against its own run
 * recorded in a real run store (issue 43: the taught patterns pass their own tools).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testWorkflowAgainstRun } from "../../src/host/replay-test.ts";
import { startDurableRun } from "../../src/host/start-run.ts";
import { createWorkflowProgressTracker } from "../../src/progress/index.ts";
import { dryAgentResult } from "../../src/runtime/dry/answer.ts";
import {
	dryRunWorkflowScript,
	parseWorkflowSource,
	runWorkflowScript,
	type WorkflowResolver,
	type WorkflowTool,
} from "../../src/runtime/index.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { codeBlocks, readPage } from "./pages.ts";

checkSandboxLeaks();

const scripts = codeBlocks(readPage("skills/writing-workflows/SKILL.md"))
	.filter((block) => block.info === "js")
	.map((block) => ({ ...block, name: parseWorkflowSource(block.code).meta.name }));

/** Args for each pattern, by `meta.name`: what a caller would pass. */
const ARGS: Record<string, unknown> = {
	"explain-files": { files: ["a.ts", "b.ts"] },
	"review-files": { files: ["a.ts", "b.ts"] },
	"migrate-files": { files: ["a.ts", "b.ts"] },
	"fix-in-worktrees": { problems: ["add() subtracts", "a typo in the title"] },
	"fix-until-green": { test: "exit 0" },
	"review-then-fix": {},
	"plan-then-apply": { task: "rename the logger" },
	"bounded-research": { question: "Which parser is fastest?" },
	"release-notes-by-area": { areas: ["cli", "runtime"] },
	"grade-review": {
		case: { id: "c1", expect: "off-by-one" },
		output: { findings: ["an off by one in add()"] },
		status: "completed",
		error: null,
		costUsd: 0,
		durationMs: 1,
		runId: null,
	},
};

const CHILD = `export const meta = { name: "changelog-entry", description: "One changelog entry", args: { type: "object" } };
return "entry for " + args.area;`;

const work = mkdtempSync(join(tmpdir(), "pwf-skill-runs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `bash` as a host lends it: the command run by a real shell in the temp folder, its exit code in `details`. */
const bash: WorkflowTool = (params, signal) =>
	new Promise((resolve) => {
		const command = String((params as { command?: unknown }).command ?? "");
		execFile("bash", ["-c", command], { cwd: work, signal }, (error, stdout, stderr) => {
			const exit = error ? (typeof error.code === "number" ? error.code : 1) : 0;
			resolve({ output: `${stdout}${stderr}`, isError: exit !== 0, details: { exit_code: exit } });
		});
	});

const resolveChild: WorkflowResolver = async (nameOrPath) => {
	expect(nameOrPath).toBe("./changelog-entry.js");
	return { source: CHILD, filename: join(work, "changelog-entry.js") };
};

describe("the skill's patterns, run", () => {
	it("has args here for every pattern it shows", () => {
		expect(scripts.map((script) => script.name).sort()).toEqual(Object.keys(ARGS).sort());
	});

	it.each(scripts.map((script) => [script.name, script] as const))(
		"%s runs to a completed result",
		async (name, script) => {
			const asked: string[] = [];
			const result = await runWorkflowScript(script.code, {
				filename: `SKILL.md:${script.line}`,
				cwd: work,
				args: ARGS[name],
				agentRunner: async (request) => dryAgentResult(request),
				tools: { bash },
				ask: (question) => {
					asked.push(question.question);
					return question.choices?.[0];
				},
				resolveWorkflow: resolveChild,
			});
			expect(result.error).toBeUndefined();
			expect(result.status).toBe("completed");
			expect(result.value).not.toBeNull();
			if (name === "plan-then-apply") expect(asked).toEqual([expect.stringMatching(/^Apply this plan\?/)]);
			if (name === "fix-until-green") expect(result.value).toEqual({ green: true, rounds: 0 });
			if (name === "release-notes-by-area") {
				expect(result.value).toEqual([
					{ area: "cli", entry: "entry for cli" },
					{ area: "runtime", entry: "entry for runtime" },
				]);
			}
		},
	);

	it.each(scripts.map((script) => [script.name, script] as const))("%s passes a dry run", async (name, script) => {
		const { plan } = await dryRunWorkflowScript(script.code, {
			filename: `SKILL.md:${script.line}`,
			cwd: work,
			args: ARGS[name] as never,
			tools: { bash },
			resolveWorkflow: resolveChild,
		});
		expect(plan.error).toBeUndefined();
		expect(plan.status).toBe("completed");
	});

	it.each(scripts.map((script) => [script.name, script] as const))(
		"%s passes a replay test against its own recorded run",
		async (name, script) => {
			const runsRoot = join(work, "workflow-runs");
			const filename = join(work, `${name}.js`);
			const start = await startDurableRun({
				cwd: work,
				runsRoot,
				script: () => ({ source: script.code, filename }),
				args: ARGS[name] as never,
			});
			const tracker = createWorkflowProgressTracker();
			const result = await runWorkflowScript(script.code, {
				filename,
				cwd: work,
				args: ARGS[name],
				agentRunner: async (request) => dryAgentResult(request),
				tools: { bash },
				ask: (question) => question.choices?.[0],
				resolveWorkflow: resolveChild,
				...start.runOptions((event) => tracker.updateFromProgressEvent(event)),
			});
			const outcome = await start.finish(result, tracker.complete(result).envelope);
			expect(result.error).toBeUndefined();
			expect(result.status).toBe("completed");
			const report = await testWorkflowAgainstRun({
				source: script.code,
				filename,
				cwd: work,
				runsRoot,
				runId: outcome.runId ?? "",
				resolveWorkflow: resolveChild,
			});
			expect({ divergences: report.divergences, unused: report.unusedRecorded, error: report.error }).toEqual({
				divergences: [],
				unused: [],
				error: undefined,
			});
			expect(report.ok).toBe(true);
		},
	);
});
