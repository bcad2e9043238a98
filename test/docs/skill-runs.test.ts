/**
 * The skill's patterns run as written, not only pass the check: each whole script of it runs through the runtime to
 * a completed result, its children answered without a model as a dry run answers them (a value the call's schema
 * accepts, or a text naming the call), its `tool("bash", …)` steps run by a real shell in a temp folder, its `ask()`
 * answered, its nested workflow a real file.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dryAgentResult } from "../../src/runtime/dry/answer.ts";
import { parseWorkflowSource, runWorkflowScript, type WorkflowTool } from "../../src/runtime/index.ts";
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
				resolveWorkflow: async (nameOrPath) => {
					expect(nameOrPath).toBe("./changelog-entry.js");
					return { source: CHILD, filename: join(work, "changelog-entry.js") };
				},
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
});
