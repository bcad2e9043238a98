/**
 * The authoring skill ships as pi loads skills: the package's `pi` manifest names its folder, pi's own loader finds
 * `writing-workflows` there without a diagnostic, the package's `files` carry it, and the `workflow` tool's
 * description points at that file in one line. (test/docs/scripts.test.ts checks every script in it.)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSkillsFromDir } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { AUTHORING_SKILL, workflowToolDescription } from "../../src/tool/description.ts";
import { ROOT } from "./pages.ts";

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
	files: string[];
	pi: { skills?: string[] };
};

describe("the writing-workflows skill", () => {
	it("is found by pi's skill loader through the package's pi manifest", () => {
		const dirs = manifest.pi.skills ?? [];
		expect(dirs).toEqual(["./skills"]);
		const loaded = dirs.map((dir) => loadSkillsFromDir({ dir: join(ROOT, dir), source: "pi-workflows" }));
		expect(loaded.flatMap((result) => result.diagnostics)).toEqual([]);
		const skills = loaded.flatMap((result) => result.skills);
		expect(skills.map((skill) => skill.name)).toEqual(["writing-workflows"]);
		const [skill] = skills;
		expect(skill?.filePath).toBe(AUTHORING_SKILL);
		expect(skill?.disableModelInvocation).toBe(false);
		expect(skill?.description).toMatch(
			/^Write pi-workflows scripts .* Use before writing or fixing a workflow script/,
		);
	});

	it("ships in the package", () => {
		expect(manifest.files).toContain("skills");
	});

	it("the workflow tool's description points at it in one line, by a path that exists", () => {
		const lines = workflowToolDescription([GENERAL_PURPOSE_AGENT]).split("\n");
		const pointers = lines.filter((line) => line.includes("writing-workflows"));
		expect(pointers).toEqual([
			expect.stringMatching(new RegExp(`: ${AUTHORING_SKILL.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`)),
		]);
		expect(existsSync(AUTHORING_SKILL)).toBe(true);
	});
});
