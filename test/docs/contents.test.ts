/**
 * The README stays a front page (at most 400 lines: what it is, set-up, a first script, the map), and every page of
 * docs/ and every skill opens with a table of contents that lists each of its sections.
 */
import { describe, expect, it } from "vitest";
import { docPages, headingAnchor, proseLines, readPage } from "./pages.ts";

describe("the docs' shape", () => {
	it("the README is at most 400 lines", () => {
		expect(readPage("README.md").split("\n").length).toBeLessThanOrEqual(400);
	});

	it.each(docPages().filter((page) => page !== "README.md"))("%s lists every section in its contents", (page) => {
		const lines = proseLines(readPage(page)).map((line) => line.text);
		const sections = lines.flatMap((line) => /^## (.*)$/.exec(line)?.[1] ?? []).filter((h) => h !== "Contents");
		const start = lines.indexOf("## Contents");
		expect(start, "a `## Contents` section").toBeGreaterThanOrEqual(0);
		const end = lines.findIndex((line, i) => i > start && line.startsWith("## "));
		const listed = lines.slice(start, end).flatMap((line) => /^- \[.*\]\(#([^)]+)\)$/.exec(line)?.[1] ?? []);
		expect(listed).toEqual(sections.map((section) => headingAnchor(section)));
	});
});
