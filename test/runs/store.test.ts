import {
	chmodSync,
	chownSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/errors.ts";
import { createConversationFile, createRunStore, defaultRunsRoot, isRunId } from "../../src/runs/index.ts";
import type { WorkflowRunResult } from "../../src/runtime/index.ts";
import { spawnChild, tempDir, tempStore } from "./support.ts";

const META = { name: "triage", description: "sort the failures" };

const RESULT: WorkflowRunResult = {
	status: "failed",
	value: { partial: true },
	error: { code: "script_error", message: "boom (3:1)", line: 3, column: 1 },
	meta: META,
	failures: [],
	counts: { calls: 3, started: 3, completed: 2, failed: 1, skipped: 0 },
	usage: { input: 30, output: 12, total: 42 },
	cost: { usd: 0.0042 },
	droppedLogs: 0,
	durationMs: 1200,
};

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<WorkflowError> {
	const error = await promise.then(
		() => expect.fail("expected a rejection"),
		(e: unknown) => e,
	);
	expect(error).toBeInstanceOf(WorkflowError);
	return error as WorkflowError;
}

function mode(path: string): number {
	return statSync(path).mode & 0o777;
}

describe("defaultRunsRoot()", () => {
	it.each([
		["no PI_CODING_AGENT_DIR: under ~/.pi/agent", {}, "/home/ann/.pi/agent/workflow-runs"],
		["PI_CODING_AGENT_DIR with a tilde", { PI_CODING_AGENT_DIR: "~/agents/pi" }, "/home/ann/agents/pi/workflow-runs"],
		["PI_CODING_AGENT_DIR absolute", { PI_CODING_AGENT_DIR: "/srv/pi" }, "/srv/pi/workflow-runs"],
	])("%s", (_name, env, expected) => {
		expect(defaultRunsRoot(env, "/home/ann")).toBe(expected);
	});
});

describe("createRunStore()", () => {
	it("gives each project its own readable folder, also for a path with odd characters", () => {
		const base = tempDir();
		const odd = join(base, "my proj:ü*?");
		const plain = join(base, "my-proj");
		mkdirSync(odd);
		mkdirSync(plain);
		const a = createRunStore({ cwd: odd, root: join(base, "runs") });
		const b = createRunStore({ cwd: plain, root: join(base, "runs") });
		expect(a.dir).not.toBe(b.dir);
		for (const store of [a, b]) {
			const folder = store.dir.slice(join(base, "runs").length + 1);
			expect(folder).toMatch(/^[A-Za-z0-9._-]*my-proj-[0-9a-f]{10}$/);
		}
	});

	it("names the project by its real path: a symlinked cwd is the same project", async () => {
		const { store, base } = tempStore();
		symlinkSync(join(base, "project"), join(base, "link"));
		expect(createRunStore({ cwd: join(base, "link"), root: store.root }).dir).toBe(store.dir);
	});

	it("on a cwd that does not exist: throws run_store naming the path", () => {
		const missing = join(tempDir(), "gone");
		expect(() => createRunStore({ cwd: missing })).toThrow(
			expect.objectContaining({ code: "run_store", message: expect.stringContaining(missing) }),
		);
	});

	it("on misuse: throws a TypeError", () => {
		expect(() => createRunStore({ cwd: "" })).toThrow(
			new TypeError('Expected `cwd` to be a non-empty string, got ""'),
		);
	});
});

describe("store.create()", () => {
	it("writes run.json with a fresh id, private folders (0700) and files (0600) even under umask 000", async () => {
		const { store, root } = tempStore();
		const previous = process.umask(0);
		try {
			const record = await store.create({
				script: "return 1",
				filename: "triage.js",
				args: { n: 2 },
				meta: META,
				origin: { session: "s1" },
			});
			expect(isRunId(record.id)).toBe(true);
			expect(record.id).toMatch(/^wf-\d{8}-\d{6}-[0-9a-z]{6}$/);
			const info = JSON.parse(readFileSync(join(record.dir, "run.json"), "utf8"));
			expect(info).toEqual({
				version: 1,
				id: record.id,
				createdAt: expect.any(String),
				cwd: store.cwd,
				script: "return 1",
				filename: "triage.js",
				args: { n: 2 },
				meta: META,
				origin: { session: "s1" },
			});
			await record.writeSnapshot(RESULT);
			const journal = await record.journal();
			await journal.record({ key: "k", value: 1 });
			await journal.close();
			await (await record.acquire()).release();
			const log = await record.eventLog();
			log.append({ type: "phase_start", time: 1, phase: "p" });
			await log.close();
			const conversation = await createConversationFile(record.dir, { index: 3, label: "Fix: auth!" }, "{}\n");
			expect(conversation).toBe("children/003-fix-auth-1.jsonl");
			expect(mode(root)).toBe(0o700);
			expect(mode(store.dir)).toBe(0o700);
			expect(mode(record.dir)).toBe(0o700);
			expect(mode(join(record.dir, "children"))).toBe(0o700);
			for (const file of ["run.json", "script.js", "snapshot.json", "journal.jsonl", "events.jsonl", conversation])
				expect(mode(join(record.dir, file))).toBe(0o600);
			// Atomic writes leave no temp files behind.
			expect(readdirSync(record.dir).sort()).toEqual([
				"children",
				"events.jsonl",
				"journal.jsonl",
				"run.json",
				"script.js",
				"snapshot.json",
			]);
			// A second session of the same call never writes over the first's file.
			expect(await createConversationFile(record.dir, { index: 3, label: "Fix: auth!" }, "{}\n")).toBe(
				"children/003-fix-auth-2.jsonl",
			);
			expect((await record.conversations()).map((c) => [c.index, c.slug, c.n])).toEqual([
				[3, "fix-auth", 1],
				[3, "fix-auth", 2],
			]);
		} finally {
			process.umask(previous);
		}
	});

	it("makes distinct ids for runs created in the same second, sorted by time", async () => {
		const { store } = tempStore();
		const ids = (await Promise.all(Array.from({ length: 20 }, () => store.create({ script: "" })))).map((r) => r.id);
		expect(new Set(ids).size).toBe(20);
		expect(ids.every(isRunId)).toBe(true);
	});
});

describe("store.open()", () => {
	it("gives back the record create wrote", async () => {
		const { store } = tempStore();
		const created = await store.create({ script: "return 2", meta: META });
		const opened = await store.open(created.id);
		expect(opened.info).toEqual(created.info);
		expect(opened.dir).toBe(created.dir);
	});

	it.each(["../x", "..", "", "wf-20261201-101530-../../etc", "/etc/passwd", "wf-20261201-101530-K3F9", "a/b"])(
		"on a malformed id %j: throws run_id_invalid, never a path lookup",
		async (id) => {
			const { store } = tempStore();
			const error = await rejection(store.open(id));
			expect(error.code).toBe("run_id_invalid");
			expect(error.message).toBe(
				`\`${id}\` is not a run id. Run ids look like \`wf-20261201-101530-k3f9x2\`: list this project's runs to find one`,
			);
		},
	);

	it("on an unknown id: throws run_not_found and lists the most recent ids of this project", async () => {
		const { store } = tempStore();
		const ids = [];
		for (let i = 0; i < 7; i++) ids.push((await store.create({ script: "" })).id);
		const recent = ids.sort().reverse().slice(0, 5);
		const error = await rejection(store.open("wf-20200101-000000-aaaa"));
		expect(error.code).toBe("run_not_found");
		expect(error.message).toBe(
			`Run \`wf-20200101-000000-aaaa\` not found in project ${store.cwd}. Recent runs here: ${recent.join(", ")}`,
		);
		expect(error.details).toEqual({ runId: "wf-20200101-000000-aaaa", project: store.cwd, recent });
	});

	it("on an unknown id in a project with no runs: says so", async () => {
		const { store } = tempStore();
		const error = await rejection(store.open("wf-20200101-000000-aaaa"));
		expect(error.message).toBe(
			`Run \`wf-20200101-000000-aaaa\` not found in project ${store.cwd}. This project has no runs yet`,
		);
	});

	it("on another project's run: throws run_not_found saying which project has it, and does not open it", async () => {
		const { store: mine, base } = tempStore("mine");
		mkdirSync(join(base, "theirs"));
		const theirs = createRunStore({ cwd: join(base, "theirs"), root: mine.root });
		const record = await theirs.create({ script: "" });
		const error = await rejection(mine.open(record.id));
		expect(error.code).toBe("run_not_found");
		expect(error.message).toBe(
			`Run \`${record.id}\` belongs to another project (${theirs.cwd}), not ${mine.cwd}. Open it from that project`,
		);
		expect(error.details).toMatchObject({ otherProject: theirs.cwd });
	});

	it("on a run.json edited into garbage: throws run_store naming the file and what to do", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		const path = join(record.dir, "run.json");
		writeFileSync(path, "{ not json");
		const error = await rejection(store.open(record.id));
		expect(error.code).toBe("run_store");
		expect(error.message).toMatch(
			new RegExp(`^${path} is not valid JSON \\(.+\\)\\. Restore it, or delete the folder of run \`${record.id}\`$`),
		);
	});

	// Root ignores permission bits, so as root the case runs in a child process as `nobody`.
	it("on a run folder without permission: throws run_store naming the path and the fix", async () => {
		const base = tempDir();
		const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
		if (asNobody.uid !== undefined) {
			chownSync(base, 65534, 65534);
		}
		const { exited, output } = spawnChild(
			`import { chmodSync, mkdirSync } from "node:fs";
			const base = ${JSON.stringify(base)};
			mkdirSync(base + "/project");
			const store = createRunStore({ cwd: base + "/project", root: base + "/runs" });
			const record = await store.create({ script: "" });
			chmodSync(record.dir, 0);
			try { await store.open(record.id); console.log("opened"); }
			catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message, dir: record.dir })); }
			chmodSync(record.dir, 0o700);`,
			asNobody,
		);
		expect(await exited, output()).toBe(0);
		const { code, message, dir } = JSON.parse(output());
		expect(code).toBe("run_store");
		expect(message).toContain(`Cannot read ${dir}/run.json: EACCES: permission denied`);
		expect(message).toContain("Permission denied: run as the user who owns it, or give it back to yourself");
		chmodSync(base, 0o700);
	});
});

describe("record.writeSnapshot() / readSnapshot()", () => {
	it("writes the result with the run id and end time; a second write (a resume) replaces it", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		expect(await record.readSnapshot()).toBeUndefined();
		const first = await record.writeSnapshot(RESULT);
		expect(first).toEqual({ ...RESULT, runId: record.id, endedAt: expect.any(String) });
		expect(await (await store.open(record.id)).readSnapshot()).toEqual(first);
		await record.writeSnapshot({ ...RESULT, status: "completed", error: undefined });
		expect(await record.readSnapshot()).toMatchObject({ status: "completed", runId: record.id });
	});

	it("on a snapshot edited into garbage: throws run_store saying the journal still holds the agents", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		writeFileSync(join(record.dir, "snapshot.json"), '{"status":"done"}');
		const error = await rejection(record.readSnapshot());
		expect(error.message).toBe(
			`${join(record.dir, "snapshot.json")} is not a run snapshot (needs status, counts and usage). Delete it to treat run \`${record.id}\` as interrupted; its journal still holds the finished agents`,
		);
	});
});

describe("store.list()", () => {
	it("lists this project's runs newest first: running, ended, interrupted, with agents and tokens", async () => {
		const { store, base } = tempStore();
		mkdirSync(join(base, "other"));
		await createRunStore({ cwd: join(base, "other"), root: store.root }).create({ script: "" });
		expect(await store.list()).toEqual([]);

		const ended = await store.create({ script: "", meta: META });
		await ended.writeSnapshot(RESULT);
		const crashed = await store.create({ script: "" });
		const journal = await crashed.journal();
		await journal.record({ key: "a", value: "x", usage: { input: 1, output: 2, total: 3 } });
		await journal.record({ key: "b", value: "y", usage: { input: 1, output: 1, total: 2 } });
		await journal.close();
		const live = await store.create({ script: "", meta: { ...META, name: "live" } });
		const lock = await live.acquire();

		const list = await store.list();
		const newestFirst = [ended, crashed, live]
			.map((run) => run.info)
			.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
			.map((info) => info.id);
		expect(list.map((run) => run.id)).toEqual(newestFirst);
		const byId = new Map(list.map((run) => [run.id, run]));
		expect(byId.get(ended.id)).toEqual({
			id: ended.id,
			name: "triage",
			status: "failed",
			createdAt: ended.info.createdAt,
			endedAt: expect.any(String),
			agents: 2,
			tokens: 42,
			cost: { usd: 0.0042 },
		});
		expect(byId.get(crashed.id)).toEqual({
			id: crashed.id,
			status: "interrupted",
			createdAt: crashed.info.createdAt,
			agents: 2,
			tokens: 5,
		});
		expect(byId.get(live.id)).toMatchObject({ status: "running", name: "live", lock: { pid: process.pid } });
		await lock.release();
		expect((await store.list()).find((run) => run.id === live.id)?.status).toBe("interrupted");
	});

	it("on a run whose files were edited into garbage: lists it with the problem instead of failing", async () => {
		const { store } = tempStore();
		const good = await store.create({ script: "" });
		const bad = await store.create({ script: "" });
		writeFileSync(join(bad.dir, "snapshot.json"), "garbage");
		writeFileSync(join(bad.dir, "lock"), "garbage");
		const list = await store.list();
		expect(list).toHaveLength(2);
		expect(list.find((run) => run.id === good.id)?.problem).toBeUndefined();
		const broken = list.find((run) => run.id === bad.id);
		expect(broken?.status).toBe("interrupted");
		expect(broken?.problem).toContain(`${join(bad.dir, "snapshot.json")} is not valid JSON`);
		expect(broken?.problem).toContain(`${join(bad.dir, "lock")} is not valid JSON`);
	});
});

describe("record.revise()", () => {
	it("replaces the script and args a later open starts from, and keeps the rest", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "v1", filename: "a.js", args: { n: 1 }, meta: META });
		await record.revise({ script: "v2", args: { n: 2 } });
		expect(record.info).toMatchObject({ script: "v2", args: { n: 2 }, filename: "a.js", meta: META });
		const reopened = await store.open(record.id);
		expect(reopened.info).toMatchObject({ id: record.id, script: "v2", args: { n: 2 }, filename: "a.js" });
		expect(Date.parse(reopened.info.revisedAt ?? "")).toBeGreaterThan(0);
		// The script file follows: it is what a person or a model reads and edits for the next resume.
		expect(readFileSync(record.scriptPath, "utf8")).toBe("v2");
		expect(await reopened.readScript()).toBe("v2");
	});
});

describe("record.scriptPath", () => {
	it("is the run's script as a file, which a resume reads as it is now (edited or not)", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "return 1;", meta: META });
		expect(record.scriptPath).toBe(join(record.dir, "script.js"));
		expect(readFileSync(record.scriptPath, "utf8")).toBe("return 1;");
		writeFileSync(record.scriptPath, "return 2;");
		expect(await (await store.open(record.id)).readScript()).toBe("return 2;");
	});

	it("a record made before the script file existed: readScript falls back to run.json, ensureScript writes the file", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "return 1;", meta: META });
		rmSync(record.scriptPath);
		const reopened = await store.open(record.id);
		expect(await reopened.readScript()).toBe("return 1;");
		expect(await reopened.ensureScript()).toBe(record.scriptPath);
		expect(readFileSync(record.scriptPath, "utf8")).toBe("return 1;");
		expect(mode(record.scriptPath)).toBe(0o600);
	});
});
