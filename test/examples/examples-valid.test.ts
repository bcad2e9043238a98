import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseWorkflowSource } from "../../src/runtime/index.ts";
import { EXAMPLES_DIR, exampleFiles, exampleSource } from "./harness.ts";

const files = exampleFiles();

/** Phase names the script starts, with `phase("…")`, or gives a call, with `phase: "…"`. */
function phasesUsed(source: string): string[] {
	const names = [...source.matchAll(/\bphase\(\s*"([^"]+)"|\bphase:\s*"([^"]+)"/g)].map((m) => m[1] ?? m[2] ?? "");
	return [...new Set(names)].sort();
}

describe("examples/workflows/*.js", () => {
	it("has at least eight examples", () => {
		expect(files.length).toBeGreaterThanOrEqual(8);
	});

	describe.each(files)("%s", (file) => {
		const source = exampleSource(file);

		it("passes the workflow tool's own validation, with whenToUse, phases and an object args schema", () => {
			const { meta } = parseWorkflowSource(source, { filename: file });
			expect(meta.name).toBe(file.replace(/\.js$/, ""));
			expect(meta.description.length).toBeGreaterThan(20);
			expect(meta.whenToUse?.length ?? 0).toBeGreaterThan(20);
			expect(meta.phases?.length ?? 0).toBeGreaterThan(1);
			expect(meta.args).toMatchObject({
				type: "object",
				properties: expect.any(Object),
				additionalProperties: false,
			});
		});

		it("starts with a header comment that says what it does, its args and its cost", () => {
			const header = source.slice(0, source.indexOf("export const meta"));
			expect(
				header
					.split("\n")
					.filter(Boolean)
					.every((line) => line.startsWith("// ")),
			).toBe(true);
			expect(header).toMatch(/\/\/ Args: /);
			expect(header).toMatch(/\/\/ Cost: /);
		});

		it("starts exactly the phases its meta declares", () => {
			const { meta } = parseWorkflowSource(source, { filename: file });
			expect(phasesUsed(source)).toEqual((meta.phases ?? []).map((p) => p.title).sort());
		});

		it("uses log() and no clock or randomness", () => {
			expect(source).toMatch(/\blog\(/);
			expect(source).not.toMatch(/Date\.now\(|new Date\(\s*\)|Math\.random\(/);
		});
	});
});

describe("examples/workflows/README.md", () => {
	const readme = readFileSync(join(EXAMPLES_DIR, "README.md"), "utf8");

	it.each(files)("has a table row for %s", (file) => {
		const link = `[\`${file}\`](${file})`;
		expect(readme.split("\n").some((line) => line.startsWith(`| ${link} `))).toBe(true);
	});
});
