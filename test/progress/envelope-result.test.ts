import { describe, expect, it } from "vitest";
import {
	createWorkflowProgressTracker,
	toJsonSafe,
	type WorkflowProgressEnvelope,
	workflowProgressResult,
} from "../../src/progress/index.ts";
import { eventBuilder, META, T0 } from "./event-builder.ts";

function endedEnvelope(result: unknown): WorkflowProgressEnvelope {
	const tracker = createWorkflowProgressTracker({ initialMeta: META, now: () => T0 });
	return { ...tracker.getEnvelope("completed"), result };
}

describe("toJsonSafe", () => {
	class Point {
		x = 1;
		y = 2;
	}
	const cyclic: Record<string, unknown> = { name: "loop" };
	cyclic.self = cyclic;
	const shared = { n: 1 };

	it.each([
		["a function", () => 1, { unsupported: true, type: "function" }],
		["a named function", function build() {}, { unsupported: true, type: "function", value: "build" }],
		["a BigInt", 12345678901234567890n, { unsupported: true, type: "bigint", value: "12345678901234567890" }],
		["a symbol", Symbol("tag"), { unsupported: true, type: "symbol", value: "tag" }],
		["undefined", undefined, { unsupported: true, type: "undefined" }],
		[
			"a Date",
			new Date(Date.UTC(2024, 0, 2)),
			{ unsupported: true, type: "Date", value: "2024-01-02T00:00:00.000Z" },
		],
		["an invalid Date", new Date(Number.NaN), { unsupported: true, type: "Date", value: "Invalid Date" }],
		[
			"a Map",
			new Map<unknown, unknown>([
				["a", 1],
				[2, undefined],
			]),
			{
				unsupported: true,
				type: "Map",
				value: [
					["a", 1],
					[2, { unsupported: true, type: "undefined" }],
				],
			},
		],
		["a Set", new Set([1, "x"]), { unsupported: true, type: "Set", value: [1, "x"] }],
		["NaN", Number.NaN, { unsupported: true, type: "number", value: "NaN" }],
		["Infinity", Number.POSITIVE_INFINITY, { unsupported: true, type: "number", value: "Infinity" }],
		["an Error", new TypeError("bad"), { unsupported: true, type: "TypeError", value: "bad" }],
		["a RegExp", /a+b/g, { unsupported: true, type: "RegExp", value: "/a+b/g" }],
		["a typed array", new Uint8Array(2), { unsupported: true, type: "Uint8Array" }],
		["a Promise", Promise.resolve(1), { unsupported: true, type: "Promise" }],
		["a class instance", new Point(), { unsupported: true, type: "Point", value: { x: 1, y: 2 } }],
		["a cycle", cyclic, { name: "loop", self: { unsupported: true, type: "cycle", value: "$" } }],
	])("%s becomes a marker", (_name, value, expected) => {
		const safe = toJsonSafe(value);
		expect(safe).toEqual(expected);
		expect(JSON.parse(JSON.stringify(safe))).toEqual(safe);
	});

	it("keeps plain JSON data as it is, copies shared references, and marks holes and undefined fields", () => {
		const holey: unknown[] = [];
		holey[1] = 1;
		const value = { a: [1, "two", true, null, { b: shared }], c: shared, d: undefined, e: holey };
		expect(toJsonSafe(value)).toEqual({
			a: [1, "two", true, null, { b: { n: 1 } }],
			c: { n: 1 },
			d: { unsupported: true, type: "undefined" },
			e: [{ unsupported: true, type: "undefined" }, 1],
		});
	});

	it("names the path a nested cycle points back to", () => {
		const root: Record<string, unknown> = { list: [{}] };
		(root.list as Array<Record<string, unknown>>)[0] = { up: root.list };
		expect(toJsonSafe(root)).toEqual({ list: [{ up: { unsupported: true, type: "cycle", value: "$.list" } }] });
	});

	it("a key named __proto__ stays an own property and does not change the prototype", () => {
		const value = JSON.parse('{"__proto__": {"polluted": true}}');
		const safe = toJsonSafe(value) as Record<string, unknown>;
		expect(Object.getPrototypeOf(safe)).toBe(Object.prototype);
		expect(Object.hasOwn(safe, "__proto__")).toBe(true);
		expect(JSON.stringify(safe)).toBe('{"__proto__":{"polluted":true}}');
	});

	it("a getter that throws becomes a marker instead of an exception", () => {
		const value = Object.defineProperty({}, "boom", {
			enumerable: true,
			get() {
				throw new Error("no");
			},
		});
		expect(toJsonSafe(value)).toEqual({ boom: { unsupported: true, type: "throwing getter", value: "no" } });
	});

	it("very deep nesting stops with a depth marker", () => {
		let deep: unknown = 1;
		for (let i = 0; i < 500; i++) deep = [deep];
		expect(JSON.stringify(toJsonSafe(deep))).toContain('"type":"depth"');
	});
});

describe("workflowProgressResult", () => {
	it("gives pi's tool-result shape: text content for the model and JSON-safe details", () => {
		const result = workflowProgressResult(endedEnvelope({ when: new Date(0), n: 10n, ok: true }), "Workflow done");
		expect(result.content).toHaveLength(1);
		expect(result.content[0]?.type).toBe("text");
		expect(result.content[0]?.text).toMatch(/^Workflow done\n\nResult:\n\{\n {2}"when": \{/);
		expect(result.details.summary).toBe("Workflow done");
		expect(result.details.envelope.result).toEqual({
			when: { unsupported: true, type: "Date", value: "1970-01-01T00:00:00.000Z" },
			n: { unsupported: true, type: "bigint", value: "10" },
			ok: true,
		});
		expect(JSON.parse(JSON.stringify(result))).toEqual(result);
	});

	it("a run that returned nothing has no result section and no result in details", () => {
		const result = workflowProgressResult(endedEnvelope(undefined), "done");
		expect(result.content[0]?.text).not.toContain("Result:");
		expect(result.details.envelope).not.toHaveProperty("result");
		expect(result.details.omitted).toBeUndefined();
	});

	it("while running: no result section, the progress text follows the summary", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		run.queued(0, "A");
		const text = workflowProgressResult(tracker.getEnvelope(), "still going").content[0]?.text ?? "";
		expect(text).toMatch(/^still going\n\nWorkflow review-and-fix: running · 0ms\n/);
		expect(text).not.toContain("Result:");
	});

	it("bounds the text for the model to maxTextBytes, keeping the start of the result", () => {
		const big = { items: Array.from({ length: 20_000 }, (_, i) => `item number ${i}`) };
		const result = workflowProgressResult(endedEnvelope(big), "done");
		const text = result.content[0]?.text ?? "";
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024);
		expect(text).toMatch(/^done\n\nResult:\n\{"items":\["item number 0",/);
		expect(text).toMatch(/\n… \(\d+ more bytes not shown\)$/);
	});

	it("never cuts a multi-byte character in half", () => {
		const result = workflowProgressResult(endedEnvelope("é".repeat(5000)), "ü", { maxTextBytes: 1001 });
		const text = result.content[0]?.text ?? "";
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1001);
		expect(text).not.toContain("\uFFFD");
	});

	it("bounds details: keeps running and failed calls first and says what it left out", () => {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		for (let i = 0; i < 1000; i++) {
			run.queued(i, `Call ${i} ${"x".repeat(100)}`);
			run.started(i);
			if (i === 3) run.failed(i, "broke");
			else if (i !== 7) run.finished(i, "y".repeat(200));
		}
		const result = workflowProgressResult(tracker.getEnvelope(), "big", { maxDetailsBytes: 64 * 1024 });
		expect(Buffer.byteLength(JSON.stringify(result.details))).toBeLessThanOrEqual(64 * 1024);
		const indexes = result.details.envelope.agentCalls.map((call) => call.index);
		expect(indexes.slice(0, 2)).toEqual([3, 7]);
		expect(indexes.at(-1)).toBe(999);
		expect(result.details.omitted).toMatchObject({ agentCalls: 1000 - indexes.length, result: false });
		expect(result.details.envelope.totals.agents.total).toBe(1000);
	});

	it("reads only as many calls as the budget can hold, however many the run has", () => {
		let reads = 0;
		const calls = Array.from({ length: 5000 }, (_, index) =>
			Object.defineProperty(
				{ key: `k${index}`, index, agentType: "general-purpose", status: "completed", attempt: 1 },
				"label",
				{
					enumerable: true,
					get: () => {
						reads++;
						return `call ${index}`;
					},
				},
			),
		) as unknown as WorkflowProgressEnvelope["agentCalls"];
		const envelope = { ...endedEnvelope(undefined), agentCalls: calls };
		const result = workflowProgressResult(envelope, "many", { maxDetailsBytes: 16 * 1024 });
		expect(result.details.envelope.agentCalls.length).toBeGreaterThan(50);
		expect(reads).toBeLessThan(result.details.envelope.agentCalls.length + 2);
		expect(result.details.omitted?.agentCalls).toBe(5000 - result.details.envelope.agentCalls.length);
	});

	it("bounds kept branches like the other lists: the oldest first, the rest counted in `omitted`", () => {
		const branches = Array.from({ length: 2000 }, (_, index) => ({
			branch: `workflows/wf-20261201-120000-abcd12/fix-${index}`,
			label: `fix ${index}`,
			index,
			files: ["src/a.ts", "src/b.ts"],
			fileCount: 2,
		}));
		const result = workflowProgressResult({ ...endedEnvelope("ok"), branches }, "kept", {
			maxDetailsBytes: 32 * 1024,
		});
		expect(Buffer.byteLength(JSON.stringify(result.details))).toBeLessThanOrEqual(32 * 1024);
		const kept = result.details.envelope.branches ?? [];
		expect(kept.length).toBeGreaterThan(50);
		expect(kept.map((b) => b.index)).toEqual(kept.map((_, i) => i));
		expect(result.details.omitted?.branches).toBe(2000 - kept.length);
	});

	it("drops the result from details last, when nothing else makes them fit", () => {
		const result = workflowProgressResult(endedEnvelope("z".repeat(100_000)), "huge", { maxDetailsBytes: 10_000 });
		expect(result.details.envelope).not.toHaveProperty("result");
		expect(result.details.omitted?.result).toBe(true);
		expect(Buffer.byteLength(JSON.stringify(result.details))).toBeLessThanOrEqual(10_000);
	});
});
