/**
 * The heavy hostile cases, at the default limits: memory bombs against the full 256 MiB, 40,000-deep values,
 * a slice stuck in native code, a million pending promises, and floods of hundreds of thousands of host calls.
 * Seconds each, so they run in `npm run test:hostile` (HOSTILE_HEAVY=1), not in `npm test`.
 */
import { describe, expect, it } from "vitest";
import { shutdownSandboxPool } from "../../../src/sandbox/index.ts";
import { beside, checkCase, guardHost, type HostileCase } from "../support.ts";

const heavy = process.env.HOSTILE_HEAVY === "1";

guardHost();

const OOM = "The script ran out of memory (limit: 256 MiB). Use less memory or raise `limits.memoryBytes`";
const MiB = 1024 * 1024;

const MEMORY: HostileCase[] = [
	[
		"a growing array",
		`const a = [];\nfor (;;) a.push("x".repeat(1000) + a.length);`,
		{ code: "limit_memory", message: OOM },
	],
	[
		"an object with ever more keys",
		`const o = {};\nfor (let i = 0; ; i++) o["k" + i] = [i];`,
		{ code: "limit_memory", message: OOM },
	],
	[
		"a 300 MiB typed array",
		"return new Uint8Array(300 * 1024 * 1024).length;",
		{ code: "limit_memory", message: OOM },
	],
	["a 300 MiB string", `return "x".repeat(300 * 1024 * 1024).length;`, { code: "limit_memory", message: OOM }],
	[
		"an out-of-memory error caught and retried 3 times at the full cap",
		"let n = 0;\nfor (let i = 0; i < 3; i++) { try { const a = []; for (;;) a.push(new Array(1000).fill(i)); } catch (e) { n++; } }\nreturn n;",
		{ value: 3 },
	],
	[
		"a million pending promises kept alive",
		"const ps = [];\nfor (let i = 0; i < 1e6; i++) ps.push(new Promise(() => {}));\nreturn ps.length;",
		{ value: 1_000_000 },
	],
	[
		// Two million, not one: a million sat at the cap, and reached it or not with the checkout's path length.
		"awaiting two million promises at once (Promise.all's own bookkeeping reaches the cap)",
		"const ps = [];\nfor (let i = 0; i < 2e6; i++) ps.push(new Promise(() => {}));\nawait Promise.all(ps);",
		{ code: "limit_memory", message: OOM },
	],
];

const DEEP: HostileCase[] = [
	[
		"a 40,000-deep JSON value returned",
		`return JSON.parse("[".repeat(40000) + "]".repeat(40000));`,
		{ code: "value_not_json", message: "`result[0][0][0][0][0][0][0][0][0][0][0][0]…(976 more levels)…" },
	],
	[
		"a 40,000-deep JSON value logged",
		`log("deep", JSON.parse("[".repeat(40000) + "]".repeat(40000)));`,
		{ code: "value_not_json", message: "is nested more than 1000 levels deep" },
	],
	[
		"JSON.stringify of a 200,000-deep value (native, quadratic, never polls the interrupt handler)",
		"let v = [];\nfor (let i = 0; i < 200000; i++) v = [v];\nJSON.stringify(v);",
		{ code: "limit_cpu", message: "(limit: 500 ms)" },
		{ limits: { syncSliceMs: 500 } },
	],
];

const FLOODS: HostileCase[] = [
	[
		"200,000 log() calls",
		`for (let i = 0; i < 200000; i++) { log("n" + i); if (i % 10000 === 0) await sleep(0); }\nreturn budget.logs;`,
		{ value: { used: 1000, limit: 1000, dropped: 199_000 } },
	],
	[
		"20,000 agent() calls past the default cap of 1,000",
		`const ps = [];\nfor (let i = 0; i < 20000; i++) ps.push(agent("x" + i).catch((e) => e.code));\nconst r = await Promise.all(ps);\nreturn r.filter((x) => x === "agent_cap_reached").length;`,
		{ value: 19_000 },
	],
	[
		"100 sleep() calls with a 1 MB argument each, all at once",
		`const s = "x".repeat(1024 * 1024);\nconst r = await Promise.all(Array.from({ length: 100 }, () => sleep(s).catch((e) => e.message.length)));\nreturn r.length;`,
		{ value: 100 },
	],
	[
		"10 agent() calls with 1 MB prompts, all at once",
		`const s = "x y ".repeat(256 * 1024);\nconst r = await Promise.all(Array.from({ length: 10 }, (_, i) => agent(i + s)));\nreturn r.length;`,
		{ value: 10 },
		{ answer: () => "ok" },
	],
	[
		"100 log() calls with 1 MB of data each, never awaiting",
		`const s = "x".repeat(1024 * 1024);\nfor (let i = 0; i < 100; i++) log("big", s);\nreturn budget.logs.used;`,
		{ value: 100 },
	],
];

describe.runIf(heavy)("heavy resource bombs at the default limits", () => {
	it.each(MEMORY)("memory: %s", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});

	it.each(DEEP)("depth: %s", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});

	it.each(FLOODS)("flood: %s", async (_name, script, expectation, options) => {
		await checkCase(script, expectation, options);
	});

	it("a full-size memory bomb beside a normal workflow leaves it unaffected", async () => {
		const [, script, expectation] = MEMORY[0] as HostileCase;
		await beside(() => checkCase(script, expectation));
	});

	it("gives the memory back: after five full-size bombs and the pool's shutdown, the host holds no more than before", async () => {
		await shutdownSandboxPool();
		const before = process.memoryUsage().rss;
		for (let i = 0; i < 5; i++) await checkCase(MEMORY[i % 2]?.[1] as string, { code: "limit_memory", message: OOM });
		await shutdownSandboxPool();
		const grown = (process.memoryUsage().rss - before) / MiB;
		expect(grown, `the host's memory grew by ${Math.round(grown)} MiB`).toBeLessThan(128);
	});
});
