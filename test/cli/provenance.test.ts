import { describe, expect, it } from "vitest";
import { cliPerson, cliScript, commandLine } from "../../src/cli/provenance.ts";

describe("the CLI's provenance", () => {
	it("relays the command line as typed when a person is at a terminal, words with spaces quoted", () => {
		expect(cliPerson("run", ["review", "--args", '{"focus": "auth"}'], { stdin: { isTTY: true } as never })).toEqual({
			kind: "request",
			text: 'pi-workflows run review --args "{\\"focus\\": \\"auth\\"}"',
			via: "the command line a person typed",
		});
	});

	it("says no person was there when stdin is not a terminal", () => {
		expect(cliPerson("resume", ["wf-1"], {})).toEqual({
			kind: "absent",
			why: "started by `pi-workflows resume wf-1` with no terminal attached",
		});
	});

	it("names a file or a saved workflow as the command did", () => {
		expect(cliScript("./review.js", "/p/review.js")).toEqual({ kind: "file", path: "/p/review.js" });
		expect(cliScript("review", "/p/.pi/workflows/review.js")).toEqual({
			kind: "saved",
			name: "review",
			file: "/p/.pi/workflows/review.js",
		});
		expect(commandLine("run", ["a b"])).toBe('pi-workflows run "a b"');
	});
});
