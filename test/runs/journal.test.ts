import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RunRecord, readRunJournal } from "../../src/runs/index.ts";
import type { WorkflowJournalEntry } from "../../src/runtime/index.ts";
import { tempStore } from "./support.ts";

const USAGE = { input: 3, output: 4, total: 7 };

function entry(key: string, value: WorkflowJournalEntry["value"] = `answer ${key}`): WorkflowJournalEntry {
	return { key, value, usage: USAGE, agentId: `child-${key}`, label: key, agentType: "general-purpose" };
}

async function newRecord(): Promise<RunRecord> {
	return tempStore().store.create({ script: "" });
}

function journalText(record: RunRecord): string {
	return readFileSync(join(record.dir, "journal.jsonl"), "utf8");
}

describe("record.journal()", () => {
	it("records entries a later load looks up, one JSON line each", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		expect(journal.lookup("a")).toBeUndefined();
		await journal.record(entry("a"));
		await journal.record(entry("b", { verdict: "ok", items: [1, 2] }));
		expect(journal.lookup("a")).toEqual(entry("a"));
		await journal.close();
		expect(journalText(record).split("\n")).toEqual([
			JSON.stringify(entry("a")),
			JSON.stringify(entry("b", { verdict: "ok", items: [1, 2] })),
			"",
		]);
		const again = await record.journal();
		expect(again.size).toBe(2);
		expect(again.lookup("b")?.value).toEqual({ verdict: "ok", items: [1, 2] });
		expect(again.problems).toEqual([]);
		await again.close();
	});

	it("the same key recorded twice (a resume re-recording): the last wins, and it is one entry", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		await journal.record(entry("a", "first"));
		await journal.record(entry("b"));
		await journal.record(entry("a", "second"));
		await journal.close();
		const again = await record.journal();
		expect(again.size).toBe(2);
		expect(again.lookup("a")?.value).toBe("second");
		expect(again.entries().map((e) => e.key)).toEqual(["b", "a"]);
		await again.close();
	});

	it("readRunJournal reads entries and problems and leaves the file as it is, a torn last line included", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		await journal.record(entry("a"));
		await journal.close();
		const path = join(record.dir, "journal.jsonl");
		appendFileSync(path, '{"key":"b","val');
		const before = readFileSync(path);
		const read = await readRunJournal(path);
		expect(read.entries).toEqual([entry("a")]);
		expect(read.problems).toEqual([expect.objectContaining({ line: 2, key: "b" })]);
		expect(readFileSync(path)).toEqual(before);
		expect(await readRunJournal(join(record.dir, "missing.jsonl"))).toEqual({ entries: [], problems: [] });
	});

	it("a torn last line (the writer died mid-line) is cut before the next record and reported with its key", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		await journal.record(entry("a"));
		await journal.close();
		appendFileSync(join(record.dir, "journal.jsonl"), '{"key":"b","val');
		const again = await record.journal();
		expect(again.size).toBe(1);
		const torn = {
			line: 2,
			reason: "a torn last line: the run stopped while writing it; cut from the file",
			key: "b",
		};
		expect(again.problems).toEqual([torn]);
		// What a resume says: the file and line, why, and whose call it was.
		expect(again.skipped()).toEqual([
			{ where: `${join(record.dir, "journal.jsonl")}:2`, reason: torn.reason, key: "b" },
		]);
		await again.record(entry("c"));
		await again.close();
		expect(journalText(record)).toBe(`${JSON.stringify(entry("a"))}\n${JSON.stringify(entry("c"))}\n`);
		const third = await record.journal();
		expect(third.entries().map((e) => e.key)).toEqual(["a", "c"]);
		expect(third.problems).toEqual([]);
		await third.close();
	});

	it("a whole last entry with no newline (a hand edit) is kept, and the next record goes on a line of its own", async () => {
		const record = await newRecord();
		writeFileSync(join(record.dir, "journal.jsonl"), `${JSON.stringify(entry("a"))}\n${JSON.stringify(entry("b"))}`);
		const journal = await record.journal();
		expect(journal.entries().map((e) => e.key)).toEqual(["a", "b"]);
		expect(journal.problems).toEqual([]);
		await journal.record(entry("c"));
		await journal.close();
		expect(journalText(record)).toBe(`${["a", "b", "c"].map((key) => JSON.stringify(entry(key))).join("\n")}\n`);
	});

	it("a last line with no newline that is JSON but not an entry is reported like any bad line, and kept", async () => {
		const record = await newRecord();
		writeFileSync(join(record.dir, "journal.jsonl"), `${JSON.stringify(entry("a"))}\n{"key":"b"}`);
		const journal = await record.journal();
		expect(journal.problems).toEqual([{ line: 2, reason: "`value` is missing", key: "b" }]);
		await journal.record(entry("c"));
		await journal.close();
		expect(journalText(record)).toBe(`${JSON.stringify(entry("a"))}\n{"key":"b"}\n${JSON.stringify(entry("c"))}\n`);
	});

	it("a journal edited by hand into garbage: bad lines are reported with line number and why, good ones kept", async () => {
		const record = await newRecord();
		const lines = [
			JSON.stringify(entry("a")),
			"this is not json",
			"[1,2]",
			'{"value":1}',
			'{"key":"x"}',
			'{"key":"y","value":1,"usage":{"input":"lots"}}',
			'{"key":"z","value":1,"label":5}',
			'{"key":"w","value":"yes","kind":"question"}',
			"",
			JSON.stringify(entry("b")),
		];
		writeFileSync(join(record.dir, "journal.jsonl"), `${lines.join("\n")}\n`);
		const journal = await record.journal();
		expect(journal.entries().map((e) => e.key)).toEqual(["a", "b"]);
		expect(journal.problems).toEqual([
			{ line: 2, reason: expect.stringMatching(/^not JSON \(.+\)$/) },
			{ line: 3, reason: "not an object" },
			{ line: 4, reason: "`key` is not a non-empty string" },
			{ line: 5, key: "x", reason: "`value` is missing" },
			{ line: 6, key: "y", reason: "`usage` is not `{ input, output, total }` numbers" },
			{ line: 7, key: "z", reason: "`label` is not a string" },
			{ line: 8, key: "w", reason: '`kind` is not "answer" or "tool"' },
		]);
		// Appending still works and the garbage stays where it was, for a person to look at.
		await journal.record(entry("c"));
		await journal.close();
		expect(journalText(record).endsWith(`${JSON.stringify(entry("b"))}\n${JSON.stringify(entry("c"))}\n`)).toBe(true);
	});

	it("an ask() answer line keeps its kind through a write and a load", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		const answer = { key: "q#0", kind: "answer" as const, value: "ship", label: "Ship it?" };
		await journal.record(answer);
		await journal.close();
		expect(journalText(record)).toBe(`${JSON.stringify(answer)}\n`);
		const again = await record.journal();
		expect(again.lookup("q#0")).toEqual(answer);
		await again.close();
	});

	it("a file of pure binary garbage loads empty with problems (its last line as torn), never a crash", async () => {
		const record = await newRecord();
		writeFileSync(join(record.dir, "journal.jsonl"), Buffer.from([0xff, 0x00, 0x0a, 0xfe, 0x7b, 0x0a, 0x80]));
		const journal = await record.journal();
		expect(journal.size).toBe(0);
		expect(journal.problems.map((p) => p.line)).toEqual([1, 2, 3]);
		await journal.close();
	});

	it("concurrent records resolve after they are written, in call order, with no interleaved bytes", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		const big = "x".repeat(64 * 1024);
		const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
		await Promise.all(keys.map((key) => journal.record(entry(key, `${key}:${big}`))));
		await journal.close();
		const lines = journalText(record).split("\n");
		expect(lines.pop()).toBe("");
		expect(lines.map((line) => JSON.parse(line).key)).toEqual(keys);
		expect(lines.every((line, i) => JSON.parse(line).value === `k${i}:${big}`)).toBe(true);
	});

	it("two runs appending at once never corrupt each other", async () => {
		const { store } = tempStore();
		const [one, two] = await Promise.all([store.create({ script: "" }), store.create({ script: "" })]);
		const [a, b] = await Promise.all([one.journal(), two.journal()]);
		const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
		await Promise.all(
			keys.flatMap((key) => [a.record(entry(key, `one ${key}`)), b.record(entry(key, `two ${key}`))]),
		);
		await Promise.all([a.close(), b.close()]);
		for (const [record, name] of [
			[one, "one"],
			[two, "two"],
		] as const) {
			const journal = await record.journal();
			expect(journal.problems).toEqual([]);
			expect(journal.entries().map((e) => e.value)).toEqual(keys.map((key) => `${name} ${key}`));
			await journal.close();
		}
	});

	it("close waits for pending records; a record after close is refused with what to do", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		const pending = journal.record(entry("a"));
		await journal.close();
		await expect(pending).resolves.toBeUndefined();
		await journal.close();
		await expect(journal.record(entry("b"))).rejects.toMatchObject({
			code: "run_store",
			message: `The journal of run \`${record.id}\` is closed; open it again with \`record.journal()\``,
		});
		expect((await record.journal()).size).toBe(1);
	});

	it("an entry that is not one (no key) is refused as misuse, and nothing is written", async () => {
		const record = await newRecord();
		const journal = await record.journal();
		await expect(journal.record({ value: 1 } as unknown as WorkflowJournalEntry)).rejects.toThrow(
			new TypeError(
				`Expected a journal entry for run ${record.id}, got one whose \`key\` is not a non-empty string`,
			),
		);
		await journal.close();
		expect(journalText(record)).toBe("");
	});
});
