/**
 * A cold process's first run loads acorn (reading and compiling it) in an event-loop turn of its own, apart from the
 * run's start and from the parse, so the host's loop (pi's screen) is not held for all three at once. Read in a fresh
 * process, where acorn is not loaded yet: a callback queued for the next turn when the run starts runs before acorn
 * loads, and the run completes.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("a cold process's first run", () => {
	it("loads acorn in a turn of its own, after the host's loop has turned once", () => {
		const entry = new URL("../../../src/runtime/index.ts", import.meta.url).href;
		const probe = `
			import { createRequire } from "node:module";
			import { runWorkflowScript } from ${JSON.stringify(entry)};
			const require = createRequire(${JSON.stringify(entry)});
			const acornPath = require.resolve("acorn");
			const loaded = () => acornPath in require.cache;
			const seen = { before: loaded() };
			setImmediate(() => { seen.nextTurn = loaded(); });
			const result = await runWorkflowScript('export const meta = { name: "t", description: "t" };\\nreturn 1;', {
				agentRunner: async () => ({ id: "x", type: "general-purpose", status: "completed", result: "" }),
			});
			seen.status = result.status;
			seen.after = loaded();
			console.log(JSON.stringify(seen));
			process.exit(0);
		`;
		const out = execFileSync(process.execPath, ["--input-type=module", "--eval", probe], { encoding: "utf8" });
		expect(JSON.parse(out)).toEqual({ before: false, nextTurn: false, status: "completed", after: true });
	});
});
