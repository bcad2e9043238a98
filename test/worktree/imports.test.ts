import { describe, expect, it } from "vitest";
import { sourceFolder } from "../helpers/imports.ts";

const { files, importsOf } = sourceFolder("worktree");

describe("src/worktree imports", () => {
	it("finds the files it checks", () => {
		expect(files).toEqual(
			expect.arrayContaining([
				"worktrees.ts",
				"git.ts",
				"repo-queue.ts",
				"index.ts",
				"remote-workspace.ts",
				"remote-host.ts",
			]),
		);
	});

	it.each(files)("%s: only errors.ts and node: built-ins (no pi, no runtime, no tool)", (name) => {
		for (const { from } of importsOf(name)) {
			if (from.startsWith("./") || from === "../errors.ts" || from.startsWith("node:")) continue;
			expect.fail(`${name} imports ${from}, which worktree/ must not depend on`);
		}
	});
});
