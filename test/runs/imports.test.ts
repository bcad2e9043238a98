import { describe, expect, it } from "vitest";
import { sourceFolder } from "../helpers/imports.ts";

const { files, importsOf } = sourceFolder("runs");

describe("src/runs imports", () => {
	it("finds the files it checks", () => {
		expect(files).toEqual(expect.arrayContaining(["store.ts", "journal.ts", "lock.ts", "index.ts"]));
	});

	it.each(files)("%s: only errors.ts, types from runtime, and node: built-ins", (name) => {
		for (const { typeOnly, from } of importsOf(name)) {
			if (from.startsWith("./") || from === "../errors.ts" || from.startsWith("node:")) continue;
			if (from.startsWith("../runtime/")) {
				expect(typeOnly, `${name} imports a value from ${from}`).toBe(true);
			} else {
				expect.fail(`${name} imports ${from}, which runs/ must not depend on`);
			}
		}
	});
});
