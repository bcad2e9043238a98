import { afterAll, describe, expect, it, vi } from "vitest";
import { isWorkflowError } from "../../../src/errors.ts";
import { SchemaWorker } from "../../../src/runtime/schema/schema-worker-host.ts";
import { SchemaSession } from "../../../src/runtime/schema/session.ts";
import { patternAnswer, patternSchema } from "../../helpers/pattern-schemas.ts";

const MiB = 1024 * 1024;

// A deadline far below what checking 4 × 8 MiB against a pattern costs (seconds), far above a small check and above
// a first compile on a loaded machine (at 250 ms, the first compile itself could pass it under load).
const worker = new SchemaWorker({ deadlineMs: 1000 });
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
				"Checking `output` against `schema` took longer than 1000 ms (limit: 1000). Ask for a smaller answer, or simplify the schema",
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
			expect(small.stats).toMatchObject({ running: true, retried: 0 });
			// The session keeps its last 16 for reuse; the worker only what fits.
			expect(small.stats.held).toBeLessThanOrEqual(2);
			own.dispose();
			await vi.waitFor(() => expect(small.stats).toMatchObject({ held: 0, holds: 0 }), { timeout: 30_000 });
		} finally {
			await small.shutdown();
		}
	}, 60_000);

	it("a compile the worker ran out of heap in: tried once more on a fresh worker, which has room", async () => {
		// No budget to speak of: every schema stays compiled until the heap is gone.
		// A deadline a busy machine cannot reach: the heap, not the clock, is what this test is about.
		const unbounded = new SchemaWorker({ heapMb: 64, cacheBytes: 1024 * MiB, deadlineMs: 120_000 });
		const own = new SchemaSession(unbounded);
		try {
			const compiled = [];
			for (let seed = 0; seed < 14; seed++) compiled.push(await own.compileAgent(patternSchema(seed)));
			expect(unbounded.stats.retried).toBeGreaterThanOrEqual(1);
			// What died with the old worker is compiled again when it is next needed.
			expect((await compiled[0].validate(patternAnswer(0))).ok).toBe(true);
			expect((await compiled[13].validate(patternAnswer(13))).ok).toBe(true);
		} finally {
			own.dispose();
			await unbounded.shutdown();
		}
	}, 60_000);

	it("a compile that runs a fresh worker out of heap too: fails with schema_invalid, saying what to change", async () => {
		const tiny = new SchemaWorker({ heapMb: 16, deadlineMs: 120_000 });
		const own = new SchemaSession(tiny);
		try {
			// 60 patterns: about 17 MiB of RE2 programs, more than the whole heap.
			const error = await own.compileAgent(patternSchema(0, 60)).catch((thrown: unknown) => thrown);
			expect(isWorkflowError(error) && { code: error.code, message: error.message }).toEqual({
				code: "schema_invalid",
				message:
					"Compiling `schema` stopped the schema worker twice, the second time on a fresh worker (Worker terminated due to reaching memory limit: JS heap out of memory). Make the schema smaller or simpler: fewer or shorter `pattern`s (a bounded repeat like `{1,64}` compiles to 64 copies of what it repeats), fewer properties, or one call per part",
			});
			expect(tiny.stats).toMatchObject({ retried: 1, holds: 0 });
			// The next schema gets a worker of its own.
			const next = await own.compileAgent({ type: "object", required: ["a"] });
			expect((await next.validate({ a: 1 })).ok).toBe(true);
		} finally {
			own.dispose();
			await tiny.shutdown();
		}
	}, 60_000);
});
