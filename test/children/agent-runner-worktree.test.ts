/**
 * `isolation: "worktree"` with real pi sessions on the faux provider in a real temporary git repository: children
 * really `edit` and `write` files, and the repository shows what became of their changes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkflowProgressTracker, formatWorkflowProgress } from "../../src/progress/index.ts";
import type { WorkflowProgressEvent } from "../../src/runtime/core/events.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { busyRepos } from "../../src/worktree/index.ts";
import { fauxAssistantMessage, fauxToolCall, untilAborted } from "../helpers/faux.ts";
import { createTempRepo, type TempRepo } from "../helpers/git-repo.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

const RUN = "wf-20261201-120000-t3st01";
const HEADER = 'export const meta = { name: "iso", description: "isolated children" };\n';

let fx: RunnerFixture;
let repo: TempRepo;
beforeEach(async () => {
	fx = await createRunnerFixture();
	repo = createTempRepo();
});
afterEach(() => {
	fx.teardown();
	repo.dispose();
});

/** Runs `body` in the repository with isolated children; returns the result, its events and the folded envelope. */
async function run(body: string, options: { cwd?: string; signal?: AbortSignal; runFolder?: string } = {}) {
	const events: WorkflowProgressEvent[] = [];
	const { runFolder } = options;
	const result = await runWorkflowScript(HEADER + body, {
		agentRunner: fx.runner({
			cwd: repo.dir,
			worktreePlace: async () => ({ runId: RUN, dir: repo.runDir }),
			...(runFolder ? { runFolder: async () => runFolder } : {}),
		}),
		cwd: options.cwd ?? repo.dir,
		onProgress: (event) => events.push(event),
		...(options.signal ? { signal: options.signal } : {}),
	});
	const tracker = createWorkflowProgressTracker();
	for (const event of events) tracker.updateFromProgressEvent(event);
	return { result, events, envelope: tracker.complete(result).envelope };
}

const edit = (path: string, oldText: string, newText: string) =>
	fauxAssistantMessage([fauxToolCall("edit", { path, edits: [{ oldText, newText }] })], { stopReason: "toolUse" });
const write = (path: string, content: string) =>
	fauxAssistantMessage([fauxToolCall("write", { path, content })], { stopReason: "toolUse" });

describe('isolation: "worktree" on real pi sessions', () => {
	it("a child that edits: its change is committed on its branch and kept, the main tree is untouched", async () => {
		fx.faux.route("Fix add", [edit("src/math.js", "a - b", "a + b"), fauxAssistantMessage("add() fixed")]);
		const { result, events, envelope } = await run(
			'return await agent("Fix add in src/math.js", { label: "fix add", isolation: "worktree" });',
		);
		const branch = `workflows/${RUN}/fix-add`;
		// The script gets the child's answer, nothing else.
		expect(result).toMatchObject({ status: "completed", value: "add() fixed" });
		expect(fx.faux.requests[1]?.last).toMatchObject({ role: "toolResult", isError: false });
		expect(repo.git(["show", `${branch}:src/math.js`])).toBe("export const add = (a, b) => a + b;\n");
		expect(repo.git(["diff", "--name-only", "main", branch]).trim()).toBe("src/math.js");
		expect(repo.read("src/math.js")).toContain("a - b");
		expect(repo.git(["status", "--porcelain"])).toBe("");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		// The child was told where it works, and pi's own cwd section names the worktree.
		const worktree = join(repo.runDir, "fix-add");
		expect(fx.faux.requests[0]?.task).toContain(`You are working in an isolated git worktree at ${worktree}`);
		expect(fx.faux.requests[0]?.task).toContain("do not touch the main working tree");
		expect(fx.faux.requests[0]?.systemPrompt).toContain(worktree);
		// The metadata: the finished event, the call in the envelope, the run's kept branches and its text.
		const finished = events.find((event) => event.type === "agent_finished");
		expect(finished).toMatchObject({ worktree: { branch, kept: true, files: ["src/math.js"], fileCount: 1 } });
		expect(envelope.agentCalls[0]?.worktree).toMatchObject({ branch, kept: true });
		expect(envelope.branches).toEqual([
			{ branch, label: "fix add", index: 0, files: ["src/math.js"], fileCount: 1, commit: expect.any(String) },
		]);
		const text = formatWorkflowProgress(envelope);
		expect(text).toContain(`· branch ${branch} (1 file)`);
		expect(text).toContain(`Kept branches (1), to merge or delete:\n  ${branch} · #1 fix add · 1 file: src/math.js`);
	});

	it("with no folder for conversations, a stalled isolated child is retried in a fresh worktree; the stalled attempt's change is kept on its own branch", async () => {
		fx.faux.route("Fix add", [
			write("notes/first-try.md", "half done\n"),
			untilAborted(),
			edit("src/math.js", "a - b", "a + b"),
			fauxAssistantMessage("add() fixed on the retry"),
		]);
		const { result, envelope } = await run(
			'return await agent("Fix add in src/math.js", { label: "fix add", isolation: "worktree", stallMs: 1500 });',
		);
		// The script sees one call and the retry's answer.
		expect(result).toMatchObject({ status: "completed", value: "add() fixed on the retry" });
		const first = `workflows/${RUN}/fix-add`;
		const retry = `workflows/${RUN}/fix-add-2`;
		expect(repo.git(["show", `${first}:notes/first-try.md`])).toBe("half done\n");
		expect(repo.git(["diff", "--name-only", "main", first]).trim()).toBe("notes/first-try.md");
		expect(repo.git(["diff", "--name-only", "main", retry]).trim()).toBe("src/math.js");
		// Both branches are the run's output: the stalled attempt's is listed too, not lost with its attempt.
		expect(envelope.branches?.map((kept) => kept.branch).sort()).toEqual([first, retry]);
		expect(repo.read("src/math.js")).toContain("a - b");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
	});

	it("a stalled isolated child in a recorded run goes on in its kept worktree and branch, its first edit there (issue 47)", async () => {
		const runFolder = mkdtempSync(join(tmpdir(), "pi-workflows-iso-run-"));
		try {
			fx.faux.route("Fix add", [
				write("notes/first-try.md", "half done\n"),
				untilAborted(),
				edit("notes/first-try.md", "half done", "all done"),
				edit("src/math.js", "a - b", "a + b"),
				fauxAssistantMessage("add() fixed, going on"),
			]);
			const before = fx.faux.requests.length;
			const { result, envelope } = await run(
				'return await agent("Fix add in src/math.js", { label: "fix add", isolation: "worktree", stallMs: 1500 });',
				{ runFolder },
			);
			expect(result).toMatchObject({ status: "completed", value: "add() fixed, going on" });
			const asked = fx.faux.requests.slice(before);
			// The retry was told where it goes on, and its edit of the first attempt's file found it there.
			const worktree = join(repo.runDir, "fix-add");
			expect(asked[2]?.last.role).toBe("user");
			expect(asked[2]?.last.text).toMatch(/^This task was interrupted after 1 finished turn/);
			expect(asked[2]?.last.text).toContain(
				`You are in the same isolated git worktree as before, at ${worktree} on branch \`workflows/${RUN}/fix-add\`: the changes of your finished turns are there.`,
			);
			expect(asked[3]?.last).toMatchObject({ role: "toolResult", isError: false });
			// One branch holds both attempts' work; no second worktree was made.
			const branch = `workflows/${RUN}/fix-add`;
			expect(repo.git(["show", `${branch}:notes/first-try.md`])).toBe("all done\n");
			expect(repo.git(["show", `${branch}:src/math.js`])).toContain("a + b");
			expect(repo.git(["branch", "--list", "workflows/*", "--format=%(refname:short)"]).trim()).toBe(branch);
			expect(envelope.branches?.map((kept) => kept.branch)).toEqual([branch]);
			expect(envelope.branches?.[0]?.files).toEqual(["notes/first-try.md", "src/math.js"]);
			expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		} finally {
			rmSync(runFolder, { recursive: true, force: true });
		}
	});

	it("a stalled isolated child that had only read goes on in the same place, its worktree made again from HEAD", async () => {
		const runFolder = mkdtempSync(join(tmpdir(), "pi-workflows-iso-run-"));
		try {
			fx.faux.route("Fix sub", [
				fauxAssistantMessage([fauxToolCall("read", { path: "src/math.js" })], { stopReason: "toolUse" }),
				untilAborted(),
				edit("src/math.js", "a - b", "a * b"),
				fauxAssistantMessage("sub fixed after reading"),
			]);
			const before = fx.faux.requests.length;
			const { result } = await run(
				'return await agent("Fix sub in src/math.js", { label: "fix sub", isolation: "worktree", stallMs: 1500 });',
				{ runFolder },
			);
			expect(result).toMatchObject({ status: "completed", value: "sub fixed after reading" });
			const told = fx.faux.requests[before + 2]?.last.text ?? "";
			expect(told).toMatch(/^This task was interrupted after 1 finished turn/);
			const worktree = join(repo.runDir, "fix-sub");
			expect(told).toContain(
				`Your isolated git worktree was made again at ${worktree} on branch \`workflows/${RUN}/fix-sub\`, from the repository's HEAD: your interrupted attempt left no change to keep.`,
			);
			const branch = `workflows/${RUN}/fix-sub`;
			expect(repo.git(["show", `${branch}:src/math.js`])).toContain("a * b");
			expect(repo.git(["branch", "--list", "workflows/*", "--format=%(refname:short)"]).trim()).toBe(branch);
			expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		} finally {
			rmSync(runFolder, { recursive: true, force: true });
		}
	});

	it("a child that changes nothing: its worktree and branch are removed", async () => {
		fx.faux.route("Look at", [fauxAssistantMessage("nothing to change")]);
		const { result, envelope } = await run('return await agent("Look at src/math.js", { isolation: "worktree" });');
		expect(result.value).toBe("nothing to change");
		expect(repo.git(["branch", "--list", "workflows/*"])).toBe("");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		expect(envelope.agentCalls[0]?.worktree).toMatchObject({ kept: false });
		expect(envelope.branches).toBeUndefined();
		expect(formatWorkflowProgress(envelope)).toContain("· no changes");
	});

	it("two isolated children at once, writing and editing: two branches, no lock error, nothing left over", async () => {
		fx.faux.route("Task A", [write("docs/a.md", "A\n"), fauxAssistantMessage("wrote a")]);
		fx.faux.route("Task B", [edit("README.md", "# demo", "# demo, edited"), fauxAssistantMessage("edited readme")]);
		const { result, envelope } = await run(
			'return await parallel(["A", "B"].map((x) => () => agent("Task " + x, { label: "task " + x, isolation: "worktree" })));',
		);
		expect(result.failures).toEqual([]);
		expect(result.value).toEqual(["wrote a", "edited readme"]);
		expect(repo.git(["show", `workflows/${RUN}/task-a:docs/a.md`])).toBe("A\n");
		expect(repo.git(["show", `workflows/${RUN}/task-b:README.md`])).toBe("# demo, edited\n");
		// Each branch has only its own child's change.
		expect(repo.git(["diff", "--name-only", "main", `workflows/${RUN}/task-b`]).trim()).toBe("README.md");
		expect(envelope.branches?.map((b) => b.branch)).toEqual([`workflows/${RUN}/task-a`, `workflows/${RUN}/task-b`]);
		expect(repo.read("README.md")).toBe("# demo\n");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		expect(busyRepos()).toBe(0);
	});

	it("from a subdirectory of the repository: the child works in the same subdirectory of its worktree", async () => {
		fx.faux.route("Fix here", [edit("math.js", "a - b", "a * b"), fauxAssistantMessage("done")]);
		const { result } = await run('return await agent("Fix here", { label: "sub", isolation: "worktree" });', {
			cwd: join(repo.dir, "src"),
		});
		expect(result.value).toBe("done");
		expect(repo.git(["show", `workflows/${RUN}/sub:src/math.js`])).toContain("a * b");
	});

	it("a failed child keeps what it changed on its branch, and the census says where", async () => {
		fx.faux.route("Half", [
			write("half.txt", "partial\n"),
			fauxAssistantMessage([], { stopReason: "error", errorMessage: "provider down" }),
		]);
		const { result, envelope } = await run(
			'return await agent("Half a job", { label: "half", isolation: "worktree" });',
		);
		expect(result.value).toBeNull();
		expect(result.failures).toEqual([
			expect.objectContaining({
				cause: "provider down",
				worktree: expect.objectContaining({ branch: `workflows/${RUN}/half`, kept: true, files: ["half.txt"] }),
			}),
		]);
		expect(repo.git(["show", `workflows/${RUN}/half:half.txt`])).toBe("partial\n");
		expect(formatWorkflowProgress(envelope)).toContain(
			`provider down; its changes are kept on branch workflows/${RUN}/half`,
		);
	});

	it("cancel mid-child: nothing locked, no worktree without changes, the changed one kept on its branch", async () => {
		fx.faux.route("Busy writer", [write("w.txt", "w\n"), untilAborted()]);
		fx.faux.route("Busy reader", [untilAborted()]);
		const controller = new AbortController();
		const running = run(
			'return await parallel([() => agent("Busy writer", { label: "writer", isolation: "worktree" }), () => agent("Busy reader", { label: "reader", isolation: "worktree" })]);',
			{ signal: controller.signal },
		);
		// Both children are waiting on the model: the writer after its write, the reader at once.
		while (fx.faux.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
		controller.abort();
		const { result, envelope } = await running;
		expect(result.status).toBe("stopped");
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
		expect(repo.git(["branch", "--list", "workflows/*", "--format=%(refname:short)"]).trim()).toBe(
			`workflows/${RUN}/writer`,
		);
		expect(repo.git(["show", `workflows/${RUN}/writer:w.txt`])).toBe("w\n");
		// A stopped child's result does not reach the script, but its report does: the run's end lists the branch.
		expect(envelope.branches?.map((b) => b.branch)).toEqual([`workflows/${RUN}/writer`]);
		expect(fx.tracker.live.size).toBe(0);
	});
});

describe('isolation: "worktree" errors: the child fails before it starts (null + a census cause with its code)', () => {
	/** Runs one isolated call in `cwd`; returns its census entry. */
	async function failedCall(cwd: string) {
		const { result } = await run('return await agent("Fix it", { label: "fix", isolation: "worktree" });', { cwd });
		expect(result.value).toBeNull();
		expect(result.failures).toHaveLength(1);
		expect(fx.tracker.created).toEqual([]);
		return result.failures[0];
	}

	it("not a git repository", async () => {
		const plain = mkdtempSync(join(tmpdir(), "pi-workflows-plain-"));
		try {
			const failure = await failedCall(plain);
			expect(failure?.code).toBe("worktree_not_a_repo");
			expect(failure?.cause).toMatch(/^isolation "worktree": `isolation: "worktree"` needs a git repository, and /);
			expect(failure?.cause).toContain("leave `isolation` out");
		} finally {
			rmSync(plain, { recursive: true, force: true });
		}
	});

	it("no commit yet", async () => {
		const empty = createTempRepo({ commit: false });
		try {
			const failure = await failedCall(empty.dir);
			expect(failure?.code).toBe("worktree_no_commit");
			expect(failure?.cause).toContain("has no commit yet (HEAD is unborn)");
		} finally {
			empty.dispose();
		}
	});

	it("a branch in the way", async () => {
		repo.git(["branch", "workflows"]);
		const failure = await failedCall(repo.dir);
		expect(failure?.code).toBe("worktree_branch_exists");
		expect(failure?.cause).toContain(`git cannot create branch \`workflows/${RUN}/fix\``);
		expect(repo.leftovers()).toEqual({ worktrees: [], locks: [] });
	});

	it("a lock held by another git command", async () => {
		const lock = join(repo.dir, ".git", "refs", "heads", "workflows", RUN, "fix.lock");
		mkdirSync(join(lock, ".."), { recursive: true });
		writeFileSync(lock, "");
		const failure = await failedCall(repo.dir);
		expect(failure?.code).toBe("worktree_locked");
		expect(failure?.cause).toContain("remove the `.lock` file it names if no git process is running");
	});

	it("git missing", async () => {
		const path = process.env.PATH;
		process.env.PATH = mkdtempSync(join(tmpdir(), "pi-workflows-nopath-"));
		try {
			const failure = await failedCall(repo.dir);
			expect(failure?.code).toBe("worktree_git_missing");
			expect(failure?.cause).toContain("`git` was not found on PATH");
		} finally {
			rmSync(process.env.PATH, { recursive: true, force: true });
			process.env.PATH = path;
		}
	});
});
