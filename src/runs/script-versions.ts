/**
 * The scripts a run ran, by sha256: each session's `run_start` line in the event log names its script's hash, and a
 * resume with an edited script keeps the text it replaces as `scripts/<sha256>.js`, so a report can diff the two.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ensurePrivateDir, readTextIfExists, writeFileAtomic } from "./files.ts";

/** The folder of earlier scripts in a run's folder. */
export const SCRIPTS_DIR = "scripts";

/** The hex sha256 of a script's text (UTF-8), as the event log names it. */
export function scriptSha256(script: string): string {
	return createHash("sha256").update(script, "utf8").digest("hex");
}

/** Keeps `script` as `scripts/<sha256>.js` in `runDir` (once: the same text has the same name). */
export async function keepScriptVersion(runDir: string, script: string): Promise<void> {
	const dir = join(runDir, SCRIPTS_DIR);
	await ensurePrivateDir(dir);
	const path = join(dir, `${scriptSha256(script)}.js`);
	if ((await readTextIfExists(path)) === undefined) await writeFileAtomic(path, script);
}

/** The text of the script with hash `sha256` that the run in `runDir` ran, when it kept it (a hash not hex: none). */
export async function readScriptVersion(runDir: string, sha256: string): Promise<string | undefined> {
	if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
	return readTextIfExists(join(runDir, SCRIPTS_DIR, `${sha256}.js`));
}
