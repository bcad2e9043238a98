/**
 * The skill's reference tables say what the code has: its `agent()` options table names every option the runtime
 * takes (aliases too), and its contents list every section and pattern it has.
 */
import { describe, expect, it } from "vitest";
import { AGENT_OPTION_NAMES } from "../../src/runtime/agent/options.ts";
import { headingAnchor, proseLines, readPage } from "./pages.ts";

const SKILL = "skills/writing-workflows/SKILL.md";
const lines = proseLines(readPage(SKILL)).map((line) => line.text);

/** The lines of the section headed `heading` (up to the next heading of its level or above). */
function section(heading: string): string[] {
	const start = lines.indexOf(heading);
	expect(start, heading).toBeGreaterThanOrEqual(0);
	const level = heading.indexOf(" ");
	const end = lines.findIndex((line, i) => i > start && /^#+ /.test(line) && line.indexOf(" ") <= level);
	return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe("the skill's tables", () => {
	it("the `agent()` options table names every option the runtime takes", () => {
		const table = section("## `agent()` options").filter((line) => line.startsWith("| "));
		const named = new Set(
			table.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1])),
		);
		expect(AGENT_OPTION_NAMES.filter((name) => !named.has(name))).toEqual([]);
	});

	it("the contents list every section and every pattern, in order", () => {
		const contents = section("## Contents").flatMap((line) => /^\s*- \[.*\]\(#([^)]+)\)$/.exec(line)?.[1] ?? []);
		const headings = lines
			.filter((line) => /^#{2,3} /.test(line) && line !== "## Contents")
			.map((line) => headingAnchor(line.replace(/^#+ /, "")));
		expect(contents).toEqual(headings);
	});
});
