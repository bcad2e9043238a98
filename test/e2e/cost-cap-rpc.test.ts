/**
 * The run's cost cap through pi's own loader in RPC mode (`pi --mode rpc -e ./src/pi.ts`), children real pi sessions
 * on the priced faux model: the estimate over the cap asks before the run starts; at the cap the run parks and pi's
 * select dialog asks what was spent of which cap and what the rest should cost; the front end's answer raises the
 * cap and the same run goes on where it was, every finished result kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Line, RpcPi } from "../helpers/rpc-pi.ts";

const SCRIPT = `export const meta = { name: "capped-steps", description: "three priced steps", model: "faux/faux-priced" };
const out = [];
for (const w of ["one", "two", "three"]) out.push(await agent("echo " + w));
return out;`;

const isSelect = (line: Line) => line.type === "extension_ui_request" && line.method === "select";

describe("the cost cap in RPC mode", () => {
	const dirs: string[] = [];
	const pis: RpcPi[] = [];
	afterEach(async () => {
		for (const pi of pis.splice(0)) await pi.close();
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	it("parks at the cap and asks with a select; the raise picked goes on with the same run", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "wf-cap-rpc-project-"));
		const agentDir = mkdtempSync(join(tmpdir(), "wf-cap-rpc-agent-"));
		dirs.push(cwd, agentDir);
		const pi = new RpcPi(cwd, agentDir);
		pis.push(pi);

		pi.send({
			id: "p1",
			type: "prompt",
			message: `workflow ${JSON.stringify({ script: SCRIPT, maxCostUsd: 0.000001 })}`,
		});
		// A capped run is estimated before it starts: over its cap, the person is asked whether to start anyway.
		const before = await pi.waitFor((line) => line.type === "extension_ui_request" && line.method === "confirm");
		expect(String(before.title)).toMatch(/^Workflow: estimated \$[\d.]+–\$[\d.]+, over the cap <\$0\.0001$/);
		expect(String(before.message)).toContain("Basis: catalog price of faux/faux-priced");
		pi.send({ type: "extension_ui_response", id: before.id, confirmed: true });
		const asked = await pi.waitFor(isSelect);
		// The question says what the rest should cost, from that estimate.
		expect(String(asked.title)).toMatch(
			/^Workflow capped-steps reached its cost cap\. Spent \$0\.\d+ of the <\$0\.0001 cap; about \$[\d.]+ more to finish \(estimate\)\. No new agent starts until you answer; agents already running finish\./,
		);
		const options = asked.options as string[];
		expect(options.at(-2)).toBe("Raise it to another amount…");
		expect(options.at(-1)).toBe("Stop here (the run stays resumable)");

		pi.send({ type: "extension_ui_response", id: asked.id, value: "Raise it to another amount…" });
		const typed = await pi.waitFor((line) => line.type === "extension_ui_request" && line.method === "input");
		expect(String(typed.title)).toMatch(
			/^New cap for workflow capped-steps, in US dollars above \$0\.\d+ \(empty: stop\)$/,
		);
		pi.send({ type: "extension_ui_response", id: typed.id, value: "5" });

		const done = await pi.waitFor(
			(line) => line.type === "message_end" && JSON.stringify(line).includes("WORKFLOW RESULT >>>"),
		);
		const text = JSON.stringify(done);
		expect(text).toContain("completed");
		expect(text).toContain("child answered ONE");
		expect(text).toContain("child answered THREE");
		// The tool's result says what the run spent of which cap (the raised one).
		const ended = pi.lines.find((line) => line.type === "tool_execution_end");
		expect(JSON.stringify(ended)).toMatch(/Cost: \$0\.\d+ of a \$5\.00 cap/);
		expect(pi.lines.filter(isSelect)).toHaveLength(1);
	}, 120_000);
});
