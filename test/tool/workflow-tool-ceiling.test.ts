/**
 * A dollar ceiling granted to a saved workflow's text in pi: a yes to start a run estimated over its cap grants the
 * run's cap (raised as the person raises it) as the ceiling, bound to the script's sha256; the next run of the same
 * text estimated within it takes it as its cap without asking; a one-byte edit asks again with the diff; an inline
 * script of the granted text is never covered. Children are real pi sessions on the faux provider's priced model.
 */

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRunnerFixture, type RunnerFixture } from "../children/runner-fixture.ts";
import { fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { pricedToolSession } from "./priced-tool.ts";

checkSandboxLeaks();

const review = (what: string) => `export const meta = { name: "review", description: "${what}" };
await agent("Plan the review", { label: "planner" });
return await parallel(["a", "b"].map((file) => () => agent("Review file " + file, { label: "reviewer" })));
`;
const REVIEW = review("one reviewer per file");
const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
/** Far below what one child costs: every run is estimated over it. */
const TINY_CAP = 0.000001;

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
	fx.dirs.write(".pi/workflows/review.js", REVIEW);
	// Replies for the three runs that start children.
	const runs = [1, 2, 3];
	fx.faux.route(
		"Plan the review",
		runs.map(() => fauxAssistantMessage("Review each file for bugs.")),
	);
	for (const file of ["a", "b"]) {
		fx.faux.route(
			`Review file ${file}`,
			runs.map(() => fauxAssistantMessage(`${file}: ${"fine. ".repeat(40)}`)),
		);
	}
});
afterEach(() => {
	fx.teardown();
});

function text(result: { content: { type: string; text?: string }[] }): string {
	return result.content.map((part) => part.text ?? "").join("\n");
}

const grantsFile = () => join(fx.dirs.cwd, ".pi", "workflows.grants.json");

describe("a dollar ceiling granted to a saved workflow", () => {
	it("granted once, holds for the digest; a one-byte edit asks again with the diff; inline text is never covered", async () => {
		// An earlier run, so the estimate has a basis.
		const plain = pricedToolSession(fx);
		await plain.tool.execute("c0", { name: "review" }, undefined, undefined, plain.ctx);

		// Over the cap: asked; yes grants the run's cap, and the raise to $1 at the cap raises the ceiling.
		const granting = pricedToolSession(fx, { confirm: true, select: "Raise it to another", input: "1" });
		const first = await granting.tool.execute(
			"c1",
			{ name: "review", maxCostUsd: TINY_CAP },
			undefined,
			undefined,
			granting.ctx,
		);
		expect(first.details.envelope?.error?.message).toBeUndefined();
		expect(first.details.envelope?.status).toBe("completed");
		expect(granting.asked[0]).toMatch(/^Workflow: estimated \$[\d.–$]+, over the cap <\$0\.0001\n/);
		expect(granting.asked[0]).toContain(
			`Start anyway? The run stops at the cap <$0.0001 and asks for a higher one.\n\nThe project workflow .pi/workflows/review.js (sha256 ${sha(REVIEW)}) has no dollar ceiling granted to this version. Yes also grants it <$0.0001, raised with the cap in this run (kept in ${grantsFile()}): its later runs estimated within it take it as their cap without asking, and any change to the file asks again.`,
		);
		expect(granting.asked.some((asked) => asked.startsWith("Workflow review reached its cost cap"))).toBe(true);
		const kept = JSON.parse(readFileSync(grantsFile(), "utf8"));
		expect(kept.workflows[".pi/workflows/review.js"]).toMatchObject({ tools: [], maxCostUsd: 1, script: REVIEW });

		// The same text, the same cap: nothing asked, and the run's cap is the ceiling (it never stops at the tiny cap).
		const again = pricedToolSession(fx, { confirm: false });
		const second = await again.tool.execute(
			"c2",
			{ name: "review", maxCostUsd: TINY_CAP },
			undefined,
			undefined,
			again.ctx,
		);
		expect(again.asked).toEqual([]);
		expect(second.details.envelope?.status).toBe("completed");
		expect(text(second)).toContain(
			`Note: capped at $1.00, the ceiling granted to the project workflow .pi/workflows/review.js (sha256 ${sha(REVIEW)}).`,
		);

		// One byte changed: asked again, with the diff against the granted text; no starts nothing.
		const edited = review("one reviewer per File");
		fx.dirs.write(".pi/workflows/review.js", edited);
		const changed = pricedToolSession(fx, { confirm: false });
		await expect(
			changed.tool.execute("c3", { name: "review", maxCostUsd: TINY_CAP }, undefined, undefined, changed.ctx),
		).rejects.toThrow(/Not started: estimated .*, over the cap <\$0\.0001, and the person declined/);
		expect(changed.asked).toHaveLength(1);
		expect(changed.asked[0]).toContain(
			`The project workflow .pi/workflows/review.js (sha256 ${sha(edited)}) has no dollar ceiling granted to this version. It changed since sha256 ${sha(REVIEW)} was granted (a ceiling of $1.00):
--- before
+++ after
@@ -1,4 +1,4 @@
-export const meta = { name: "review", description: "one reviewer per file" };
+export const meta = { name: "review", description: "one reviewer per File" };
 await agent("Plan the review", { label: "planner" });
 return await parallel(["a", "b"].map((file) => () => agent("Review file " + file, { label: "reviewer" })));
 
Yes also grants it <$0.0001`,
		);

		// Inline text identical to the granted one: asked as ever, offered no grant, and the grants file is untouched.
		const inline = pricedToolSession(fx, { confirm: false });
		await expect(
			inline.tool.execute("c4", { script: REVIEW, maxCostUsd: TINY_CAP }, undefined, undefined, inline.ctx),
		).rejects.toThrow(/Not started: estimated .*, over the cap <\$0\.0001, and the person declined/);
		expect(inline.asked).toHaveLength(1);
		expect(inline.asked[0]).toMatch(
			/Start anyway\? The run stops at the cap <\$0\.0001 and asks for a higher one\.$/,
		);
		expect(JSON.parse(readFileSync(grantsFile(), "utf8"))).toEqual(kept);
	});
});
