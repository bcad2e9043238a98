/**
 * Grants: what a saved workflow may do beyond the defaults (the `tool()` names it calls without being asked, and a
 * dollar ceiling its runs may take as their cap without asking), per workflow and bound to the sha256 of its script. Kept with the granted text, so a changed script (any byte) is
 * asked about again with the diff against what was granted: project workflows in `.pi/workflows.grants.json`, the
 * others (user, installed, bundled) in `<agentDir>/workflows.grants.json`. Inline scripts have none, ever.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { errorMessage, WorkflowError } from "../errors.ts";
import { unifiedDiff } from "../report/script-diff.ts";
import { type ScriptTier, scriptSha256 } from "../runs/index.ts";
import { usdText } from "../runtime/core/cost.ts";

/** What one workflow was granted, and the text it was granted to. */
export interface WorkflowGrant {
	/** The sha256 (hex) of the granted script. */
	sha256: string;
	/** The `tool()` names it may call without asking. */
	tools: string[];
	/** The dollar ceiling: a run estimated over its cap but within this takes it as its cap without asking. */
	maxCostUsd?: number;
	/** The granted script's text: what a changed script is diffed against. */
	script: string;
	/** ISO time of the last grant. */
	grantedAt: string;
}

/** A grants file: workflows by their file (relative to the project, or to the agent directory, else absolute). */
interface GrantsFile {
	version: 1;
	workflows: Record<string, WorkflowGrant>;
}

/** A script to look grants up for: its text, its file and its tier. */
export interface GrantedScript {
	script: string;
	filename: string;
	tier?: ScriptTier;
}

/** The question to put to a person before a workflow calls a tool no grant covers. */
export interface GrantQuestion {
	title: string;
	message: string;
}

/** Lines of the diff a question shows; the rest are counted. */
const DIFF_LINES = 60;

/** The grants of one workflow's script, read from and written to its tier's grants file on each use. */
export class WorkflowGrants {
	/** The grants file. */
	readonly file: string;
	/** The workflow's name in it: its file, relative to the project (or the agent directory) where it lies inside. */
	readonly key: string;
	/** The sha256 (hex) of the script as it is now. */
	readonly sha256: string;
	readonly tier: ScriptTier;
	/** The workflow's file as `pi-workflows run` takes it from the project: relative for a project workflow. */
	readonly target: string;
	readonly #script: string;
	/** Settings files whose `workflows.grants` may grant to this workflow. */
	readonly #settingsFiles: string[];

	private constructor(
		file: string,
		key: string,
		script: string,
		tier: ScriptTier,
		target: string,
		settingsFiles: string[],
	) {
		this.#settingsFiles = settingsFiles;
		this.file = file;
		this.key = key;
		this.target = target;
		this.#script = script;
		this.sha256 = scriptSha256(script);
		this.tier = tier;
	}

	/**
	 * The grants of `script`, or undefined for an inline one (or one of no known tier): nothing is ever granted to it.
	 * A project pi does not trust (`projectTrusted: false`) grants nothing itself: its workflows' grants are the
	 * user's, kept in the user's file by their full path, and its grants file and settings are not read.
	 */
	static of(
		script: GrantedScript,
		places: { cwd: string; agentDir: string; projectTrusted?: boolean },
	): WorkflowGrants | undefined {
		if (script.tier === undefined || script.tier === "inline") return undefined;
		const inProject = script.tier === "project" && places.projectTrusted !== false;
		const base = inProject ? places.cwd : places.agentDir;
		const file = inProject ? join(base, ".pi", "workflows.grants.json") : grantsFileOf(base);
		const inside = relative(resolve(base), resolve(script.filename));
		const key = inside.startsWith("..") || isAbsolute(inside) ? resolve(script.filename) : inside;
		const fromProject = relative(resolve(places.cwd), resolve(script.filename));
		const target =
			script.tier === "project" && !fromProject.startsWith("..") ? fromProject : resolve(script.filename);
		// A project's settings grant only its own workflows; the user's settings grant any.
		const settings = [
			...(inProject ? [join(places.cwd, ".pi", "settings.json")] : []),
			join(places.agentDir, "settings.json"),
		];
		return new WorkflowGrants(file, key, script.script, script.tier, target, settings);
	}

	/** Grants of this workflow in settings: `"workflows": { "grants": { "<key>": { "sha256", "tools" } } }`. */
	get #settings(): { sha256: string; tools: string[] }[] {
		return this.#settingsFiles.flatMap((file) => settingsGrant(file, this.key));
	}

	/** The grant kept for this workflow, whichever version of it was granted; throws `grants_invalid` on a bad file. */
	stored(): WorkflowGrant | undefined {
		return readGrants(this.file).workflows[this.key];
	}

	/** The tools granted to this very text, by its grants file or by settings (`workflows.grants`). */
	tools(): string[] {
		const grant = this.stored();
		const kept = grant?.sha256 === this.sha256 ? grant.tools : [];
		const set = this.#settings.filter((one) => one.sha256 === this.sha256).flatMap((one) => one.tools);
		return [...new Set([...kept, ...set])];
	}

	/** True when `tool` is granted to this very text. */
	allows(tool: string): boolean {
		return this.tools().includes(tool);
	}

	/** The dollar ceiling granted to this very text by its grants file; undefined when none is. */
	ceiling(): number | undefined {
		const grant = this.stored();
		return grant?.sha256 === this.sha256 ? grant.maxCostUsd : undefined;
	}

	/** Grants `tools` to this text: a grant of this text grows; one of another version is replaced (its tools asked again). */
	grant(tools: readonly string[]): void {
		this.#update((kept) => ({ tools: [...new Set([...(kept?.tools ?? []), ...tools])].sort() }));
	}

	/** Grants this text a dollar ceiling of `usd` (in place of an earlier one); another version's grant is replaced. */
	grantCeiling(usd: number): void {
		this.#update(() => ({ maxCostUsd: usd }));
	}

	/** Writes this text's grant as `change` makes it from the grant kept for this text (none for another version's). */
	#update(change: (kept: WorkflowGrant | undefined) => Partial<WorkflowGrant>): void {
		const grants = readGrants(this.file);
		const stored = grants.workflows[this.key];
		const kept = stored?.sha256 === this.sha256 ? stored : undefined;
		grants.workflows[this.key] = {
			sha256: this.sha256,
			tools: kept?.tools ?? [],
			...(kept?.maxCostUsd !== undefined ? { maxCostUsd: kept.maxCostUsd } : {}),
			...change(kept),
			script: this.#script,
			grantedAt: new Date().toISOString(),
		};
		writeGrants(this.file, grants);
	}

	/**
	 * What changed since an earlier version was granted `tool` (or any tool): the old sha256 and the diff; undefined
	 * when no other version was granted.
	 */
	changedSince(): { sha256: string; diff: string } | undefined {
		const grant = this.stored();
		if (!grant || grant.sha256 === this.sha256) return undefined;
		return { sha256: grant.sha256, diff: cutDiff(unifiedDiff(grant.script, this.#script)) };
	}

	/** "the project workflow .pi/workflows/gate.js (sha256 3f2a9c0b71de)": which workflow and which text. */
	describe(): string {
		return `the ${this.tier} workflow ${this.key} (sha256 ${this.sha256.slice(0, 12)})`;
	}

	/** "It changed since sha256 … was granted (…):" and the diff, with a line break after; empty when it did not. */
	changeNote(): string {
		const changed = this.changedSince();
		return changed
			? `It changed since sha256 ${changed.sha256.slice(0, 12)} was granted (${grantedWhat(this.stored())}):\n${changed.diff}\n`
			: "";
	}

	/** The question before `tool` runs: which workflow, which text, and what changed since an earlier grant. */
	question(tool: string): GrantQuestion {
		const call = `tool(${JSON.stringify(tool)})`;
		const since = this.changeNote();
		return {
			title: `Workflow ${basename(this.key)}: allow ${call}?`,
			message: `${capital(this.describe())} calls ${call}, which no grant covers. ${since}Yes grants ${call} to this version (kept in ${this.file}): its later runs call it without asking, and any change to the file asks again. No refuses this call.`,
		};
	}
}

/** The user's grants file: for workflows of the user, installed and bundled tiers. */
export function grantsFileOf(agentDir: string): string {
	return join(agentDir, "workflows.grants.json");
}

/** `tool("bash"), a ceiling of $2.00`: what a grant gave. */
function grantedWhat(grant: WorkflowGrant | undefined): string {
	const tools = grant?.tools.map((tool) => `tool(${JSON.stringify(tool)})`) ?? [];
	const ceiling = grant?.maxCostUsd !== undefined ? [`a ceiling of ${usdText(grant.maxCostUsd)}`] : [];
	return tools.length + ceiling.length > 0 ? [...tools, ...ceiling].join(", ") : "no tools";
}

function capital(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A long diff, cut to its first `DIFF_LINES` lines with the rest counted. */
function cutDiff(diff: string): string {
	const lines = diff.split("\n");
	if (lines.length <= DIFF_LINES) return diff;
	return [...lines.slice(0, DIFF_LINES), `… and ${lines.length - DIFF_LINES} more lines`].join("\n");
}

/** `workflows.grants[key]` of one settings file, when it has the right shape; pi reports a broken settings file itself. */
function settingsGrant(file: string, key: string): { sha256: string; tools: string[] }[] {
	let settings: unknown;
	try {
		settings = JSON.parse(readFileSync(file, "utf8"));
	} catch {
		return [];
	}
	const grant = (settings as { workflows?: { grants?: Record<string, unknown> } } | null)?.workflows?.grants?.[key];
	if (!isRecord(grant) || typeof grant.sha256 !== "string" || !Array.isArray(grant.tools)) return [];
	return [{ sha256: grant.sha256, tools: grant.tools.filter((tool): tool is string => typeof tool === "string") }];
}

function readGrants(file: string): GrantsFile {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, workflows: {} };
		throw grantsInvalid(file, errorMessage(error));
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw grantsInvalid(file, `not JSON: ${errorMessage(error)}`);
	}
	const workflows = (parsed as Partial<GrantsFile> | null)?.workflows;
	if ((parsed as Partial<GrantsFile> | null)?.version !== 1 || !isRecord(workflows)) {
		throw grantsInvalid(file, 'needs { "version": 1, "workflows": { … } }');
	}
	for (const [key, grant] of Object.entries(workflows)) {
		const ok =
			isRecord(grant) &&
			typeof grant.sha256 === "string" &&
			typeof grant.script === "string" &&
			Array.isArray(grant.tools) &&
			grant.tools.every((tool) => typeof tool === "string") &&
			(grant.maxCostUsd === undefined || (typeof grant.maxCostUsd === "number" && grant.maxCostUsd > 0));
		if (!ok) {
			throw grantsInvalid(
				file,
				`the grant of ${JSON.stringify(key)} needs sha256, script and tools (and maxCostUsd, when given, a dollar amount above 0)`,
			);
		}
	}
	return { version: 1, workflows: workflows as Record<string, WorkflowGrant> };
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Written whole through a temporary file, so a reader never sees half of it. */
function writeGrants(file: string, grants: GrantsFile): void {
	try {
		mkdirSync(dirname(file), { recursive: true });
		const temporary = `${file}.${process.pid}.tmp`;
		writeFileSync(temporary, `${JSON.stringify(grants, null, "\t")}\n`);
		renameSync(temporary, file);
	} catch (error) {
		throw grantsInvalid(file, `cannot be written: ${errorMessage(error)}`);
	}
}

function grantsInvalid(file: string, why: string): WorkflowError {
	return new WorkflowError(
		"grants_invalid",
		`The workflow grants file ${file} cannot be used: ${why}. Fix it, or delete it: each saved workflow then asks again before its first tool() call`,
		{ details: { file } },
	);
}
