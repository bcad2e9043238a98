import { describe, expect, it } from "vitest";
import { sourceFolder } from "../helpers/imports.ts";

const { files, importsOf } = sourceFolder("progress");

describe("src/progress imports", () => {
	it("finds the files it checks", () => {
		expect(files).toEqual(expect.arrayContaining(["tracker.ts", "widget.ts", "ui.ts", "index.ts"]));
	});

	it.each(files)("%s: only types from runtime and errors, pi only in widget.ts and ui.ts, nothing else", (name) => {
		for (const { typeOnly, from } of importsOf(name)) {
			if (from.startsWith("./")) continue;
			if (from.startsWith("../runtime/") || from === "../errors.ts") {
				expect(typeOnly, `${name} imports a value from ${from}`).toBe(true);
			} else if (from === "@earendil-works/pi-tui") {
				expect(["widget.ts", "ui.ts"], `${name} imports pi-tui`).toContain(name);
			} else if (from === "@earendil-works/pi-coding-agent") {
				expect(["widget.ts", "ui.ts"], `${name} imports pi-coding-agent`).toContain(name);
				expect(typeOnly, `${name} imports a value from pi-coding-agent`).toBe(true);
			} else {
				expect.fail(`${name} imports ${from}, which progress/ must not depend on`);
			}
		}
	});
});
