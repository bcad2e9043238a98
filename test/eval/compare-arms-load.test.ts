/**
 * Importing the core entry does not load jstat (about 30 ms of a cold import, which bench row 9 counts): the first
 * `compareArms` call does. Read in a fresh process, where nothing is loaded yet.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("compareArms in a cold process", () => {
	it("loads jstat on its first call, not when the core entry is imported", () => {
		const entry = new URL("../../src/index.ts", import.meta.url).href;
		const probe = `
			import { createRequire } from "node:module";
			import { compareArms } from ${JSON.stringify(entry)};
			const require = createRequire(${JSON.stringify(entry)});
			const jstatPath = require.resolve("jstat");
			const loaded = () => jstatPath in require.cache;
			const before = loaded();
			const trials = [{ arm: "A", caseId: "c", pass: true }, { arm: "B", caseId: "c", pass: false }];
			const verdict = compareArms({ baseline: "A", trials }).comparisons[0].verdict;
			console.log(JSON.stringify({ before, verdict, after: loaded() }));
		`;
		const out = execFileSync(process.execPath, ["--input-type=module", "--eval", probe], { encoding: "utf8" });
		expect(JSON.parse(out)).toEqual({ before: false, verdict: "no detectable difference", after: true });
	});
});
