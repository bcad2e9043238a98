import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const DIR = new URL("../../src/runs/", import.meta.url);
const files = readdirSync(DIR).filter((name) => name.endsWith(".ts"));

/** Every import statement of a file, as `{ typeOnly, from }`. */
function importsOf(name: string) {
	const source = readFileSync(new URL(name, DIR), "utf8");
	return [...source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)].map((match) => ({
		typeOnly: match[1] !== undefined,
		from: match[2] ?? "",
	}));
}

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
