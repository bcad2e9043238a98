/**
 * The ledger's pure parts: the unified diff of two scripts, and the fold of event-log lines into calls and files
 * (a replayed `tool()` step is not done again, a failed write changed nothing, a line of another kind is ignored).
 * The ledger of a real run, on pi sessions, is test/children/ledger.test.ts.
 */
import { describe, expect, it } from "vitest";
import { foldChanges, whoChanged } from "../../src/report/changes.ts";
import type { LoggedEvent } from "../../src/report/event-log.ts";
import { unifiedDiff } from "../../src/report/script-diff.ts";

describe("unifiedDiff", () => {
	it("gives hunks with three lines of context, removed before added, and nothing for equal texts", () => {
		const before = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"].join("\n");
		const after = ["a", "b", "c", "D", "e", "f", "g", "h", "i", "j", "k", "l", "m"].join("\n");
		expect(unifiedDiff(before, after)).toBe(
			[
				"--- before",
				"+++ after",
				"@@ -1,7 +1,7 @@",
				" a",
				" b",
				" c",
				"-d",
				"+D",
				" e",
				" f",
				" g",
				"@@ -10,3 +10,4 @@",
				" j",
				" k",
				" l",
				"+m",
			].join("\n"),
		);
		expect(unifiedDiff("same\n", "same\n")).toBe("");
	});
});

describe("foldChanges", () => {
	const base = { session: 1, index: 0, key: "k0", label: "fix", agentType: "general-purpose" };
	const lines = [
		{ type: "child_tool", time: 1, ...base, tool: "write", path: "a.ts", added: 2, isError: false },
		{ type: "child_tool", time: 2, ...base, tool: "edit", path: "b.ts", isError: true },
		{ type: "child_tool", time: 3, ...base, tool: "read", path: "c.ts", isError: false },
		{
			type: "tool_finished",
			time: 4,
			session: 2,
			key: "t0",
			index: 0,
			name: "bash",
			label: "x",
			command: "x",
			isError: false,
			durationMs: 1,
			outputChars: 0,
			cached: true,
		},
		{
			type: "tool_failed",
			time: 5,
			session: 2,
			key: "t1",
			index: 1,
			name: "write",
			label: "write d.ts",
			path: "d.ts",
			error: "no",
			code: "tool_failed",
		},
		{ type: "agent_finished", time: 6, ...base },
	] as unknown as LoggedEvent[];

	it("files are only what a write or edit that did not fail touched; a replayed step is left out", () => {
		const changes = foldChanges("wf-1", { sessions: [], events: lines, dropped: 0, problems: [] });
		expect(changes.files.map((file) => file.path)).toEqual(["a.ts"]);
		expect(
			changes.calls.map((call) => [call.name, call.entries.map((e) => `${e.tool}${e.isError ? "!" : ""}`)]),
		).toEqual([
			["the script", ["write!"]],
			["#1 fix", ["write", "edit!", "read"]],
		]);
		expect(whoChanged(changes, "a.ts")).toEqual(["#1 fix"]);
		expect(whoChanged(changes, "b.ts")).toEqual([]);
	});

	it("a run without an event log has no ledger, and says so", () => {
		expect(foldChanges("wf-1", undefined)).toMatchObject({ found: false, calls: [], files: [] });
	});
});
