/**
 * `npm run build` produces dist/, and a plain Node program can `import { runWorkflowScript } from "pi-workflows"`
 * and run a workflow from it (the package resolves itself by name through `exports`).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GUEST_FILES } from "../../src/runtime/run/globals.ts";
import { runCommand } from "../helpers/spawn.ts";

const root = join(import.meta.dirname, "..", "..");

const PROGRAM = `
import { runWorkflowScript } from "pi-workflows";
const source = \`export const meta = { name: "from-dist", description: "plain Node" };
phase("fan-out");
return await parallel(["a", "b"].map((x) => () => agent("echo " + new URL(x, "https://h/").pathname.slice(1))));\`;
const result = await runWorkflowScript(source, {
	agentRunner: async (request) => ({ id: request.key, type: request.agentType, status: "completed", result: request.prompt.toUpperCase() }),
});
// A schema call compiles and validates in the schema worker, started from dist/; idle, it lets the program exit.
const schemaSource = \`export const meta = { name: "schema-from-dist", description: "plain Node" };
return await agent("count", { schema: { type: "object", properties: { id: { type: "string", pattern: "^a+$" } } } });\`;
const schemaResult = await runWorkflowScript(schemaSource, {
	agentRunner: async (request) => ({ id: request.key, type: request.agentType, status: "completed", structuredOutput: { id: "aaa" } }),
});
console.log(JSON.stringify({ status: result.status, value: result.value, schema: schemaResult.value ?? schemaResult.error, entry: import.meta.resolve("pi-workflows") }));
`;

describe("the built package", () => {
	it("builds to dist/ and runs a workflow when imported by name from a plain Node program", async () => {
		const build = await runCommand("npm", ["run", "build"], { cwd: root });
		expect(build.code, build.stdout + build.stderr).toBe(0);
		expect(existsSync(join(root, "dist", "sandbox", "worker.js"))).toBe(true);
		for (const file of GUEST_FILES) expect(existsSync(join(root, "dist", "runtime", "guest", file)), file).toBe(true);
		expect(existsSync(join(root, "dist", "runtime", "schema", "worker-entry.js"))).toBe(true);

		const program = await runCommand(process.execPath, ["--input-type=module", "-e", PROGRAM], { cwd: root });
		expect(program.code, program.stderr).toBe(0);
		expect(JSON.parse(program.stdout)).toEqual({
			status: "completed",
			value: ["ECHO A", "ECHO B"],
			schema: { id: "aaa" },
			entry: `file://${join(root, "dist", "index.js")}`,
		});
	}, 120_000);

	it("a copy of dist/ without the package.json beside it (a bundler's, the bench's) still imports and runs", async () => {
		const build = await runCommand("npm", ["run", "build"], { cwd: root });
		expect(build.code, build.stdout + build.stderr).toBe(0);
		// Inside the repository, so the copy finds the dependencies in its node_modules as dist/ does.
		mkdirSync(join(root, "node_modules", ".cache"), { recursive: true });
		const copy = mkdtempSync(join(root, "node_modules", ".cache", "dist-copy-"));
		try {
			cpSync(join(root, "dist"), join(copy, "dist"), { recursive: true });
			const entry = join(copy, "dist", "index.js");
			const program = await runCommand(
				process.execPath,
				["--input-type=module", "-e", PROGRAM.replace('from "pi-workflows"', `from ${JSON.stringify(entry)}`)],
				{ cwd: root },
			);
			expect(program.code, program.stderr).toBe(0);
			expect(JSON.parse(program.stdout)).toMatchObject({ status: "completed", value: ["ECHO A", "ECHO B"] });
		} finally {
			rmSync(copy, { recursive: true, force: true });
		}
	}, 120_000);
});
