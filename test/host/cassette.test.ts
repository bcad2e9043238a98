/**
 * Cassette files: one that could not be read back (past the size a cassette is read at) is not written; what was
 * there is left as it was.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CASSETTE_BYTES, readCassette, writeCassette } from "../../src/host/cassette.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("writeCassette", () => {
	it("refuses a cassette too large to be read back, naming its size and the limit, and keeps the old one", async () => {
		const dir = mkdtempSync(join(tmpdir(), "wf-cassette-"));
		dirs.push(dir);
		const path = join(dir, "review.cassette.json");
		writeFileSync(path, "old\n");
		const cassette = {
			version: 1 as const,
			runId: "wf-20261204-120000-abcdef",
			status: "completed" as const,
			journal: [{ key: "k", value: "x".repeat(MAX_CASSETTE_BYTES) }],
		};
		await expect(writeCassette(path, cassette)).rejects.toMatchObject({
			code: "run_store",
			message: expect.stringMatching(
				new RegExp(
					`^The replay cassette ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} would be \\d+ bytes, over the limit of ${MAX_CASSETTE_BYTES} bytes a cassette is read at: test against a run made with fewer or smaller answers, or use --against <runId> without --save$`,
				),
			),
		});
		expect(readFileSync(path, "utf8")).toBe("old\n");
		expect(readdirSync(dir)).toEqual(["review.cassette.json"]);
		// One that fits is written and reads back.
		await writeCassette(path, { ...cassette, journal: [{ key: "k", value: "small" }] });
		expect((await readCassette(path)).journal).toEqual([{ key: "k", value: "small" }]);
	});
});
