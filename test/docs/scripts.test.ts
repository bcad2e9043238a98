/**
 * Every workflow script the README, docs/ and the shipped skill show passes the static check as written. A block
 * that is not a whole script says so in its info string: `js fragment` (a piece of a script) or `js host` (Node code
 * of a host, not a workflow script); those are skipped, and only those.
 */
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../src/authoring/index.ts";
import { checkWorkflowScript } from "../../src/runtime/index.ts";
import { codeBlocks, docPages, readPage } from "./pages.ts";

const SKIPPED = new Set(["js fragment", "js host"]);

const blocks = docPages().flatMap((page) =>
	codeBlocks(readPage(page))
		.filter((block) => block.info === "js" || block.info.startsWith("js "))
		.map((block) => ({ page, ...block })),
);
const scripts = blocks.filter((block) => block.info === "js");

describe("workflow scripts in the docs", () => {
	it("every js block is a whole script or marked as a fragment or host code", () => {
		const unmarked = blocks.filter((block) => block.info !== "js" && !SKIPPED.has(block.info));
		expect(unmarked.map((block) => `${block.page}:${block.line} \`${block.info}\``)).toEqual([]);
	});

	it("the skill shows a whole script for each of its patterns", () => {
		const skill = scripts.filter((block) => block.page.startsWith("skills/"));
		expect(skill.length).toBeGreaterThanOrEqual(8);
	});

	it.each(scripts.map((block) => [`${block.page}:${block.line}`, block] as const))(
		"%s passes the check",
		(_, block) => {
			const report = checkWorkflowScript(block.code, { filename: `${block.page}:${block.line}` });
			expect(report.diagnostics.map((diagnostic) => formatDiagnostic(diagnostic))).toEqual([]);
			expect(report.ok).toBe(true);
		},
	);
});
