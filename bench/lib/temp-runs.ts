/**
 * Run records for the durable-run rows: each sample gets its own temp root holding one run, opened the way a host
 * opens one (lock, then journal), and everything is closed and deleted afterwards, whatever the sample did.
 */
import { mkdtemp, rm, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunStore, type RunJournal, type RunRecord } from "../../src/runs/index.ts";
import { now } from "./stats.ts";

/** A fresh run of `script` in a new temp root, for `use`; the root is deleted afterwards. */
export async function withTempRun<T>(script: string, use: (record: RunRecord, root: string) => Promise<T>): Promise<T> {
	const root = await mkdtemp(join(tmpdir(), "pi-workflows-bench-"));
	try {
		const store = createRunStore({ cwd: root, root: join(root, "runs") });
		return await use(await store.create({ script }), root);
	} finally {
		await rm(root, { recursive: true, force: true });
	}
}

/** Holds `record` (its lock, then its journal, `openMs` timing the journal's load) for `use`, then lets it go. */
export async function withJournal<T>(
	record: RunRecord,
	use: (journal: RunJournal, openMs: number) => Promise<T>,
): Promise<T> {
	const lock = await record.acquire();
	try {
		const started = now();
		const journal = await record.journal();
		const openMs = now() - started;
		try {
			return await use(journal, openMs);
		} finally {
			await journal.close();
		}
	} finally {
		await lock.release();
	}
}

/** Names of the file systems whose fdatasync the rows may meet (statfs magic numbers). */
const FILE_SYSTEMS = new Map([
	[0xef53, "ext2/3/4"],
	[0x58465342, "xfs"],
	[0x9123683e, "btrfs"],
	[0x01021994, "tmpfs (fdatasync does nothing)"],
	[0x794c7630, "overlayfs"],
]);

/** The file system the temp roots are made on, for the notes: a tmpfs `/tmp` makes every fsync free. */
export async function tempFileSystem(): Promise<string> {
	const { type } = await statfs(tmpdir());
	return `${tmpdir()} on ${FILE_SYSTEMS.get(type) ?? `file system 0x${type.toString(16)}`}`;
}
