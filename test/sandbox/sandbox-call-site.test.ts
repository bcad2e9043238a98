import { describe, expect, it } from "vitest";
import { checkLeaks, request, runOnce } from "./support.ts";

checkLeaks();

const reject = { kind: "async" as const, fn: () => Promise.reject(new Error("no luck")) };

describe("HostFunction.callSite", () => {
	it("by default: an async host error surfaces at the guest line of the call", async () => {
		const outcome = await runOnce(request("\n  const x = 1;\n  await host.f();", { f: reject }));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "thrown", message: "no luck", line: 3, column: 15 } });
	});

	it("false: the sandbox sends no stack, so the error has no position until the guest's caller gives it one", async () => {
		const outcome = await runOnce(
			request("\n  const x = 1;\n  await host.f();", { f: { ...reject, callSite: false } }),
		);
		expect(outcome).toMatchObject({ ok: false, error: { kind: "thrown", message: "no luck" } });
		expect(!outcome.ok && outcome.error.line).toBeUndefined();
	});

	it("false: a guest caller that records its own site positions the error there", async () => {
		const relocate =
			'const site = new Error("site"); try { await host.f(); } catch (e) { e.stack = site.stack; throw e; }';
		const outcome = await runOnce(request(`\n\n  ${relocate}`, { f: { ...reject, callSite: false } }));
		expect(outcome).toMatchObject({ ok: false, error: { kind: "thrown", message: "no luck", line: 3, column: 25 } });
	});

	it("throws a TypeError for a callSite that is not a boolean", async () => {
		const bad = { f: { kind: "async" as const, fn: () => 1, callSite: "yes" as unknown as boolean } };
		await expect(runOnce(request("return 1;", bad))).rejects.toThrow(
			"Expected `hostFunctions.f.callSite` to be a boolean, got string",
		);
	});
});
