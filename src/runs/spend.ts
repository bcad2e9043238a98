/**
 * `spend.json` in a run's folder: the run's dollar cap and what each of its sessions spent, so a cap holds across
 * resumes (a resume counts what earlier sessions spent). Written when a session starts and ends and when the cap is
 * raised; a session that crashed keeps the figure of its last write.
 */
import { join } from "node:path";
import { WorkflowError } from "../errors.ts";
import { parseJsonFile, readTextIfExists, writeFileAtomic } from "./files.ts";

/** One session of a run: a fresh start or a resume. */
export interface RunSessionSpend {
	/** ISO time the session started. */
	startedAt: string;
	/** US dollars its children spent (replays cost nothing). */
	usd: number;
	/** Replies of models with no known price, not in `usd`. */
	unpriced?: number;
}

/** The contents of `spend.json`. */
export interface RunSpend {
	/** The run's cap in US dollars, for all its sessions together, as last set or raised; absent when uncapped. */
	capUsd?: number;
	/** Every session, oldest first. */
	sessions: RunSessionSpend[];
}

const FILE = "spend.json";

/** What the sessions spent together. */
export function spentInAll(spend: RunSpend): { usd: number; unpriced: number } {
	let usd = 0;
	let unpriced = 0;
	for (const session of spend.sessions) {
		usd += session.usd;
		unpriced += session.unpriced ?? 0;
	}
	return { usd, unpriced };
}

/** Reads the run's `spend.json`: undefined for a run that has none; `run_store` when it is not one. */
export async function readRunSpend(dir: string, runId: string): Promise<RunSpend | undefined> {
	const path = join(dir, FILE);
	const text = await readTextIfExists(path);
	if (text === undefined) return undefined;
	const remedy = `Fix it, or delete it to forget run \`${runId}\`'s cap and what its earlier sessions spent`;
	const spend = parseJsonFile(text, path, remedy) as Partial<RunSpend> | null;
	const dollars = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value >= 0;
	const valid =
		typeof spend === "object" &&
		spend !== null &&
		(spend.capUsd === undefined || dollars(spend.capUsd)) &&
		Array.isArray(spend.sessions) &&
		spend.sessions.every(
			(session) =>
				typeof session === "object" &&
				session !== null &&
				typeof session.startedAt === "string" &&
				dollars(session.usd),
		);
	if (!valid) {
		throw new WorkflowError(
			"run_store",
			`${path} is not a run's spend (needs sessions, each with startedAt and usd, and an optional capUsd). ${remedy}`,
			{ details: { runId, path } },
		);
	}
	return spend as RunSpend;
}

/** Replaces the run's `spend.json`. */
export function writeRunSpend(dir: string, spend: RunSpend): Promise<void> {
	return writeFileAtomic(join(dir, FILE), `${JSON.stringify(spend, null, "\t")}\n`);
}
