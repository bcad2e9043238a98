/** The static pass's list of globals is what the real sandbox's `globalThis` holds: neither can drift. */
import { describe, expect, it } from "vitest";
import { SANDBOX_GLOBALS } from "../../src/authoring/index.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const HEADER = 'export const meta = { name: "t", description: "d" };\n';

describe("the globals the static pass knows", () => {
	it("are exactly the sandbox's own global names", async () => {
		const fake = createFakeRunner();
		// Names only: reading the values through `globalThis[name]` keeps the script free of undeclared names.
		const result = await runWorkflowScript(`${HEADER}return Object.getOwnPropertyNames(globalThis).sort();`, {
			agentRunner: fake.runner,
		});
		expect(result.status).toBe("completed");
		expect(result.value).toEqual([...SANDBOX_GLOBALS].sort());
	});

	it("leave out what SECURITY.md says is gone, and the sandbox really lacks it", async () => {
		for (const gone of ["SharedArrayBuffer", "Atomics", "WebAssembly", "setInterval", "require", "fetch"]) {
			expect(SANDBOX_GLOBALS.has(gone), gone).toBe(false);
		}
		const fake = createFakeRunner();
		const result = await runWorkflowScript(
			`${HEADER}return [typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly, typeof setInterval];`,
			{ agentRunner: fake.runner },
		);
		expect(result.value).toEqual(["undefined", "undefined", "undefined", "undefined"]);
	});
});
