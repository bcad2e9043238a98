/**
 * src/report imports: node: built-ins and the project's own rooms (test/layout.test.ts says which), no package at
 * all: the page is drawn as text in Node (no chart library) and the CLI's `report` loads no pi package.
 */
import { describe, expect, it } from "vitest";
import { importGraph, PI_PACKAGES, sourceFolder } from "../helpers/imports.ts";

const { files, importsOf } = sourceFolder("report");

describe("src/report imports", () => {
	it("finds the files it checks", () => {
		expect(files).toEqual(expect.arrayContaining(["model.ts", "html.ts", "text.ts", "index.ts"]));
	});

	it.each(files)("%s: node: built-ins and the project's files only", (name) => {
		for (const { from } of importsOf(name)) {
			if (from.startsWith("./") || from.startsWith("../") || from.startsWith("node:")) continue;
			expect.fail(`${name} imports the package ${from}: the report uses none`);
		}
	});

	it("its graph loads no pi package", () => {
		const graph = importGraph("report/index.ts", { runtimeOnly: true });
		expect([...graph.keys()]).toContain("report/html.ts");
		const offenders = [...graph].flatMap(([file, bare]) =>
			bare.filter((from) => PI_PACKAGES.test(from)).map((from) => `${file} imports ${from}`),
		);
		expect(offenders).toEqual([]);
	});
});
