import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFolder } from "../helpers/imports.ts";

const { files, importsOf } = sourceFolder("telemetry");

describe("src/telemetry imports", () => {
	it.each(files)(
		"%s: types of runtime, and @opentelemetry/api as types only (its values load with import())",
		(name) => {
			for (const { typeOnly, from } of importsOf(name)) {
				if (from.startsWith("./") || from.startsWith("node:")) continue;
				if (from.startsWith("../runtime/") || from === "@opentelemetry/api") {
					expect(typeOnly, `${name} imports a value from ${from}`).toBe(true);
				} else expect.fail(`${name} imports ${from}, which telemetry/ must not depend on`);
			}
		},
	);

	it("loads @opentelemetry/api only through import(), so a run with no SDK never loads it", () => {
		const source = readFileSync(new URL("../../src/telemetry/api.ts", import.meta.url), "utf8");
		expect(source).toMatch(/import\("@opentelemetry\/api"\)/);
	});
});
