/** How a `workflow` call reads in pi's transcript: what it runs, a resume of which run, with which script. */
import { stripTerminalSequences } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { describeWorkflowCall, renderWorkflowCall } from "../../src/tool/render.ts";
import { darkTheme } from "../progress/theme.ts";

const SCRIPT = 'export const meta = { name: "x", description: "d" };\nreturn 1;';

describe("describeWorkflowCall", () => {
	it.each([
		[{ script: "return 1;" }, "inline script (1 line)"],
		[{ script: SCRIPT }, "inline script (2 lines)"],
		[{ path: "scripts/audit.js" }, "scripts/audit.js"],
		[{ name: "audit" }, "saved workflow audit"],
		[{ resume: "wf-20261201-101530-k3f9x2" }, "resume of run wf-20261201-101530-k3f9x2 (its saved script)"],
		[
			{ resume: "wf-20261201-101530-k3f9x2", script: "return 1;" },
			"resume of run wf-20261201-101530-k3f9x2 with an edited script (inline, 1 line)",
		],
		[
			{ resume: "wf-20261201-101530-k3f9x2", path: "fixed.js" },
			"resume of run wf-20261201-101530-k3f9x2 with an edited script (fixed.js)",
		],
		[{ script: SCRIPT, background: true }, "inline script (2 lines) · background"],
		[{ path: "a.js", check: true }, "check of a.js"],
		// Arguments still streaming in.
		[{}, "inline script (0 lines)"],
	])("%j → %s", (args, expected) => {
		expect(describeWorkflowCall(args)).toBe(expected);
	});

	it("renders as pi draws a tool call: the tool's name, then what it runs", () => {
		const line = renderWorkflowCall({ resume: "wf-20261201-101530-k3f9x2" }, darkTheme()).render(120);
		expect(line.map((text) => stripTerminalSequences(text).trimEnd())).toEqual([
			"workflow resume of run wf-20261201-101530-k3f9x2 (its saved script)",
		]);
	});
});
