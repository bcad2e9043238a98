/**
 * `/workflows steer|skip|restart` and the TUI children menu, over a registry with a live run whose children record
 * what was done to them (pi is not the point here: the runner's side is in test/e2e/child-control.test.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChildControls } from "../../../src/children/controls.ts";
import { RunRegistry } from "../../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import { createWorkflowProgressTracker } from "../../../src/progress/index.ts";
import { createRunStore } from "../../../src/runs/index.ts";
import { eventBuilder, META, T0 } from "../../progress/event-builder.ts";

const RUN = "wf-20261201-120000-ctrl01";

/** A command context whose UI answers from a script of choices and records what it showed. */
function fakeContext(answers: { select?: Array<string | ((options: string[]) => string)>; input?: string } = {}) {
	const shown: Array<{ text: string; level: string }> = [];
	const offered: string[][] = [];
	const selects = [...(answers.select ?? [])];
	const ctx = {
		cwd: "/nowhere",
		mode: "tui",
		ui: {
			notify: (text: string, level: string) => shown.push({ text, level }),
			select: async (_title: string, options: string[]) => {
				offered.push(options);
				const next = selects.shift();
				return typeof next === "function" ? next(options) : next;
			},
			input: async () => answers.input,
			confirm: async () => false,
		},
	} as unknown as ExtensionCommandContext;
	return { ctx, shown, offered };
}

describe("/workflows per-child control", () => {
	let registry: RunRegistry;
	let done: string[];
	let root: string;

	beforeEach(() => {
		registry = new RunRegistry();
		done = [];
		root = mkdtempSync(join(tmpdir(), "wf-child-cmd-"));
	});
	afterEach(() => {
		vi.useRealTimers();
		rmSync(root, { recursive: true, force: true });
	});

	/** A live run: #1 finished, #2 running (idle 20 s), #3 running, #4 queued; #2 and #3 have controls. */
	function liveRun(id = RUN) {
		const tracker = createWorkflowProgressTracker({ now: () => T0 });
		const run = eventBuilder(T0, (event) => tracker.updateFromProgressEvent(event));
		run.runStart(META);
		for (const [index, label] of ["scan", "fix auth", "fix db", "verify"].entries()) run.queued(index, label);
		run.started(0);
		run.finished(0, "ok");
		run.started(1);
		run.child(1, { status: "quiet", activity: "waiting for the model" });
		run.started(2);
		run.tick(20_000).child(2, { status: "active", activity: "writing" });
		const children = new ChildControls();
		for (const index of [1, 2]) {
			children.add(`key-${index}`, {
				steer: async (text) => {
					done.push(`steer #${index + 1}: ${text}`);
				},
				pause: () => done.push(`pause #${index + 1}`),
				skip: () => done.push(`skip #${index + 1}`),
				restart: () => done.push(`restart #${index + 1}`),
			});
		}
		registry.add({
			id,
			name: "review-and-fix",
			background: true,
			startedAt: T0,
			envelope: () => tracker.getEnvelope(),
			children,
			stop: () => done.push("stop"),
			settled: new Promise(() => {}),
		});
		return children;
	}

	const command = () => createWorkflowsCommand({ registry, storeFor: () => createRunStore({ cwd: root, root }) });

	it.each([
		[
			"steer by number, run id left out",
			"steer #2 Look at the session table too",
			"steer #2: Look at the session table too",
		],
		["skip by label", "skip fix db", "skip #3"],
		[
			"steer by quoted label",
			'/workflows steer "fix db" Keep the migration small'.slice(11),
			"steer #3: Keep the migration small",
		],
		["restart by bare number, with the run id", `restart ${RUN} 2`, "restart #2"],
		["pause by key", "pause key-2", "pause #3"],
	])("%s", async (_name, args, expected) => {
		liveRun();
		const { ctx, shown } = fakeContext();
		await command().handler(args, ctx);
		expect(done).toEqual([expected]);
		expect(shown).toHaveLength(1);
		expect(shown[0]?.level).toBe("info");
	});

	it.each([
		[
			"an unknown child",
			"skip #8",
			"/workflows: No agent call `#8` in this run. Running or queued: #2 fix auth, #3 fix db, #4 verify",
		],
		[
			"a finished child",
			"restart scan",
			"/workflows: `scan` (#1) has already completed; only a running child can be restarted",
		],
		[
			"a queued child, for steer",
			"steer verify hello",
			"/workflows: `verify` (#4) has not started yet; only a running child can be steered",
		],
		[
			"a steer without a message",
			"steer #2",
			"/workflows: Nothing to send to `fix auth` (#2): give the message after the child",
		],
		[
			"no child",
			"skip",
			'/workflows: `skip` needs a child. /workflows steer [runId] <child> <message> · /workflows pause|skip|restart [runId] <child> (child: its number #3, key, or label, quoted for steer: "fix db"; runId may be left out while one run is live)',
		],
	])("%s: an error that says what to do, and nothing is done", async (_name, args, message) => {
		liveRun();
		const { ctx, shown } = fakeContext();
		await command().handler(args, ctx);
		expect(done).toEqual([]);
		expect(shown).toEqual([{ text: message, level: "error" }]);
	});

	it("with two live runs and no run id: asks for one, naming both", async () => {
		liveRun();
		liveRun("wf-20261201-120000-ctrl02");
		const { ctx, shown } = fakeContext();
		await command().handler("skip #2", ctx);
		expect(shown[0]?.text).toBe(
			`/workflows: Several runs are live (${RUN}, wf-20261201-120000-ctrl02): name one, as in /workflows skip <runId> <child>`,
		);
	});

	it("with no live run: says so", async () => {
		const { ctx, shown } = fakeContext();
		await command().handler("skip #2", ctx);
		expect(shown[0]?.text).toBe("/workflows: No workflow run is running in this session");
	});

	it("a queued call can be skipped before it starts: the skip waits for it", async () => {
		const children = liveRun();
		const { ctx, shown } = fakeContext();
		await command().handler("skip verify", ctx);
		expect(shown[0]?.text).toBe("Skipped `verify` (#4) before it started: its agent() call gives null.");
		expect(children.takeSkip("key-3")).toBe(true);
		expect(children.takeSkip("key-3")).toBe(false);
	});

	it("in the TUI: a live run lists its running and queued children with state and idle time, then their actions", async () => {
		// The menu's clock is the wall clock: the run's last event (#3 writing) is "now", #2 spoke 20 s before.
		vi.useFakeTimers({ toFake: ["Date"] });
		vi.setSystemTime(T0 + 20_000);
		liveRun();
		const { ctx, shown, offered } = fakeContext({
			select: [(options) => options[0] ?? "", (options) => options[1] ?? "", (options) => options[0] ?? ""],
			input: "Use the new helper",
		});
		await command().handler("", ctx);
		expect(offered[1]).toEqual([
			"Stop the run",
			"#2 fix auth · quiet, idle 20.0s",
			"#3 fix db · active",
			"#4 verify · queued",
		]);
		expect(offered[2]).toEqual([
			"Send it a message (read at its next turn)",
			"Pause it (stop its turn; it waits for a message)",
			"Skip it (its agent() gives null)",
			"Restart it (a fresh attempt)",
		]);
		expect(done).toEqual(["steer #2: Use the new helper"]);
		expect(shown.at(-1)?.text).toBe("Sent to `fix auth` (#2): it reads the message at its next turn.");
	});
});
