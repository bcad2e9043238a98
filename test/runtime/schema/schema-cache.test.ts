import { describe, expect, it } from "vitest";
import { SchemaCompiler } from "../../../src/runtime/schema/ajv.ts";
import { SizedCache } from "../../../src/runtime/schema/cache.ts";
import { checkSchema } from "../../../src/runtime/schema/limits.ts";
import { DFA_KEPT_BYTES, Re2Program } from "../../../src/runtime/schema/re2.ts";
import { patternAnswer, patternSchema } from "../../helpers/pattern-schemas.ts";

const MiB = 1024 * 1024;

function job(schema: unknown) {
	const { copy, key, dialect } = checkSchema(schema, "schema");
	return { key, schema: copy, dialect, name: "schema" };
}

describe("SizedCache", () => {
	const filled = () => {
		const evicted: string[] = [];
		const cache = new SizedCache<string>(100, (key) => evicted.push(key));
		cache.set("a", "A", 40, "used");
		cache.set("b", "B", 40, "idle");
		cache.set("c", "C", 40, "pinned");
		return { cache, evicted };
	};

	it("past its budget: evicts idle entries first, then used ones, oldest first, never a pinned one", () => {
		const { cache, evicted } = filled();
		cache.set("d", "D", 40, "used");
		expect(cache.trim("d")).toEqual(["b", "a"]);
		expect(evicted).toEqual(["b", "a"]);
		expect(cache.bytes).toBe(80);
		cache.set("e", "E", 100, "used");
		// Nothing left to evict but what is kept and what is pinned: over budget, not an endless loop.
		expect(cache.trim("e")).toEqual(["d"]);
		expect([cache.size, cache.bytes]).toEqual([2, 140]);
	});

	it("a use makes an entry the newest; a resize counts", () => {
		const { cache } = filled();
		cache.use("a");
		cache.setState("b", "used");
		cache.resize("c", 10);
		cache.set("d", "D", 40, "used");
		expect(cache.trim("d")).toEqual(["b"]);
		expect(cache.peek("a")).toBe("A");
	});

	it("clear evicts everything", () => {
		const { cache, evicted } = filled();
		cache.clear();
		expect([cache.size, cache.bytes, evicted]).toEqual([0, 0, ["a", "b", "c"]]);
	});
});

describe("SchemaCompiler", () => {
	it("keeps what it compiled within its byte budget, evicting the oldest, and compiles an evicted schema again", () => {
		const compiler = new SchemaCompiler(24 * MiB);
		const jobs = Array.from({ length: 12 }, (_, seed) => job(patternSchema(seed)));
		const evicted: string[] = [];
		for (const [seed, each] of jobs.entries()) {
			compiler.compile(each);
			expect(compiler.validate(each.key, patternAnswer(seed), "output").ok).toBe(true);
			// The host's use ends; it may come back, so the schema is kept while there is room.
			compiler.release(each.key, true);
			evicted.push(...compiler.takeEvicted());
			expect(compiler.bytes).toBeLessThanOrEqual(24 * MiB);
		}
		// About 6.8 MiB each by the estimate: three fit.
		expect(compiler.size).toBe(3);
		expect(evicted).toEqual(jobs.slice(0, 9).map((each) => each.key));
		expect(() => compiler.validate(jobs[0].key, {}, "output")).toThrow(/holds no schema/);
		compiler.compile(jobs[0]);
		expect(compiler.validate(jobs[0].key, { p0: "not it" }, "output").ok).toBe(false);
	});

	it("evicts schemas out of use before those in use", () => {
		const compiler = new SchemaCompiler(16 * MiB);
		const [inUse, idle, next] = [0, 1, 2].map((seed) => job(patternSchema(seed)));
		compiler.compile(inUse);
		compiler.compile(idle);
		compiler.release(idle.key, true);
		compiler.compile(next);
		expect(compiler.takeEvicted()).toEqual([idle.key]);
	});

	it("compiles a pattern shared by schemas once, and drops its program with the last schema that has it", () => {
		const compiler = new SchemaCompiler();
		const first = job(patternSchema(0));
		const { p0, ...others } = patternSchema(1).properties;
		// Same 20 patterns as seed 0 but one: only that one is new.
		const second = job({ type: "object", properties: { ...patternSchema(0).properties, extra: p0 } });
		compiler.compile(first);
		const one = compiler.bytes;
		compiler.compile(second);
		expect(compiler.bytes - one).toBeLessThan(one / 10);
		compiler.release(first.key);
		expect(compiler.bytes).toBeGreaterThan(one);
		compiler.release(second.key);
		// Nothing held: nothing kept either.
		expect([compiler.size, compiler.bytes]).toEqual([0, 0]);
		expect(Object.keys(others)).toHaveLength(19);
	});

	it("a schema that fails to compile holds nothing", () => {
		const compiler = new SchemaCompiler();
		const bad = job({ type: "object", properties: { a: { type: "string", pattern: "^[a-z]{1,5}$" } }, requried: [] });
		expect(() => compiler.compile(bad)).toThrow(/unknown keyword: "requried"/);
		expect(compiler.size).toBe(0);
	});
});

describe("Re2Program", () => {
	it("keeps a small DFA between checks, and drops one a check left past DFA_KEPT_BYTES", () => {
		const program = new Re2Program("[ab]*a[ab]{14}$");
		expect(program.regExp.test("b".repeat(5) + "a".repeat(15))).toBe(true);
		expect(program.bytes).toBeGreaterThan(program.baseBytes);
		let seed = 7;
		const random = () => {
			seed = (seed * 1103515245 + 12345) & 0x7fffffff;
			return seed / 0x7fffffff;
		};
		// Every position starts a new candidate: thousands of DFA states, megabytes by re2js's own count.
		const text = Array.from({ length: 100_000 }, () => (random() < 0.5 ? "a" : "b")).join("");
		program.regExp.test(text);
		expect(program.bytes - program.baseBytes).toBeLessThanOrEqual(DFA_KEPT_BYTES * 1.25);
		expect(program.regExp.test("aaaaaaaaaaaaaaaaaaaaa")).toBe(true);
	});
});
