/**
 * docs/errors.md has one row per error code of `src/errors.ts`, no other, each with the code's stage, when it
 * happens and what to do.
 */
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/errors.ts";
import { proseLines, readPage } from "./pages.ts";

/** The rows of the page's code table: `| \`code\` | stage | when | fix |`. */
function rows(): { code: string; stage: string; when: string; fix: string }[] {
	return proseLines(readPage("docs/errors.md")).flatMap(({ text }) => {
		const cells = /^\| `([a-z_]+)` \|(.*)\|$/.exec(text);
		if (!cells) return [];
		const [stage = "", when = "", fix = ""] = (cells[2] ?? "").split(" | ").map((cell) => cell.trim());
		return [{ code: cells[1] ?? "", stage, when, fix }];
	});
}

describe("docs/errors.md", () => {
	const table = rows();

	it("has a row for every code of src/errors.ts, and for no other", () => {
		expect(table.map((row) => row.code).sort()).toEqual(Object.keys(ERROR_CODES).sort());
	});

	it("gives each code its stage, as src/errors.ts has it", () => {
		const stages = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, facts]) => [code, facts.stage]));
		expect(Object.fromEntries(table.map((row) => [row.code, row.stage]))).toEqual(stages);
	});

	it("says when each happens and what to do", () => {
		const empty = table.filter((row) => row.when.length < 10 || row.fix.length < 10).map((row) => row.code);
		expect(empty).toEqual([]);
	});
});
