import { afterAll, describe, expect, it, vi } from "vitest";
import { isWorkflowError } from "../../src/errors.ts";
import { SchemaSession } from "../../src/runtime/schema/session.ts";
import { SchemaWorker } from "../../src/runtime/schema/worker.ts";
import { patternAnswer, patternSchema } from "../helpers/pattern-schemas.ts";

const MiB = 1024 * 1024;

// A deadline far below what checking 4 × 8 MiB against a pattern costs (seconds), far above a small check.
const worker = new SchemaWorker({ deadlineMs: 250 });
const session = new SchemaSession(worker);
afterAll(async () => {
	session.dispose();
	await worker.shutdown();
});

const LETTERS = {
	type: "object",
	properties: { text: { type: "array", items: { type: "string", pattern: "^(\\p{L}|\\d)+$" } } },
};

describe("SchemaWorker", () => {
	it("past its deadline: stops the check with limit_cpu, and a new worker takes the next job", async () => {
		const compiled = await session.compileAgent(LETTERS);
		const text = "a".repeat(8 * 1024 * 1024);
		const error = await compiled.validate({ text: [text, text, text, text] }).catch((thrown: unknown) => thrown);
		expect(isWorkflowError(error) && { code: error.code, message: error.message }).toEqual({
			code: "limit_cpu",
			message:
				"Checking `output` against `schema` took longer than 250 ms (limit: 250). Ask for a smaller answer, or simplify the schema",
		});
		expect(worker.stats.running).toBe(false);
		// The replacement does not hold the schema yet: it is sent along and compiled again.
		expect(await compiled.validate({ text: ["abc"] })).toEqual({ ok: true, value: { text: ["abc"] } });
		expect(await compiled.validate({ text: ["a-1"] })).toMatchObject({ ok: false });
		expect(worker.stats).toMatchObject({ running: true, held: 1, holds: 1 });
	});

	it("after shutdown: the next job starts a new worker", async () => {
		const compiled = await session.compileAgent({ type: "object", required: ["a"] });
		expect((await compiled.validate({})).ok).toBe(false);
		await worker.shutdown();
		expect(worker.stats.running).toBe(false);
		expect((await compiled.validate({ a: 1 })).ok).toBe(true);
	});

	it("100 distinct pattern-heavy schemas one after another: the worker keeps what fits its budget and never dies", async () => {
		// A 64 MiB heap, which about nine of these schemas (5.7 MiB each) filled before the cache was bounded.
		const small = new SchemaWorker({ heapMb: 64, cacheBytes: 16 * MiB });
		const own = new SchemaSession(small);
		try {
			for (let seed = 0; seed < 100; seed++) {
				const compiled = await own.compileAgent(patternSchema(seed));
				expect((await compiled.validate(patternAnswer(seed))).ok).toBe(true);
				own.release(compiled);
			}
			expect(small.stats.running).toBe(true);
			// The session keeps its last 16 for reuse; the worker only what fits.
			expect(small.stats.held).toBeLessThanOrEqual(2);
			own.dispose();
			await vi.waitFor(() => expect(small.stats).toMatchObject({ held: 0, holds: 0 }));
		} finally {
			await small.shutdown();
		}
	}, 60_000);
});
