/**
 * Every relative link of the README, docs/ and the shipped skill resolves: to a file or folder of the repository,
 * and, when it names an anchor, to a heading of that page.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { docPages, pageAnchors, ROOT, readPage, relativeLinks } from "./pages.ts";

/** `page:line target: why` for each link of `page` that does not resolve. */
function brokenLinks(page: string): string[] {
	const broken: string[] = [];
	for (const { target, line } of relativeLinks(readPage(page))) {
		const [path = "", anchor] = target.split("#");
		const file = path === "" ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
		const where = `${page}:${line} ${target}`;
		if (relative(ROOT, file).startsWith("..")) broken.push(`${where}: outside the repository`);
		else if (!existsSync(file)) broken.push(`${where}: no such file`);
		else if (anchor !== undefined && statSync(file).isFile() && file.endsWith(".md")) {
			if (!pageAnchors(readPage(relative(ROOT, file))).has(anchor)) broken.push(`${where}: no such heading`);
		}
	}
	return broken;
}

describe("links in the docs", () => {
	it.each(docPages())("%s: every relative link resolves", (page) => {
		expect(brokenLinks(page)).toEqual([]);
	});

	it("a link to a missing file or heading is found", () => {
		const anchors = pageAnchors("# Title\n\n## A `code` heading: with, punctuation\n\n```\n## not a heading\n```\n");
		expect([...anchors]).toEqual(["title", "a-code-heading-with-punctuation"]);
		expect(relativeLinks("[a](docs/nowhere.md) `[b](x.md)` [c](https://example.com)\n")).toEqual([
			{ target: "docs/nowhere.md", line: 1 },
		]);
	});

	it("every page of docs/ and every skill is reachable from the README", () => {
		const reached = new Set<string>();
		const queue = ["README.md"];
		while (queue.length > 0) {
			const page = queue.pop() as string;
			if (reached.has(page)) continue;
			reached.add(page);
			for (const { target } of relativeLinks(readPage(page))) {
				const path = target.split("#")[0] ?? "";
				const next = relative(ROOT, join(ROOT, dirname(page), path));
				if (path.endsWith(".md") && docPages().includes(next)) queue.push(next);
			}
		}
		expect(docPages().filter((page) => !reached.has(page))).toEqual([]);
	});
});
