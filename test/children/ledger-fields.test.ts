/**
 * What the ledger reads from one tool run's arguments and result (src/children/ledger.ts), where pi is not the
 * point: a path inside the child's folder is named relative to it, one outside stays as given; a command's exit code
 * comes from pi's structured result, else from its error text; an edit's lines from its patch. The same through
 * real pi sessions: test/children/ledger.test.ts.
 */
import { describe, expect, it } from "vitest";
import { toolFields } from "../../src/children/ledger.ts";

describe("toolFields", () => {
	it("names a path relative to the child's folder when it is inside it", () => {
		expect(toolFields("read", { path: "/w/p/src/a.ts" }, {}, false, "/w/p")).toEqual({
			tool: "read",
			isError: false,
			path: "src/a.ts",
		});
		expect(toolFields("read", { path: "/etc/hosts" }, {}, false, "/w/p").path).toBe("/etc/hosts");
		expect(toolFields("read", { path: "/w/project/a.ts" }, {}, false, "/w/p").path).toBe("/w/project/a.ts");
	});

	it("a command's exit code: pi's structured result, else the text of its error; none when it never ran", () => {
		const ok = { structuredContent: { exit_code: 0 }, content: [{ type: "text", text: "fine" }] };
		expect(toolFields("bash", { command: "true" }, ok, false, "/w")).toMatchObject({ command: "true", exitCode: 0 });
		const failed = { content: [{ type: "text", text: "boom\n\nCommand exited with code 2" }] };
		expect(toolFields("bash", { command: "false" }, failed, true, "/w")).toMatchObject({
			exitCode: 2,
			isError: true,
		});
		const timedOut = { content: [{ type: "text", text: "Command timed out after 5 seconds" }] };
		expect(toolFields("bash", { command: "sleep 9" }, timedOut, true, "/w")).not.toHaveProperty("exitCode");
	});

	it("an edit's lines from its patch, a write's from its content; a failed one counts none", () => {
		const patch = "--- a.ts\n+++ a.ts\n@@ -1,2 +1,3 @@\n-old\n+new\n+more\n same\n";
		expect(toolFields("edit", { path: "a.ts" }, { details: { patch } }, false, "/w")).toMatchObject({
			added: 2,
			removed: 1,
		});
		expect(toolFields("write", { path: "b.ts", content: "one\ntwo" }, {}, false, "/w")).toMatchObject({ added: 2 });
		expect(toolFields("write", { path: "b.ts", content: "one\n" }, {}, true, "/w")).not.toHaveProperty("added");
	});
});
