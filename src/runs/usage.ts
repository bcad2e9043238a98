/**
 * The space a run's folder takes: every file under it, whatever the host keeps there (journal, snapshot, event log,
 * children's conversations), counted by walking the folder without following links, so a link out of the folder
 * counts as the link only. Bounded: a folder of more than `MAX_ENTRIES` entries is counted that far.
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Entries one walk looks at, at most; past it the count is a lower bound (`partial`). */
const MAX_ENTRIES = 20_000;

/** What a folder holds, in bytes of its files (their sizes, not the disk blocks they take). */
export interface FolderUsage {
	bytes: number;
	files: number;
	/** True when the walk stopped at its bound (or met an entry it could not read): `bytes` is then at least that. */
	partial?: boolean;
}

/** Adds up the sizes of the files under `dir`; a folder that does not exist holds 0 bytes. */
export async function folderUsage(dir: string): Promise<FolderUsage> {
	const usage: FolderUsage = { bytes: 0, files: 0 };
	const pending = [dir];
	let seen = 0;
	while (pending.length > 0) {
		const folder = pending.pop() as string;
		let entries: import("node:fs").Dirent[];
		try {
			entries = await readdir(folder, { withFileTypes: true });
		} catch {
			// Gone in between (a run being deleted) or unreadable: what could be counted is counted.
			if (folder !== dir) usage.partial = true;
			continue;
		}
		for (const entry of entries) {
			if (++seen > MAX_ENTRIES) {
				usage.partial = true;
				return usage;
			}
			const path = join(folder, entry.name);
			// A Dirent says "directory" only for a real folder, never for a link to one: links are not followed.
			if (entry.isDirectory()) {
				pending.push(path);
				continue;
			}
			try {
				usage.bytes += (await lstat(path)).size;
				usage.files++;
			} catch {
				usage.partial = true;
			}
		}
	}
	return usage;
}
