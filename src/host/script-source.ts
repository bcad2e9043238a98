/**
 * Where a workflow's source comes from: inline text, a file path, or the name of a saved workflow. Saved workflows
 * are `.pi/workflows/*.js` (project) over `<agentDir>/workflows/*.js` (global) over Claude Code's
 * `.claude/workflows/*.js` and `~/.claude/workflows/*.js` (unless `workflows.claudeDirs` says not) over the bundled
 * examples that are useful in any project, found by `meta.name`; a file with a bad header is skipped with a warning
 * instead of hiding the others, and a name two places claim is said once. Only regular files within the script size
 * limit are read (symlinks to them followed): a FIFO, a device or a huge file is skipped with a warning.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type ClaudeDirs, claudeDirsFor } from "../agents/claude-dirs.ts";
import { readRegularFile } from "../agents/regular-file.ts";
import { WorkflowError } from "../errors.ts";
import type { WorkflowMeta, WorkflowResolver } from "../runtime/core/types.ts";
import { checkWorkflowSource, DEFAULT_MAX_SCRIPT_BYTES } from "../runtime/meta/read.ts";
import { resolveWorkflowPath } from "../runtime/run/nested.ts";
import { type InstalledFrom, loadInstalledWorkflows, verifyBlocksSetting } from "./installed-workflows.ts";
import { sha256Of } from "./workflow-lock.ts";

/** What the `workflow` tool was asked to run: exactly one of the three. */
export interface ScriptSourceParams {
	script?: string;
	path?: string;
	name?: string;
}

/** Source text and the file name its positions refer to. */
export interface ResolvedScript {
	source: string;
	filename: string;
	/** How it was found, for display: "inline", the path, or "saved:<name>". */
	origin: string;
	/**
	 * How far it is trusted, by where it came from (`tierOfFile`): "inline" for the tool call's text and for a file
	 * outside the saved folders (the model may have written it); "installed" for a workflow from a pi package (its
	 * digest checked against the lock); grants are kept per workflow of the other tiers.
	 */
	tier?: "inline" | "project" | "user" | "installed" | "bundled";
}

/** A saved workflow found on disk. */
export interface SavedWorkflow {
	name: string;
	filename: string;
	meta: WorkflowMeta;
	scope: "project" | "global" | "claude-project" | "claude-global" | "bundled" | "installed";
	/** For a workflow from a pi package: the package, the digest now and the locked one. */
	installed?: InstalledFrom;
}

/**
 * The examples shipped as saved workflows of the lowest precedence: the ones that need nothing but a repository,
 * listed as any pi package lists its workflows, in this package's package.json (`"pi": { "workflows": [...] }`).
 * Left out: security-audit (needs its agent files copied to .pi/agents/ first) and release-notes with its child
 * changelog-entry (release-notes finds the child by a path relative to the run's cwd).
 */
export function bundledWorkflows(): readonly string[] {
	bundled ??= manifestWorkflows();
	return bundled;
}
let bundled: readonly string[] | undefined;

/** The folder of the bundled workflows: this package's examples/workflows (from src/pi/tool/ and dist/pi/tool/ alike). */
export const BUNDLED_DIR = fileURLToPath(new URL("../../examples/workflows/", import.meta.url));

/** Where saved workflows are looked for. */
export interface SavedWorkflowPlaces {
	cwd: string;
	agentDir: string;
	/** The bundled workflows' folder, or false for none. Default: `BUNDLED_DIR`. */
	bundledDir?: string | false;
	/** Claude Code's folders to read after ours, or false for none. Default: per `workflows.claudeDirs` (on). */
	claude?: ClaudeDirs | false;
	/**
	 * pi's decision about the project's trust: the project's pi packages are read only when true, as pi installs and
	 * loads them only then. Default: false. `false` for `packages` reads no package at all.
	 */
	projectTrusted?: boolean;
	/** Read the workflows of installed pi packages. Default: true. */
	packages?: boolean;
	/** Told each skipped file when a workflow is looked up by name (`findSaved`). Default: not told. */
	warn?: (message: string) => void;
}

export interface SavedWorkflows {
	byName: Map<string, SavedWorkflow>;
	/** One line per skipped file, naming it and why. */
	warnings: string[];
}

/**
 * Reads saved workflows; project files win over global ones of the same `meta.name`, ours over Claude Code's, and
 * all of them over bundled ones.
 */
export function loadSavedWorkflows(options: SavedWorkflowPlaces): SavedWorkflows {
	const byName = new Map<string, SavedWorkflow>();
	const warnings: string[] = [];
	const bundledDir = options.bundledDir ?? BUNDLED_DIR;
	const claude = claudeDirsFor("workflows", options, options.claude);
	const places: [string, SavedWorkflow["scope"], readonly string[] | undefined][] = [
		...(bundledDir === false
			? []
			: [[bundledDir, "bundled", bundledWorkflows()] as [string, "bundled", readonly string[]]]),
		...(claude
			? ([
					[join(claude.home, "workflows"), "claude-global", undefined],
					[join(claude.cwd, ".claude", "workflows"), "claude-project", undefined],
				] as [string, SavedWorkflow["scope"], undefined][])
			: []),
		[join(options.agentDir, "workflows"), "global", undefined],
		[join(options.cwd, ".pi", "workflows"), "project", undefined],
	];
	for (const [dir, scope, only] of places) {
		let files: string[];
		try {
			files = only
				? [...only]
				: readdirSync(dir)
						.filter((f) => f.endsWith(".js"))
						.sort();
		} catch {
			continue;
		}
		for (const file of files) {
			const filename = join(dir, file);
			const read = readRegularFile(filename, DEFAULT_MAX_SCRIPT_BYTES);
			if (!read.ok) {
				warnings.push(`Skipped saved workflow ${filename}: ${read.reason}. ${SKIP_HINTS[read.problem]}`);
				continue;
			}
			const source = read.text;
			const checked = checkWorkflowSource(source, { filename });
			if (!checked.ok) {
				warnings.push(`Skipped saved workflow ${filename}: ${checked.error.message}`);
				continue;
			}
			const shadowed = byName.get(checked.meta.name);
			if (shadowed?.scope.startsWith("claude-") && !scope.startsWith("claude-")) {
				warnings.push(
					`Saved workflow \`${checked.meta.name}\` is in Claude Code's ${shadowed.filename} and in ${filename}; \`${checked.meta.name}\` runs ${filename} (pi's folders come first)`,
				);
			}
			byName.set(checked.meta.name, { name: checked.meta.name, filename, meta: checked.meta, scope });
		}
	}
	if (options.packages !== false) addInstalled(byName, warnings, options, bundledDir);
	return { byName, warnings };
}

/** The installed packages' workflows; a name a saved workflow has already is refused, naming both. */
function addInstalled(
	byName: Map<string, SavedWorkflow>,
	warnings: string[],
	options: SavedWorkflowPlaces,
	bundledDir: string | false,
): void {
	const installed = loadInstalledWorkflows({
		cwd: options.cwd,
		agentDir: options.agentDir,
		projectTrusted: options.projectTrusted === true,
		...(bundledDir !== false ? { skipRoot: join(bundledDir, "..", "..") } : {}),
	});
	warnings.push(...installed.warnings);
	for (const workflow of installed.workflows) {
		const taken = byName.get(workflow.name);
		if (taken) {
			warnings.push(
				`Installed workflow \`${workflow.name}\` of package ${workflow.installed.shown} (${workflow.filename}) is refused: the saved workflow ${taken.filename} has that name. Rename one of them (meta.name)`,
			);
			continue;
		}
		byName.set(workflow.name, { ...workflow, scope: "installed" });
	}
}

/** What to do about a saved workflow file that was not read. */
const SKIP_HINTS = {
	not_regular: "Only regular .js files are read as saved workflows: remove it, or put a workflow file in its place",
	too_large: `A workflow script may be at most ${DEFAULT_MAX_SCRIPT_BYTES / 1024} KiB: shorten it`,
	unreadable: "Check that the file exists and can be read",
} as const;

/** pi's decision about a session's project (`ctx.isProjectTrusted()`), which the project's packages follow. */
export function piProjectTrusted(ctx: { isProjectTrusted?: () => boolean }): boolean {
	return typeof ctx.isProjectTrusted === "function" && ctx.isProjectTrusted() === true;
}

/** Turns the tool's parameters into source text; throws a `WorkflowError` that says what to pass instead. */
export function resolveScriptSource(params: ScriptSourceParams, options: SavedWorkflowPlaces): ResolvedScript {
	const given = (["script", "path", "name"] as const).filter((k) => typeof params[k] === "string" && params[k] !== "");
	if (given.length !== 1) {
		throw new WorkflowError(
			"agent_options_invalid",
			given.length === 0
				? "The `workflow` tool needs one of `script` (inline source), `path` (a .js file) or `name` (a saved workflow)"
				: `The \`workflow\` tool takes exactly one of \`script\`, \`path\` or \`name\`; got ${given.map((k) => `\`${k}\``).join(" and ")}`,
		);
	}
	if (params.script) return { source: params.script, filename: "workflow.js", origin: "inline", tier: "inline" };
	if (params.path) {
		const filename = toAbsolute(params.path, options.cwd);
		return {
			source: readScript(filename, params.path),
			filename,
			origin: params.path,
			tier: tierOfFile(filename, options),
		};
	}
	const saved = findSaved(params.name as string, options);
	return {
		source: readSaved(saved, options),
		filename: saved.filename,
		origin: `saved:${saved.name}`,
		tier: SCOPE_TIERS[saved.scope],
	};
}

/**
 * The tier of each saved folder. Claude Code's folders get the tier of ours beside them: a person put the file
 * there, in the project or in their home, as they would in `.pi/workflows` or `<agentDir>/workflows`.
 */
const SCOPE_TIERS = {
	project: "project",
	"claude-project": "project",
	global: "user",
	"claude-global": "user",
	bundled: "bundled",
	installed: "installed",
} as const satisfies Record<SavedWorkflow["scope"], NonNullable<ResolvedScript["tier"]>>;

/** The tier of a workflow file named by path: its saved folder's, or "inline" for a file anywhere else. */
export function tierOfFile(
	filename: string,
	places: Pick<SavedWorkflowPlaces, "cwd" | "agentDir" | "bundledDir" | "claude">,
): NonNullable<ResolvedScript["tier"]> {
	const dir = dirname(resolve(filename));
	const bundledDir = places.bundledDir ?? BUNDLED_DIR;
	if (bundledDir !== false && dir === resolve(bundledDir)) {
		return bundledWorkflows().includes(basename(filename)) ? "bundled" : "inline";
	}
	const claude = claudeDirsFor("workflows", places, places.claude);
	const folders: [string, SavedWorkflow["scope"]][] = [
		[join(places.cwd, ".pi", "workflows"), "project"],
		[join(places.agentDir, "workflows"), "global"],
		...(claude
			? ([
					[join(claude.cwd, ".claude", "workflows"), "claude-project"],
					[join(claude.home, "workflows"), "claude-global"],
				] as [string, SavedWorkflow["scope"]][])
			: []),
	];
	const found = folders.find(([folder]) => resolve(folder) === dir);
	return found ? SCOPE_TIERS[found[1]] : "inline";
}

/** The resolver for nested `workflow(nameOrPath)`: a saved workflow's name, else a path relative to cwd. */
export function createWorkflowResolver(options: Omit<SavedWorkflowPlaces, "cwd">): WorkflowResolver {
	return async (nameOrPath, { cwd }) => {
		const looksLikePath = nameOrPath.endsWith(".js") || nameOrPath.includes("/") || nameOrPath.includes("\\");
		if (looksLikePath) return resolveWorkflowPath(nameOrPath, { cwd });
		const saved = findSaved(nameOrPath, { ...options, cwd });
		return { source: readSaved(saved, { ...options, cwd }), filename: saved.filename };
	};
}

/** The saved workflow named `name`; throws `workflow_not_found` listing the saved ones. */
export function findSaved(name: string, options: SavedWorkflowPlaces): SavedWorkflow {
	const { byName, warnings } = loadSavedWorkflows(options);
	for (const warning of warnings) options.warn?.(warning);
	const saved = byName.get(name);
	if (!saved) {
		const known = [...byName.keys()].sort();
		throw new WorkflowError(
			"workflow_not_found",
			`No saved workflow named \`${name}\`. ${known.length > 0 ? `Saved: ${known.join(", ")}` : "None are saved: put workflow files in .pi/workflows/ (or Claude Code's .claude/workflows/)"}`,
			{ details: { name, available: known } },
		);
	}
	return saved;
}

/**
 * A saved workflow's text; an installed one only when the text read is the one its lock holds (the bytes that will
 * run are the bytes checked), and, under `workflows.verifyBlocksInstall`, its last verify at that digest passed.
 */
export function readSaved(saved: SavedWorkflow, places: { cwd: string; agentDir: string }): string {
	const source = readScript(saved.filename, saved.filename);
	if (saved.installed) {
		const blocks = verifyBlocksSetting(places.cwd, places.agentDir);
		checkInstalled(saved.name, saved.filename, source, saved.installed, blocks);
	}
	return source;
}

function checkInstalled(name: string, filename: string, source: string, from: InstalledFrom, verifyBlocks: boolean) {
	const now = sha256Of(source);
	if (from.locked === "") {
		throw new WorkflowError(
			"workflow_digest_mismatch",
			`Installed workflow \`${name}\` (${filename}) was not in package ${from.shown} when that version was installed (the lock has no digest for it: the file was added or its meta.name changed since), so it does not run. If the change is yours and you trust it, approve it: \`pi-workflows verify ${name} --accept\`; otherwise re-install the package: \`${from.reinstall}\` (the lock is ${from.lockFile})`,
			{ details: { name, filename, sha256: now, lockFile: from.lockFile } },
		);
	}
	if (now !== from.locked) {
		throw new WorkflowError(
			"workflow_digest_mismatch",
			`Installed workflow \`${name}\` (${filename}) no longer matches the digest locked for package ${from.shown} (locked sha256 ${from.locked.slice(0, 12)}…, now ${now.slice(0, 12)}…), so it does not run. If you changed it and trust the change, re-approve it: \`pi-workflows verify ${name} --accept\`; otherwise re-install the package: \`${from.reinstall}\` (the lock is ${from.lockFile})`,
			{ details: { name, filename, locked: from.locked, sha256: now, lockFile: from.lockFile } },
		);
	}
	const verified = from.entry.verified;
	if (verifyBlocks && verified && !verified.ok && verified.sha256 === now) {
		throw new WorkflowError(
			"workflow_verify_failed",
			`Installed workflow \`${name}\` of package ${from.shown} failed its replay test (${verified.summary}), and the setting workflows.verifyBlocksInstall blocks it. See why with \`pi-workflows verify ${name}\`; install a version that passes (\`${from.reinstall}\`), or turn the setting off`,
			{ details: { name, filename, sha256: now } },
		);
	}
}

/** Reads a workflow file; only a regular file within the size limit, so a FIFO or device named by a model cannot stall pi. */
function readScript(filename: string, shown: string): string {
	const read = readRegularFile(filename, DEFAULT_MAX_SCRIPT_BYTES);
	if (read.ok) return read.text;
	if (read.problem === "too_large") {
		throw new WorkflowError("script_too_large", `Workflow file ${filename}: ${read.reason}. Shorten it`, {
			details: { filename, limit: DEFAULT_MAX_SCRIPT_BYTES },
		});
	}
	const why = read.problem === "not_regular" ? `: ${read.reason}. Name a regular .js file` : "";
	throw new WorkflowError("workflow_not_found", `No workflow file at \`${shown}\` (looked for ${filename})${why}`, {
		details: { filename },
	});
}

/** Some models prefix paths with `@`; pi's own tools strip it too. */
function toAbsolute(path: string, cwd: string): string {
	const clean = path.startsWith("@") ? path.slice(1) : path;
	return isAbsolute(clean) ? clean : resolve(cwd, clean);
}

/**
 * The file names this package's manifest lists as workflows (all in examples/workflows/), read at first use, not at
 * import. A copy of the code without the package beside it (a bundler's output) has none.
 */
function manifestWorkflows(): string[] {
	let text: string;
	try {
		text = readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8");
	} catch {
		return [];
	}
	const manifest = JSON.parse(text) as { pi?: { workflows?: string[] } };
	return (manifest.pi?.workflows ?? []).map((path) => basename(path));
}
