/**
 * Evals on disk, beside the run store: `<agentDir>/workflow-evals/<evalId>/` holds `eval.json` (the checked spec and
 * each arm's script as it ran, so a resume runs the same thing) and `trials/`, one file per finished trial (its run
 * id, output, cost, and grade), each written atomically. A resume keeps every trial file it finds; `--regrade`
 * rewrites only their grades. Like the run store: private modes, no link followed, ids that cannot name a path.
 */
import { createHash, randomBytes } from "node:crypto";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { WorkflowError } from "../errors.ts";
import { ensurePrivateDir, errnoCode, parseJsonFile, readTextIfExists, writeFileAtomic } from "../runs/files.ts";
import { acquireRunLock } from "../runs/lock.ts";
import type { RunLock } from "../runs/types.ts";
import type { EvalSpec, ScriptFile } from "./spec.ts";
import type { TrialKey, TrialRecord } from "./trials.ts";

const EVAL_FILE = "eval.json";
/** What trials that were not kept spent (cut at the cap, stopped): the cap counts it on resume. */
const DISCARDED_FILE = "discarded.json";
const TRIALS_DIR = "trials";
/** Exactly what `newEvalId` makes: nothing else reaches the disk. */
const EVAL_ID_PATTERN = /^ev-\d{8}-\d{6}-[0-9a-z]{6}$/;

/** What `eval.json` keeps. */
export interface EvalRecord {
	id: string;
	createdAt: string;
	spec: EvalSpec;
	/** Each arm's script as the eval ran it (a `rev` read once, a file as it was at the start). */
	scripts: Record<string, ScriptFile>;
}

/** One past eval, for `--list`. */
export interface EvalSummary {
	id: string;
	name: string;
	file: string;
	createdAt: string;
	planned: number;
	finished: number;
}

/** `<agentDir>/workflow-evals`. */
export function evalsRoot(agentDir: string): string {
	return join(agentDir, "workflow-evals");
}

export function newEvalId(now: Date = new Date()): string {
	const iso = now.toISOString();
	const stamp = `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
	const suffix = [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join("");
	return `ev-${stamp}-${suffix}`;
}

/** One eval's folder: its record and its finished trials. */
export interface EvalFolder {
	id: string;
	record: EvalRecord;
	/** Finished trials by `trialName`. */
	trials: Map<string, TrialRecord>;
	/** Dollars spent by trials that were not kept (cut at the cap, stopped): still part of what the eval spent. */
	discardedUsd: number;
	save(trial: TrialRecord): Promise<void>;
	/** Adds what a trial that is not kept spent. */
	discard(usd: number): Promise<void>;
	/** Lets go of the eval's lock: one process at a time runs, resumes or regrades an eval. */
	release(): Promise<void>;
}

/** Creates the folder of a new eval. */
export async function createEval(
	root: string,
	spec: EvalSpec,
	scripts: Record<string, ScriptFile>,
): Promise<EvalFolder> {
	const id = newEvalId();
	const dir = join(root, id);
	await ensurePrivateDir(join(dir, TRIALS_DIR));
	const lock = await lockEval(dir, id);
	const record: EvalRecord = { id, createdAt: new Date().toISOString(), spec, scripts };
	await writeFileAtomic(join(dir, EVAL_FILE), `${JSON.stringify(record, null, 2)}\n`);
	return folder(dir, record, new Map(), 0, lock);
}

/**
 * Opens a past eval with its finished trials; `eval_not_found` says how to list them. `lock` (default true) takes
 * its lock, for a resume or a regrade; `--list` reads without it.
 */
export async function openEval(root: string, id: string, lock = true): Promise<EvalFolder> {
	if (!EVAL_ID_PATTERN.test(id)) {
		throw new WorkflowError(
			"eval_not_found",
			`"${id}" is not an eval id (they look like ev-20261204-203000-k3f9x2). \`pi-workflows eval --list\` lists them`,
		);
	}
	const dir = join(root, id);
	await plainFolder(dir, id);
	if ((await readTextIfExists(join(dir, EVAL_FILE))) === undefined) {
		throw new WorkflowError("eval_not_found", `No eval ${id} in ${root}. \`pi-workflows eval --list\` lists them`);
	}
	const held = lock ? await lockEval(dir, id) : undefined;
	try {
		const { record, trials, discardedUsd } = await readEvalFolder(dir, id);
		return folder(dir, record, trials, discardedUsd, held);
	} catch (error) {
		await held?.release();
		throw error;
	}
}

/** The record, the finished trials and what discarded ones spent, read under the lock. */
async function readEvalFolder(
	dir: string,
	id: string,
): Promise<{ record: EvalRecord; trials: Map<string, TrialRecord>; discardedUsd: number }> {
	const recordPath = join(dir, EVAL_FILE);
	const text = (await readTextIfExists(recordPath)) ?? "null";
	const record = parseJsonFile(text, recordPath, "The eval's record is damaged: start the eval again") as EvalRecord;
	const trials = new Map<string, TrialRecord>();
	await plainFolder(join(dir, TRIALS_DIR), id);
	for (const name of (await readdir(join(dir, TRIALS_DIR))).sort()) {
		const path = join(dir, TRIALS_DIR, name);
		if (!name.endsWith(".json") || !(await lstat(path)).isFile()) continue;
		const remedy = "Delete that file: the trial runs again on resume";
		const trial = parseJsonFile((await readTextIfExists(path)) ?? "null", path, remedy) as TrialRecord | null;
		if (trial) trials.set(trialName(trial), trial);
	}
	const discardedPath = join(dir, DISCARDED_FILE);
	const discarded = await readTextIfExists(discardedPath);
	const remedy = "Delete it: the cap then forgets what stopped trials spent";
	const usd =
		discarded === undefined ? 0 : (parseJsonFile(discarded, discardedPath, remedy) as { usd?: unknown } | null)?.usd;
	return { record, trials, discardedUsd: typeof usd === "number" && usd > 0 ? usd : 0 };
}

/** The run store's lock on the eval's folder (a dead holder's is taken over), in the eval's words when held. */
async function lockEval(dir: string, id: string): Promise<RunLock> {
	try {
		return await acquireRunLock(dir, id);
	} catch (error) {
		if (!(error instanceof WorkflowError) || error.code !== "run_busy") throw error;
		const { pid, hostname } = (error.details ?? {}) as { pid?: number; hostname?: string };
		throw new WorkflowError(
			"run_busy",
			`Eval ${id} is running in process ${pid ?? "?"} on ${hostname ?? "another host"}: one process at a time runs, resumes or regrades an eval. Wait until it ends, or stop it first`,
			{ details: error.details ?? {} },
		);
	}
}

/** Past evals, newest first. */
export async function listEvals(root: string): Promise<EvalSummary[]> {
	let names: string[];
	try {
		names = await readdir(root);
	} catch (error) {
		if (errnoCode(error) === "ENOENT") return [];
		throw error;
	}
	const found: EvalSummary[] = [];
	for (const id of names
		.filter((name) => EVAL_ID_PATTERN.test(name))
		.sort()
		.reverse()) {
		const opened = await openEval(root, id, false).catch(() => undefined);
		if (!opened) continue;
		const { spec, createdAt } = opened.record;
		const planned = spec.cases.length * Object.keys(spec.arms).length * spec.trials;
		found.push({ id, name: spec.name, file: spec.file, createdAt, planned, finished: opened.trials.size });
	}
	return found;
}

/** A trial's file name: the arm, a hash of the case id (any text), the trial's number. */
export function trialName(key: TrialKey): string {
	const hash = createHash("sha256").update(key.caseId).digest("hex").slice(0, 16);
	return `${key.arm}.${hash}.${key.trial}`;
}

function folder(
	dir: string,
	record: EvalRecord,
	trials: Map<string, TrialRecord>,
	discardedUsd: number,
	lock: RunLock | undefined,
): EvalFolder {
	return {
		id: record.id,
		record,
		trials,
		discardedUsd,
		release: async () => lock?.release(),
		async discard(usd) {
			this.discardedUsd += usd;
			await writeFileAtomic(join(dir, DISCARDED_FILE), `${JSON.stringify({ usd: this.discardedUsd })}\n`);
		},
		async save(trial) {
			const name = trialName(trial);
			await writeFileAtomic(join(dir, TRIALS_DIR, `${name}.json`), `${JSON.stringify(trial)}\n`);
			trials.set(name, trial);
		},
	};
}

/** A folder that is a link (to anywhere) is not read: the store's rule. */
async function plainFolder(path: string, id: string): Promise<void> {
	const stats = await lstat(path).catch((error: unknown) => {
		if (errnoCode(error) === "ENOENT") return undefined;
		throw error;
	});
	if (!stats) {
		throw new WorkflowError(
			"eval_not_found",
			`No eval ${id} (no folder ${path}). \`pi-workflows eval --list\` lists them`,
		);
	}
	if (!stats.isDirectory() || stats.isSymbolicLink()) {
		throw new WorkflowError("run_store", `${path} is not a plain folder (a link or a file). Remove it by hand`, {
			details: { path },
		});
	}
}
