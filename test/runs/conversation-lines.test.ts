/**
 * `readConversationLines`: what a continued child starts from is read only from the run's own `children/` folder.
 * A link (the file or the folder), a FIFO and a line that is not a session entry are refused with why; a file that
 * is not there is undefined.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConversationLines } from "../../src/runs/index.ts";
import { tempDir } from "./support.ts";

const HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const ENTRY = '{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi","timestamp":1}}';
const PATH = "children/000-reviewer-1.jsonl";

/** A run folder with a kept conversation, and a folder beside it that is not the run's. */
function runDir() {
	const base = tempDir();
	const dir = join(base, "run");
	mkdirSync(join(dir, "children"), { recursive: true });
	writeFileSync(join(dir, PATH), `${HEADER}\n${ENTRY}\n`);
	const outside = join(base, "outside");
	mkdirSync(outside);
	writeFileSync(join(outside, "000-reviewer-1.jsonl"), `${HEADER}\n${ENTRY.replace("hi", "SECRET")}\n`);
	return { dir, outside };
}

describe("readConversationLines", () => {
	it("gives the entries after pi's header of the run's own file", async () => {
		const { dir } = runDir();
		expect(await readConversationLines(dir, PATH)).toEqual({ lines: [ENTRY] });
		expect(await readConversationLines(dir, "children/001-other-1.jsonl")).toBeUndefined();
		expect(await readConversationLines(dir, "../outside/000-reviewer-1.jsonl")).toBeUndefined();
	});

	it("refuses a file that is a link, naming where it points", async () => {
		const { dir, outside } = runDir();
		const target = join(outside, "000-reviewer-1.jsonl");
		renameSync(join(dir, PATH), join(dir, "kept"));
		symlinkSync(target, join(dir, PATH));
		expect(await readConversationLines(dir, PATH)).toEqual({ refused: `is now a link (to ${target})`, link: true });
	});

	it("refuses a children/ folder that is a link", async () => {
		const { dir, outside } = runDir();
		renameSync(join(dir, "children"), join(dir, "kept"));
		symlinkSync(outside, join(dir, "children"));
		expect(await readConversationLines(dir, PATH)).toEqual({
			refused: `is in a folder that is now a link (to ${outside})`,
			link: true,
		});
	});

	it("refuses a FIFO without waiting on it", async () => {
		const { dir } = runDir();
		renameSync(join(dir, PATH), join(dir, "kept"));
		execFileSync("mkfifo", [join(dir, PATH)]);
		expect(await readConversationLines(dir, PATH)).toEqual({ refused: "is now a FIFO", link: false });
	});

	it("refuses lines that are not session entries, naming the line", async () => {
		const { dir } = runDir();
		writeFileSync(join(dir, PATH), `${HEADER}\n${ENTRY}\n[1,2]\n`);
		expect(await readConversationLines(dir, PATH)).toEqual({
			refused: "cannot be read as a conversation: line 3 is not an object",
			link: false,
		});
		writeFileSync(join(dir, PATH), `${HEADER}\n{"id":"m2"}\n`);
		expect(await readConversationLines(dir, PATH)).toEqual({
			refused: "cannot be read as a conversation: line 2 has no `type`",
			link: false,
		});
	});
});
