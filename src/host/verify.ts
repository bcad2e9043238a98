/**
 * Verifying an installed workflow (issue 49 §3): its file against the digest locked at install, then its replay
 * test against the cassette its package ships beside it (`<name>.cassette.json`, as `pi-workflows test --save`
 * writes it), offline and at no cost (replay-test.ts: no child, no tool, no model). The verdict is kept in the lock
 * with the digest it was reached at, so `workflows.verifyBlocksInstall` can stop a workflow whose verify failed.
 */
import { existsSync } from "node:fs";
import { readRegularFile } from "../agents/regular-file.ts";
import { errorMessage } from "../errors.ts";
import { DEFAULT_MAX_SCRIPT_BYTES } from "../runtime/meta/read.ts";
import { cassettePathFor, readCassette } from "./cassette.ts";
import { type ReplayTestReport, testWorkflowAgainstRun } from "./replay-test.ts";
import {
	createWorkflowResolver,
	loadSavedWorkflows,
	type SavedWorkflow,
	type SavedWorkflowPlaces,
} from "./script-source.ts";
import { sha256Of, updateLock } from "./workflow-lock.ts";

/** What verifying one installed workflow found. */
export interface VerifyResult {
	name: string;
	filename: string;
	/** The package it came from, as listings show it. */
	from: string;
	ok: boolean;
	/** The file matches its locked digest. */
	digestOk: boolean;
	sha256: string;
	locked: string;
	/** The cassette beside it, when it ships one. */
	cassette?: string;
	report?: ReplayTestReport;
	/** One line: why it passed or failed. */
	summary: string;
}

/** The installed workflows of `places`, by name; each package problem found on the way told to `places.warn`. */
export function installedWorkflows(places: SavedWorkflowPlaces): SavedWorkflow[] {
	const { byName, warnings } = loadSavedWorkflows({ ...places, claude: false });
	for (const warning of warnings) places.warn?.(warning);
	return [...byName.values()]
		.filter((saved) => saved.installed !== undefined)
		.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * "Installed workflows (from pi packages):" and one line each: the name, the package's source, the digest, and the
 * last verify at that digest; nothing when none is installed.
 */
export function installedLines(workflows: Iterable<SavedWorkflow>): string[] {
	const lines: string[] = [];
	for (const saved of workflows) {
		const from = saved.installed;
		if (!from) continue;
		const verified = from.entry.verified?.sha256 === from.sha256 ? from.entry.verified : undefined;
		const verdict =
			from.locked === ""
				? "NOT IN THE LOCK (added or renamed since install): it does not run"
				: from.sha256 !== from.locked
					? "CHANGED since it was locked: it does not run"
					: verified
						? `verify ${verified.ok ? "ok" : "FAILED"}`
						: "not verified yet";
		lines.push(`  ${saved.name}  from ${from.shown}, sha256 ${from.sha256.slice(0, 12)}, ${verdict}`);
	}
	return lines.length > 0
		? ["Installed workflows (from pi packages; pi-workflows verify --all checks them):", ...lines]
		: [];
}

/** Verifies one installed workflow and keeps the verdict in its lock (when the file still matches the lock). */
export async function verifyInstalled(saved: SavedWorkflow, places: SavedWorkflowPlaces): Promise<VerifyResult> {
	const from = saved.installed;
	if (!from) throw new TypeError(`${saved.name} is not an installed workflow`);
	const read = readRegularFile(saved.filename, DEFAULT_MAX_SCRIPT_BYTES);
	const source = read.ok ? read.text : "";
	const sha256 = read.ok ? sha256Of(source) : "";
	const base = { name: saved.name, filename: saved.filename, from: from.shown, sha256, locked: from.locked };
	if (!read.ok || sha256 !== from.locked) {
		const why = !read.ok
			? `the file cannot be read: ${read.reason}`
			: from.locked === ""
				? `the lock has no digest for it (the file was added or its meta.name changed since the package version was installed): re-install the package (\`${from.reinstall}\`) or approve it (\`pi-workflows verify ${saved.name} --accept\`)`
				: `the file no longer matches its locked digest (locked sha256 ${from.locked.slice(0, 12)}…, now ${sha256.slice(0, 12)}…): re-install the package (\`${from.reinstall}\`) or re-approve it (\`pi-workflows verify ${saved.name} --accept\`)`;
		return { ...base, ok: false, digestOk: false, summary: why };
	}
	const cassettePath = cassettePathFor(saved.filename);
	const result = existsSync(cassettePath)
		? await replay(saved, source, cassettePath, places)
		: { ok: true, summary: "digest matches the lock; no cassette shipped, so no replay test" };
	const verdict: VerifyResult = { ...base, digestOk: true, ...result };
	updateLock(from.lockFile, (lock) => {
		const entry = lock.workflows[saved.name];
		if (entry && entry.sha256 === sha256) {
			entry.verified = { ok: verdict.ok, sha256, summary: verdict.summary, at: new Date().toISOString() };
		}
	});
	return verdict;
}

/** Records the file's digest now as the approved one, then verifies it. */
export async function acceptInstalled(saved: SavedWorkflow, places: SavedWorkflowPlaces): Promise<VerifyResult> {
	const from = saved.installed;
	if (!from) throw new TypeError(`${saved.name} is not an installed workflow`);
	const read = readRegularFile(saved.filename, DEFAULT_MAX_SCRIPT_BYTES);
	if (read.ok) {
		const sha256 = sha256Of(read.text);
		updateLock(from.lockFile, (lock) => {
			// A workflow renamed since keeps no entry under its old name for the same file.
			for (const [name, entry] of Object.entries(lock.workflows)) {
				if (entry.file === saved.filename && name !== saved.name) delete lock.workflows[name];
			}
			const { verified: _dropped, ...entry } = from.entry;
			lock.workflows[saved.name] = { ...entry, sha256, lockedAt: new Date().toISOString() };
		});
		return verifyInstalled({ ...saved, installed: { ...from, locked: sha256 } }, places);
	}
	return verifyInstalled(saved, places);
}

/**
 * Verifies every installed workflow whose locked digest has no verdict yet (a package seen for the first time or at a
 * new version, or one just re-approved), for a host to report the failures of.
 */
export async function verifyUnverified(places: SavedWorkflowPlaces): Promise<VerifyResult[]> {
	const results: VerifyResult[] = [];
	for (const saved of installedWorkflows(places)) {
		const entry = saved.installed?.entry;
		if (entry?.verified && entry.verified.sha256 === entry.sha256) continue;
		results.push(await verifyInstalled(saved, places));
	}
	return results;
}

async function replay(
	saved: SavedWorkflow,
	source: string,
	cassettePath: string,
	places: SavedWorkflowPlaces,
): Promise<{ ok: boolean; summary: string; cassette: string; report?: ReplayTestReport }> {
	try {
		const report = await testWorkflowAgainstRun({
			source,
			filename: saved.filename,
			cassette: await readCassette(cassettePath),
			cwd: places.cwd,
			resolveWorkflow: createWorkflowResolver({ agentDir: places.agentDir }),
		});
		return { ok: report.ok, summary: replaySummary(report), cassette: cassettePath, report };
	} catch (error) {
		return { ok: false, summary: `the replay test could not run: ${errorMessage(error)}`, cassette: cassettePath };
	}
}

function replaySummary(report: ReplayTestReport): string {
	const calls = `${report.matched} recorded call${report.matched === 1 ? "" : "s"} matched`;
	if (report.ok) return `replay test passed: ${calls}`;
	const first = report.divergences[0]?.explanation;
	const unused = report.unusedRecorded[0];
	const why =
		first ??
		(unused
			? `the recorded ${unused.kind}() call \`${unused.label ?? unused.key}\` was not made by the script`
			: report.status !== "completed"
				? `the script ${report.status}${report.error ? `: ${report.error.message}` : ""}`
				: "the value differs from the recorded one");
	const more = report.divergences.length + report.unusedRecorded.length - 1;
	return `replay test FAILED (${calls}): ${why}${more > 0 ? ` (+${more} more)` : ""}`;
}
