import { describe, expect, it } from "vitest";
import { sourceFolder } from "../helpers/imports.ts";

const { files, importsOf } = sourceFolder("authoring");

describe("src/authoring imports", () => {
	it("finds the files it checks", () => {
		expect(files).toEqual(expect.arrayContaining(["scope.ts", "syntax-errors.ts", "analyze.ts", "index.ts"]));
	});

	// The runtime calls the static pass: a value imported back from runtime/ would make a cycle.
	it.each(files)("%s: only acorn, errors.ts and types from runtime", (name) => {
		for (const { typeOnly, from } of importsOf(name)) {
			if (from.startsWith("./") || from === "../errors.ts" || from === "acorn") continue;
			if (from.startsWith("../runtime/")) {
				expect(typeOnly, `${name} imports a value from ${from}`).toBe(true);
			} else {
				expect.fail(`${name} imports ${from}, which authoring/ must not depend on`);
			}
		}
	});
});
