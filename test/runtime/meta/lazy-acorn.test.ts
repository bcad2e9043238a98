/**
 * acorn loads on the first parse, not with the core entry: a run parses after it has started its sandbox worker, so
 * acorn then loads while the worker boots on another thread (bench rows 4b and 9).
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("acorn, loaded on first use", () => {
	it("is not loaded by importing the core entry, and is by the first parse", () => {
		const entry = new URL("../../../src/index.ts", import.meta.url).href;
		const probe = `
			import { registerHooks } from "node:module";
			const loaded = [];
			registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
			const acorn = () => loaded.some((url) => /[\\\\/]node_modules[\\\\/]acorn[\\\\/]/.test(url));
			const { parseWorkflowSource } = await import(${JSON.stringify(entry)});
			const atImport = acorn();
			const parsed = parseWorkflowSource('export const meta = { name: "n", description: "d" };\\nreturn 1;');
			process.stdout.write(JSON.stringify({ atImport, afterParse: acorn(), name: parsed.meta.name }));`;
		const out = execFileSync(process.execPath, ["--input-type=module", "--eval", probe], { encoding: "utf8" });
		expect(JSON.parse(out)).toEqual({ atImport: false, afterParse: true, name: "n" });
	});
});
