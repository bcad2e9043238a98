import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunLockInfo, RunRecord, RunStore } from "../../src/runs/index.ts";
import { spawnChild, tempStore } from "./support.ts";

/** A child that opens the run, takes its lock, says `held`, and stays alive until killed. */
function holder(store: RunStore, record: RunRecord) {
	return spawnChild(`
		const store = createRunStore({ cwd: ${JSON.stringify(store.cwd)}, root: ${JSON.stringify(store.root)} });
		const lock = await (await store.open(${JSON.stringify(record.id)})).acquire();
		console.log("held " + lock.info.pid);
		setInterval(() => {}, 60_000);`);
}

function lockFile(record: RunRecord): RunLockInfo {
	return JSON.parse(readFileSync(join(record.dir, "lock"), "utf8"));
}

function writeLock(record: RunRecord, info: Partial<RunLockInfo>): void {
	const lock: RunLockInfo = {
		pid: process.pid,
		hostname: hostname(),
		processStartedAt: new Date().toISOString(),
		acquiredAt: "2026-12-01T10:15:30.000Z",
		token: "feedbeef",
		...info,
	};
	writeFileSync(join(record.dir, "lock"), JSON.stringify(lock));
}

describe("record.acquire()", () => {
	it("takes the run; a second acquire is refused with run_busy; after release it is free again", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		const lock = await record.acquire();
		expect(lock.held).toBe(true);
		expect(lockFile(record)).toEqual({ ...lock.info, pid: process.pid, hostname: hostname() });
		const again = await store.open(record.id);
		await expect(again.acquire()).rejects.toMatchObject({
			code: "run_busy",
			message: `Run \`${record.id}\` is still running in this process (${process.pid}) (since ${lock.info.acquiredAt}). Stop it first, or wait until it ends`,
		});
		await lock.release();
		await lock.release();
		expect(lock.held).toBe(false);
		expect(existsSync(join(record.dir, "lock"))).toBe(false);
		const next = await again.acquire();
		await next.release();
		expect(readdirSync(record.dir).sort()).toEqual(["run.json", "script.js"]);
	});

	it("while a live child process holds it: refused, naming that process; once SIGKILLed: taken over", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		const child = holder(store, record);
		await child.waitFor("held");
		const pid = child.child.pid;
		const since = lockFile(record).acquiredAt;
		await expect(record.acquire()).rejects.toMatchObject({
			code: "run_busy",
			message: `Run \`${record.id}\` is still running in process ${pid} (since ${since}). Stop it first, or wait until it ends`,
			details: { runId: record.id, pid, hostname: hostname(), acquiredAt: since },
		});
		expect((await store.list())[0]).toMatchObject({ status: "running", lock: { pid } });
		child.child.kill("SIGKILL");
		await child.exited;
		const lock = await record.acquire();
		expect(lockFile(record).token).toBe(lock.info.token);
		await lock.release();
	});

	it("a lock whose pid now belongs to a process started later (pid reuse) is taken over", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		writeLock(record, { pid: process.pid, startTicks: 1 });
		const lock = await record.acquire();
		expect(lockFile(record).token).toBe(lock.info.token);
		await lock.release();
	});

	it("a lock from another host counts as live, and the message says the host cannot tell", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		writeLock(record, { pid: 4242, hostname: "build-box" });
		await expect(record.acquire()).rejects.toMatchObject({
			code: "run_busy",
			message: `Run \`${record.id}\` is held by process 4242 on host \`build-box\` (since 2026-12-01T10:15:30.000Z); this host cannot tell whether it is still running. Stop it there first, or delete ${join(record.dir, "lock")} if that process is gone`,
		});
	});

	it("a lock edited into garbage: refused with run_store saying to delete it if nothing runs the run", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		writeFileSync(join(record.dir, "lock"), '{"pid":"no"}');
		await expect(record.acquire()).rejects.toMatchObject({
			code: "run_store",
			message: `${join(record.dir, "lock")} is not a lock (no pid, host, token or time). If no process is running run \`${record.id}\`, delete it and retry`,
		});
	});

	it("release leaves a lock that is no longer its own (another process took the run over)", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		const lock = await record.acquire();
		writeLock(record, { token: "someoneelse" });
		await lock.release();
		expect(lockFile(record).token).toBe("someoneelse");
	});

	it("processes racing to take over a dead holder's lock: exactly one wins", async () => {
		const { store } = tempStore();
		const record = await store.create({ script: "" });
		const dead = holder(store, record);
		await dead.waitFor("held");
		dead.child.kill("SIGKILL");
		await dead.exited;
		// Each racer waits for the same instant after its own start-up, then acquires and keeps what it got.
		const goAt = Date.now() + 2500;
		const racers = Array.from({ length: 6 }, () =>
			spawnChild(`
				const store = createRunStore({ cwd: ${JSON.stringify(store.cwd)}, root: ${JSON.stringify(store.root)} });
				const record = await store.open(${JSON.stringify(record.id)});
				while (Date.now() < ${goAt}) {}
				try { await record.acquire(); console.log("outcome won"); }
				catch (error) { console.log("outcome " + error.code); }
				setInterval(() => {}, 60_000);`),
		);
		const outcomes = await Promise.all(
			racers.map(async (racer) => (await racer.waitFor("outcome")).match(/outcome (\S+)/)?.[1]),
		);
		expect(outcomes.filter((outcome) => outcome === "won")).toHaveLength(1);
		expect(outcomes.filter((outcome) => outcome !== "won").every((outcome) => outcome === "run_busy")).toBe(true);
		const winner = racers[outcomes.indexOf("won")];
		expect(lockFile(record).pid).toBe(winner?.child.pid);
	}, 30_000);
});
