/**
 * `/workflows` and the views behind it, over a real run store with real runs: the list (live first), one run's
 * snapshot with its failures and resume call, stopping a live run after a confirm, text outside the TUI.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DurableRun } from "../../../src/host/durable-run.ts";
import { RunRegistry } from "../../../src/host/registry.ts";
import { describeRun, listRuns } from "../../../src/host/views.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import { createWorkflowProgressTracker } from "../../../src/progress/index.ts";
import { createConversationFile, createRunStore, type RunStore } from "../../../src/runs/index.ts";
import { runWorkflowScript } from "../../../src/runtime/index.ts";
import { controlsIn, HOSTILE_BLOCK, HOSTILE_LITERAL } from "../../helpers/controls.ts";
import { createFakeRunner, HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

/** A command context whose UI answers as a person would and records what it was shown. */
function fakeContext(cwd: string, mode: "tui" | "print", answers: { select?: number; confirm?: boolean } = {}) {
	const shown: string[] = [];
	const asked: string[] = [];
	let offered: string[] = [];
	const ctx = {
		cwd,
		mode,
		ui: {
			notify: (text: string) => shown.push(text),
			select: async (_title: string, options: string[]) => {
				offered = options;
				return answers.select === undefined ? undefined : options[answers.select];
			},
			confirm: async (title: string, message: string) => {
				asked.push(`${title}\n${message}`);
				return answers.confirm ?? false;
			},
		},
	} as unknown as ExtensionCommandContext;
	return { ctx, shown, asked, offered: () => offered };
}

describe("/workflows", () => {
	let cwd: string;
	let root: string;
	let store: RunStore;
	let registry: RunRegistry;

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-cmd-project-"));
		root = mkdtempSync(join(tmpdir(), "wf-cmd-runs-"));
		store = createRunStore({ cwd, root });
		registry = new RunRegistry();
	});
	afterEach(() => {
		rmSync(cwd, { recursive: true, force: true });
		rmSync(root, { recursive: true, force: true });
	});

	/** A finished run in the store: a real run of `body` whose snapshot is written. */
	async function storedRun(body: string, fail: string[] = []) {
		const record = await store.create({ script: `${HEADER}${body}`, meta: { name: "t", description: "d" } });
		const fake = createFakeRunner((request) => (fail.includes(request.prompt) ? { fail: "provider down" } : "ok"));
		const result = await runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner });
		await record.writeSnapshot(result);
		return record.id;
	}

	/** A live run in the registry whose stop ends it. */
	function liveRun(id: string) {
		const stopped: unknown[] = [];
		let settle = () => {};
		const settled = new Promise<void>((resolve) => {
			settle = resolve;
		});
		registry.add({
			id,
			name: "live-one",
			background: true,
			startedAt: Date.now() - 5000,
			// Its last event was when it started, 5 s ago.
			envelope: () => ({
				...createWorkflowProgressTracker().getEnvelope(),
				startedAt: Date.now() - 5000,
				updatedAt: Date.now() - 5000,
			}),
			stop: (reason) => {
				stopped.push(reason);
				settle();
			},
			settled,
		});
		return stopped;
	}

	it("outside the TUI: prints this project's runs, live ones first", async () => {
		const done = await storedRun(`return await agent("x");`);
		liveRun("wf-20261201-120000-live01");
		const { ctx, shown } = fakeContext(cwd, "print");
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", ctx);
		const lines = shown[0]?.split("\n") ?? [];
		expect(lines[0]).toMatch(/^wf-20261201-120000-live01 · live-one · running \(background\) · 5\.\ds · 0\/0 agents/);
		expect(lines[1]).toMatch(
			new RegExp(`^${done} · t · completed · .* ago · 1 agent done · 10 tokens · \\d+(\\.\\d)? (B|KiB)$`),
		);
	});

	it("in the TUI: a chosen run names its script's sha256 (12 hex digits) and tier", async () => {
		const script = `${HEADER}return await agent("x");`;
		const record = await store.create({ script, meta: { name: "t", description: "d" }, tier: "user" });
		await record.writeSnapshot(await runWorkflowScript(script, { agentRunner: createFakeRunner(() => "ok").runner }));
		const { ctx, shown } = fakeContext(cwd, "tui", { select: 0 });
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", ctx);
		const sha256 = createHash("sha256").update(script).digest("hex");
		expect(shown[0]?.split("\n")).toContain(`Script: sha256 ${sha256.slice(0, 12)} · tier user`);
	});

	it("in the TUI: choosing a finished run shows its failures and the resume call", async () => {
		const id = await storedRun(
			`return await parallel([() => agent("good"), () => agent("bad", { label: "the bad one" })]);`,
			["bad"],
		);
		const { ctx, shown } = fakeContext(cwd, "tui", { select: 0 });
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", ctx);
		expect(shown[0]).toContain(`Run ${id} (t): completed`);
		expect(shown[0]).toContain("Agents: 1 completed, 1 failed, 0 skipped of 2");
		expect(shown[0]).toContain("✗ the bad one: provider down");
	});

	it("in the TUI: a live run is stopped after the person confirms", async () => {
		const stopped = liveRun("wf-20261201-120000-live02");
		const { ctx } = fakeContext(cwd, "tui", { select: 0, confirm: true });
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", ctx);
		expect(stopped).toEqual(["Stopped from /workflows"]);
	});

	it("in the TUI: nothing is stopped when the person declines", async () => {
		const stopped = liveRun("wf-20261201-120000-live03");
		const { ctx, asked } = fakeContext(cwd, "tui", { select: 0, confirm: false });
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", ctx);
		expect(stopped).toEqual([]);
		// The question shows the run, not the tool call a model would use to stop it.
		expect(asked).toHaveLength(1);
		expect(asked[0]).toMatch(/^Stop run wf-20261201-120000-live03\?\nWorkflow workflow: running · 5\.\ds$/m);
		expect(asked[0]).not.toContain("workflow_runs(");
	});

	it("a live run held by a provider limit is listed as waiting, with the limit and when the next try is", async () => {
		const now = Date.now();
		registry.add({
			id: "wf-20261201-120000-wait01",
			name: "waiting-one",
			background: false,
			startedAt: now - 5000,
			envelope: () => ({
				...createWorkflowProgressTracker().getEnvelope(),
				providerWait: { kind: "rate_limit", message: "429", since: now - 2000, until: now + 40_000 },
			}),
			stop: () => {},
			settled: Promise.resolve(),
		});
		const rows = await listRuns(store, registry, now);
		expect(rows[0]?.text).toMatch(
			/^wf-20261201-120000-wait01 · waiting-one · waiting for the provider \(this call; rate limited, next try in 40\.0s\) · 5\.0s · /,
		);
	});

	it("a script's escapes in its name, labels and failures show as ^[ and ^G in the menu and the run's view", async () => {
		const body = `const bad = ${HOSTILE_LITERAL};\nphase("p" + bad);\nawait agent("x", { label: "label" + bad });\nlog("log" + bad);\nthrow new Error("late" + bad);`;
		const record = await store.create({
			script: `${HEADER}${body}`,
			meta: { name: "nice\x1b[2K\x07", description: "d" },
		});
		const fake = createFakeRunner(() => ({ fail: "down \x1b[6n" }));
		const result = await runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner });
		await record.writeSnapshot(result);

		const listed = fakeContext(cwd, "print");
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", listed.ctx);
		expect(controlsIn(listed.shown.join("\n"))).toEqual([]);
		expect(listed.shown[0]).toContain(`${record.id} · nice^[[2K^G · failed`);

		const viewed = fakeContext(cwd, "tui", { select: 0 });
		const text = await describeRun(store, registry, record.id);
		expect(controlsIn(text)).toEqual([]);
		expect(text).toContain(`Run ${record.id} (nice^[[2K^G): failed`);
		expect(text).toContain(`Error (script_error): late${HOSTILE_BLOCK}`);
		expect(text).toContain(`label${HOSTILE_BLOCK}: down ^[[6n`);
		// Chosen from the list, then "The run" from its menu (children's labels there too): the same view.
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", viewed.ctx);
		expect(controlsIn(viewed.offered().join("\n"))).toEqual([]);
		expect(viewed.shown).toEqual([text]);
	});

	it("with no runs yet: says so", async () => {
		const { ctx, shown } = fakeContext(cwd, "tui");
		await createWorkflowsCommand({ registry, storeFor: () => store }).handler("", ctx);
		expect(shown).toEqual(["No workflow runs in this project yet."]);
	});

	it("a live run: its times run to now, not to its last event, and it gives the stop call", async () => {
		liveRun("wf-20261201-120000-live04");
		const text = await describeRun(store, registry, "wf-20261201-120000-live04");
		expect(text).toMatch(/^Workflow workflow: running · 5\.\ds$/m);
		expect(text).toContain('Stop it: workflow_runs({ action: "stop", runId: "wf-20261201-120000-live04" })');
	});

	it("a run that failed names its error and gives the resume call", async () => {
		const id = await storedRun(`await agent("x"); throw new Error("late bug");`);
		const text = await describeRun(store, registry, id);
		expect(text).toContain(`Run ${id} (t): failed`);
		expect(text).toContain("Error (script_error): late bug");
		expect(text).toContain(`Resume: workflow({ resume: "${id}" })`);
		// And how to resume with a fix: the run's own script file, read and edited, resumed by its path.
		const script = join(store.dir, id, "script.js");
		expect(text).toContain(
			`To fix the script first: read ${script}, change only what is wrong, and resume with workflow({ resume: "${id}", path: "${script}" }); an agent() call replays only when its prompt and options are byte for byte the recorded ones.`,
		);
	});

	it("a resumed run: its row and its view say how many of its agents were replayed, and where its script is", async () => {
		const body = `return [await agent("a"), await agent("b"), await agent("c")];`;
		const record = await store.create({ script: `${HEADER}${body}`, meta: { name: "t", description: "d" } });
		const journal = await record.journal();
		const fake = createFakeRunner((request) => (request.prompt === "c" ? { fail: "down" } : "ok"));
		await runWorkflowScript(`${HEADER}${body}`, { agentRunner: fake.runner, journal });
		const resumed = await runWorkflowScript(`${HEADER}${body}`, { agentRunner: createFakeRunner().runner, journal });
		await journal.close();
		await record.writeSnapshot(resumed);
		const rows = await listRuns(store, registry);
		expect(rows[0]?.text).toMatch(
			new RegExp(
				`^${record.id} · t · completed · .* ago · 3 agents done \\(2 replayed\\) · 30 tokens · \\d+(\\.\\d)? (B|KiB)$`,
			),
		);
		const text = await describeRun(store, registry, record.id);
		expect(text).toContain("Agents: 3 completed (2 replayed), 0 failed, 0 skipped of 3 · 30 tokens");
		expect(text).toContain(`Script: ${record.scriptPath}`);
	});

	it("a run with no result but an unfinished child's kept conversation: says to resume it (the child goes on)", async () => {
		const id = await storedRun(`throw new Error("stopped mid-child");`);
		const record = await store.open(id);
		const header = {
			type: "session",
			version: 3,
			id: "s1",
			timestamp: new Date().toISOString(),
			cwd: "/",
			callKey: "k",
		};
		await createConversationFile(record.dir, { index: 0, label: "notes" }, `${JSON.stringify(header)}\n`);
		const text = await describeRun(store, registry, id);
		expect(text).toContain(`Resume: workflow({ resume: "${id}" })`);
		expect(text).not.toContain("No agent result was saved");
		// And the resume that line names is not refused.
		const resumed = await DurableRun.resume(store, id);
		await resumed.abandon();
	});

	it("a run that ended before any agent finished: says to run it again, not to resume (a resume is refused)", async () => {
		const id = await storedRun(`throw new Error("early bug");`);
		const text = await describeRun(store, registry, id);
		expect(text).toContain(`Run ${id} (t): failed`);
		expect(text).toContain("No agent result was saved: run the workflow again to retry.");
		expect(text).not.toContain("Resume:");
		await expect(DurableRun.resume(store, id)).rejects.toMatchObject({ code: "run_not_resumable" });
	});

	it("a run without a snapshot and without a live lock is listed as interrupted", async () => {
		const record = await store.create({ script: `${HEADER}return 1;`, meta: { name: "crashed", description: "d" } });
		const rows = await listRuns(store, registry);
		expect(rows[0]?.text).toContain(`${record.id} · crashed · interrupted`);
		const text = await describeRun(store, registry, record.id);
		expect(text).toContain("was interrupted");
		// Nothing was journaled, so a resume would be refused: it says to run the workflow again.
		expect(text).toContain("0 agent results are saved.\nNo agent result was saved: run the workflow again to retry.");
	});
});
