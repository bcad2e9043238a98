import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { callLabelled, callsLabelled, EXAMPLES_DIR, phasesStarted, type Route, runExample } from "./harness.ts";

const PARENT = "release-notes.js";
const CHILD = "changelog-entry.js";
const REPO = resolve(EXAMPLES_DIR, "../..");

const AREAS: Route = {
	when: { label: "split into areas" },
	answer: {
		structured: {
			areas: [
				{ name: "cli", paths: ["src/cli"] },
				{ name: "api", paths: ["src/api", "src/types.ts"] },
				{ name: "docs", paths: ["docs"] },
			],
		},
	},
};
const entry = (title: string, breaking: boolean, migration = "") => ({
	structured: { title, entry: `- ${title} for users`, breaking, migration },
});
const DRAFTS: Route[] = [
	{ when: { label: "draft cli" }, answer: entry("New --json flag", false) },
	{ when: { label: "draft api" }, answer: entry("fetchAll() is now paged", true, "use fetchPage()") },
	{ when: { label: "draft docs" }, answer: { fail: "git not found" } },
];
const CHECK: Route = {
	when: { label: "check api" },
	answer: { structured: { accurate: false, migration: "call fetchPage() in a loop until `next` is null" } },
};
const ASSEMBLE: Route = { when: { label: "assemble notes" }, answer: "# v2.0.0\n..." };
const ROUTES = [AREAS, ...DRAFTS, CHECK, ASSEMBLE];

describe("release-notes.js (parent) with changelog-entry.js (child)", () => {
	it("runs the child workflow once per area, by path, with the area's args, inside the run's queue and counters", async () => {
		const run = await runExample(PARENT, { args: { since: "v1.4.0", version: "v2.0.0" }, routes: ROUTES });
		expect(run.runner.unmatched).toEqual([]);
		// Children run side by side in their own sandboxes, so their phases interleave in any order.
		const phases = phasesStarted(run);
		expect([phases.slice(0, 2), phases.at(-1)]).toEqual([["gather", "entries"], "assemble"]);
		expect(phases.slice(2, -1).sort()).toEqual(["check", "check", "draft", "draft", "draft"]);
		const drafts = callsLabelled(run, /^draft /);
		expect(drafts.map((d) => [d.label, d.phase]).sort()).toEqual([
			["draft api", "draft"],
			["draft cli", "draft"],
			["draft docs", "draft"],
		]);
		for (const draft of drafts) expect(draft.key.startsWith("changelog-entry~")).toBe(true);
		expect(callLabelled(run, "draft api").prompt).toContain(
			"Read `git log v1.4.0..HEAD -- src/api src/types.ts` and `git diff v1.4.0..HEAD -- src/api src/types.ts`",
		);
		const childEvents = run.events.filter((e) => e.type === "agent_finished" && e.workflow === "changelog-entry");
		expect(childEvents.map((e) => ("label" in e ? e.label : ""))).toEqual(
			expect.arrayContaining(["draft cli", "draft api", "check api"]),
		);
		expect(run.result.counts).toMatchObject({ calls: 6, completed: 5, failed: 1 });
	});

	it("checks only the breaking area's migration note and carries the correction into the assembled notes", async () => {
		const run = await runExample(PARENT, { args: { since: "v1.4.0", version: "v2.0.0" }, routes: ROUTES });
		expect(callsLabelled(run, /^check /).map((c) => c.label)).toEqual(["check api"]);
		expect(callLabelled(run, "check api")).toMatchObject({ phase: "check" });
		expect(callLabelled(run, "check api").prompt).toContain("use fetchPage()");
		const assemble = callLabelled(run, "assemble notes");
		expect(assemble).toMatchObject({ phase: "assemble", tools: [] });
		expect(assemble.prompt).toContain("Write the release notes for v2.0.0");
		expect(assemble.prompt).toContain(
			"### fetchAll() is now paged (breaking)\n- fetchAll() is now paged for users\nMigration: call fetchPage() in a loop until `next` is null\n\n### New --json flag\n- New --json flag for users",
		);
	});

	it("when a child fails: leaves that area out, names it, and records both the agent and the slot in the census", async () => {
		const run = await runExample(PARENT, { args: { since: "v1.4.0" }, routes: ROUTES });
		expect(run.result.status).toBe("completed");
		expect(run.result.value).toMatchObject({ version: "Unreleased", notes: "# v2.0.0\n...", missing: ["docs"] });
		expect((run.result.value as { entries: unknown[] }).entries).toHaveLength(2);
		expect(run.result.failures).toEqual([
			expect.objectContaining({ kind: "agent", label: "draft docs", phase: "draft", cause: "git not found" }),
			expect.objectContaining({ kind: "parallel", index: 2, phase: "entries" }),
		]);
		const slot = run.result.failures[1]?.cause ?? "";
		expect(slot).toContain("Nested workflow `changelog-entry` failed");
		expect(slot).toContain("No changelog entry for docs: the drafting agent failed");
	});

	it("resolves the child against the run's cwd: from the repo root it needs the `child` arg", async () => {
		const lost = await runExample(PARENT, { cwd: REPO, args: { since: "v1.4.0" }, routes: ROUTES });
		expect(lost.result.status).toBe("failed");
		expect(lost.result.error?.message).toContain(
			`No area got an entry (is \`./changelog-entry.js\` right for cwd ${REPO}?)`,
		);
		expect(lost.result.failures.map((f) => f.cause)).toEqual([
			expect.stringContaining("No workflow at `./changelog-entry.js`"),
			expect.stringContaining("No workflow at `./changelog-entry.js`"),
			expect.stringContaining("No workflow at `./changelog-entry.js`"),
		]);

		const found = await runExample(PARENT, {
			cwd: REPO,
			args: { since: "v1.4.0", child: "examples/workflows/changelog-entry.js" },
			routes: ROUTES,
		});
		expect(found.result.status).toBe("completed");
		expect(callsLabelled(found, /^draft /)).toHaveLength(3);
	});

	it("the child also runs on its own as a workflow", async () => {
		const run = await runExample(CHILD, {
			args: { area: "cli", paths: ["src/cli"], since: "v1.4.0" },
			routes: ROUTES,
		});
		expect(run.result.value).toEqual({
			area: "cli",
			title: "New --json flag",
			entry: "- New --json flag for users",
			breaking: false,
			migration: "",
		});
		expect(callLabelled(run, "draft cli").key.startsWith("changelog-entry~")).toBe(false);
	});
});
