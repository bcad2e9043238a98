/**
 * Reading a file a repository may have planted, bounded: only a regular file, at most `maxBytes`. A symlink to
 * `/dev/zero`, a FIFO or a huge file in `.pi/workflows` or `.claude/agents` would otherwise read without end, block
 * pi at session start, or fill memory. A symlink to a regular file is followed: people link shared workflows and
 * agents from a dotfiles folder, and what it reaches is bounded like any other file and no more than pi could read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { errorMessage } from "../errors.ts";

/** The text of a file, or why it was not read. */
export type RegularFileRead =
	| { ok: true; text: string }
	| { ok: false; problem: "not_regular" | "too_large" | "unreadable"; reason: string };

/**
 * Reads `path` as UTF-8 when it is a regular file (symlinks followed) of at most `maxBytes`; never throws, never
 * blocks on a FIFO, never reads more than `maxBytes + 1` bytes.
 */
export function readRegularFile(path: string, maxBytes: number): RegularFileRead {
	let fd: number;
	try {
		// Checked before opening too: opening some devices does something (a tape rewinds, a tty becomes ours).
		const before = statSync(path);
		if (!before.isFile()) return notRegular(before);
		// O_NONBLOCK: should a FIFO take the file's place after the check, opening it does not wait for a writer.
		fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
	} catch (error) {
		return { ok: false, problem: "unreadable", reason: errorMessage(error) };
	}
	try {
		const stats = fstatSync(fd);
		if (!stats.isFile()) return notRegular(stats);
		if (stats.size > maxBytes) return tooLarge(stats.size, maxBytes);
		// Read to the end but never past one byte over the limit: the file may have grown since `fstat`, and a file
		// in /proc says 0 bytes whatever it holds.
		const buffer = Buffer.allocUnsafe(maxBytes + 1);
		let length = 0;
		while (length < buffer.length) {
			const read = readSync(fd, buffer, length, buffer.length - length, null);
			if (read === 0) break;
			length += read;
		}
		if (length > maxBytes) return tooLarge(length, maxBytes, "at least ");
		return { ok: true, text: buffer.toString("utf8", 0, length) };
	} catch (error) {
		return { ok: false, problem: "unreadable", reason: errorMessage(error) };
	} finally {
		closeSync(fd);
	}
}

function notRegular(stats: Stats): RegularFileRead {
	return { ok: false, problem: "not_regular", reason: `it is ${kindOf(stats)}, not a regular file` };
}

function tooLarge(size: number, maxBytes: number, atLeast = ""): RegularFileRead {
	return {
		ok: false,
		problem: "too_large",
		reason: `it is ${atLeast}${size} bytes, over the limit of ${maxBytes} bytes`,
	};
}

function kindOf(stats: Stats): string {
	if (stats.isDirectory()) return "a directory";
	if (stats.isFIFO()) return "a named pipe (FIFO)";
	if (stats.isCharacterDevice()) return "a character device";
	if (stats.isBlockDevice()) return "a block device";
	if (stats.isSocket()) return "a socket";
	return "not a file";
}
