/**
 * `createRunStore`: the runs of one project, in `<root>/<project>/<run id>/`. Creating a run makes its folder
 * (0700) and `run.json` (0600, atomic); opening checks the id before touching the disk and, when the run is not
 * this project's, looks for it under the other projects so the error can say where it is.
 */
import { realpathSync } from "node:fs";
import { mkdir, readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { WorkflowError } from "../errors.ts";
import { DIR_MODE, ensurePrivateDir, errnoCode, storeError, writeFileAtomic } from "./files.ts";
import { defaultRunsRoot, projectFolderName } from "./paths.ts";
import { readRunInfo, runRecord, SCRIPT_FILE } from "./record.ts";
import { deleteRun, pruneRuns } from "./retention.ts";
import { isRunId, newRunId } from "./run-id.ts";
import { summarizeRun } from "./summary.ts";
import type { RunCreateOptions, RunInfo, RunRecord, RunStore, RunStoreOptions, RunSummary } from "./types.ts";

/** How many recent ids an unknown-run error lists. */
const RECENT_IDS = 5;

/** A store for the runs of the project at `options.cwd`. Throws `run_store` when the project folder does not exist. */
export function createRunStore(options: RunStoreOptions): RunStore {
	const place = projectPlace(options);
	const store: RunStore = {
		...place,
		create: (input) => createRun(place, input),
		open: (runId) => openRun(place, runId),
		list: () => listRuns(place.dir),
		delete: (runId) => deleteRun(store, runId),
		prune: (rule, options) => pruneRuns(store, rule, options),
	};
	return store;
}

/** Where a project's runs live: the project's real path, the runs root and the project's folder under it. */
interface ProjectPlace {
	cwd: string;
	root: string;
	dir: string;
}

/** The project's place from the store's options, checked. */
function projectPlace(options: RunStoreOptions): ProjectPlace {
	if (typeof options?.cwd !== "string" || options.cwd === "") {
		throw new TypeError(`Expected \`cwd\` to be a non-empty string, got ${describe(options?.cwd)}`);
	}
	if (options.root !== undefined && (typeof options.root !== "string" || options.root === "")) {
		throw new TypeError(`Expected \`root\` to be a non-empty string, got ${describe(options.root)}`);
	}
	let cwd: string;
	try {
		cwd = realpathSync(options.cwd);
	} catch (error) {
		throw storeError(error, options.cwd, "open the project folder");
	}
	const root = resolve(options.root ?? defaultRunsRoot());
	return { cwd, dir: join(root, projectFolderName(cwd)), root };
}

/** A new run: its folder and its script, then its `run.json`. */
async function createRun({ cwd, root, dir }: ProjectPlace, input: RunCreateOptions): Promise<RunRecord> {
	if (typeof input?.script !== "string") {
		throw new TypeError(`Expected \`script\` to be a string, got ${describe(input?.script)}`);
	}
	try {
		// The root may be the host's own folder: make it private only when it is new.
		await mkdir(root, { recursive: true, mode: DIR_MODE });
	} catch (error) {
		throw storeError(error, root, "create the runs folder");
	}
	await ensurePrivateDir(dir);
	const now = new Date();
	const { id, runDir } = await makeRunDir(dir, now);
	const info: RunInfo = {
		version: 1,
		id,
		createdAt: now.toISOString(),
		cwd,
		script: input.script,
		...pick(input),
	};
	// The script file first: a folder with a run.json is a run, and its script file should be there too.
	await writeFileAtomic(join(runDir, SCRIPT_FILE), input.script);
	await writeFileAtomic(join(runDir, "run.json"), `${JSON.stringify(info, null, "\t")}\n`);
	return runRecord(runDir, info);
}

/** A fresh folder for a run; a colliding id (same second, same suffix) just draws again. */
async function makeRunDir(dir: string, now: Date): Promise<{ id: string; runDir: string }> {
	for (;;) {
		const id = newRunId(now);
		const runDir = join(dir, id);
		try {
			await mkdir(runDir, { mode: DIR_MODE });
			await ensurePrivateDir(runDir);
			return { id, runDir };
		} catch (error) {
			if (errnoCode(error) !== "EEXIST") throw storeError(error, runDir, "create the run folder");
		}
	}
}

/** A run of this project; when there is none, the error says where it is instead, or which runs are here. */
async function openRun(place: ProjectPlace, runId: string): Promise<RunRecord> {
	const { cwd, dir } = place;
	if (!isRunId(runId)) {
		throw new WorkflowError(
			"run_id_invalid",
			`\`${String(runId).slice(0, 80)}\` is not a run id. Run ids look like \`wf-20261201-101530-k3f9x2\`: list this project's runs to find one`,
			{ details: { runId: String(runId).slice(0, 200) } },
		);
	}
	const runDir = join(dir, runId);
	const info = await readRunInfo(runDir, runId);
	if (info) return runRecord(runDir, info);
	const elsewhere = await findInOtherProjects(place, runId);
	if (elsewhere) {
		throw new WorkflowError(
			"run_not_found",
			`Run \`${runId}\` belongs to another project (${elsewhere}), not ${cwd}. Open it from that project`,
			{ details: { runId, project: cwd, otherProject: elsewhere } },
		);
	}
	const recent = (await runIds(dir)).slice(0, RECENT_IDS);
	const listed = recent.length > 0 ? `Recent runs here: ${recent.join(", ")}` : "This project has no runs yet";
	throw new WorkflowError("run_not_found", `Run \`${runId}\` not found in project ${cwd}. ${listed}`, {
		details: { runId, project: cwd, recent },
	});
}

/** The project (its cwd from `run.json`, else its folder) that holds `runId`, if any does. */
async function findInOtherProjects({ root, dir }: ProjectPlace, runId: string): Promise<string | undefined> {
	const projects = await readdir(root).catch(() => [] as string[]);
	for (const project of projects) {
		const runDir = join(root, project, runId);
		if (runDir === join(dir, runId)) continue;
		const found = await stat(join(runDir, "run.json")).then(
			() => true,
			() => false,
		);
		if (!found) continue;
		const info = await readRunInfo(runDir, runId).catch(() => undefined);
		return info?.cwd ?? join(root, project);
	}
	return undefined;
}

/** Run ids in the project folder `dir`, newest first (ids sort by creation time). */
async function runIds(dir: string): Promise<string[]> {
	try {
		return (await readdir(dir)).filter(isRunId).sort().reverse();
	} catch (error) {
		if (errnoCode(error) === "ENOENT") return [];
		throw storeError(error, dir, "list the runs in");
	}
}

/** The runs in the project folder `dir`, newest first. */
async function listRuns(dir: string): Promise<RunSummary[]> {
	const summaries = await Promise.all((await runIds(dir)).map((id) => summarizeRun(join(dir, id), id)));
	return summaries
		.filter((summary) => summary !== undefined)
		.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** The optional fields of `run.json` the caller gave. */
function pick(input: RunCreateOptions): Partial<RunInfo> {
	const out: Partial<RunInfo> = {};
	if (input.filename !== undefined) out.filename = input.filename;
	if (input.tier !== undefined) out.tier = input.tier;
	if (input.args !== undefined) out.args = input.args;
	if (input.meta !== undefined) out.meta = input.meta;
	if (input.origin !== undefined) out.origin = input.origin;
	return out;
}

function describe(value: unknown): string {
	return value === null ? "null" : typeof value === "string" ? JSON.stringify(value) : typeof value;
}
