/**
 * Workflows that pi packages ship: a package's manifest lists them (`"pi": { "workflows": ["./workflows"],
 * "extensions": [] }`: a folder of `.js` files, or files), and each becomes a saved workflow named
 * `<package>:<meta.name>` (the package's npm name without its `@scope/`). The same rules as saved workflows: only
 * regular files within the script size limit, `meta` read without running; and no path out of the package, symlinks
 * included. Each one's digest is locked at first sight of its package version (workflow-lock.ts).
 */
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { readRegularFile } from "../agents/regular-file.ts";
import type { WorkflowMeta } from "../runtime/core/types.ts";
import { checkWorkflowSource, DEFAULT_MAX_SCRIPT_BYTES } from "../runtime/meta/read.ts";
import { type InstalledPackage, listInstalledPackages } from "./installed-packages.ts";
import { type LockEntry, lockFileFor, readLock, sha256Of, type WorkflowLock, writeLock } from "./workflow-lock.ts";

/** Where an installed workflow came from and what its lock says. */
export interface InstalledFrom {
	/** The package's name as the workflow's prefix uses it. */
	packageName: string;
	/** `name@version`, `<git url> @ <commit>`, or the local path. */
	shown: string;
	source: string;
	/** The command that installs the package again (`pi install <source>`). */
	reinstall: string;
	scope: "user" | "project";
	/** The sha256 of the file now. */
	sha256: string;
	/** The sha256 the lock holds for it. */
	locked: string;
	lockFile: string;
	/** The lock's entry (with the last verify). */
	entry: LockEntry;
}

export interface InstalledWorkflow {
	name: string;
	filename: string;
	meta: WorkflowMeta;
	installed: InstalledFrom;
}

/** The packages' resource keys pi reads: one of them beside `workflows` keeps pi from loading the folder as code. */
const PI_RESOURCE_KEYS = ["extensions", "skills", "prompts", "themes"] as const;

/**
 * Every installed package's workflows, project packages first; a name two packages claim is kept for the first and
 * refused for the other with a warning naming both sources. New digests are written to the lock files.
 */
export function loadInstalledWorkflows(options: {
	cwd: string;
	agentDir: string;
	projectTrusted: boolean;
	/** A package folder not to read (this package's own: its workflows are the bundled ones). */
	skipRoot?: string;
}): { workflows: InstalledWorkflow[]; warnings: string[] } {
	const warnings: string[] = [];
	const byName = new Map<string, InstalledWorkflow>();
	const locks = new Map<string, { lock: WorkflowLock; changed: boolean }>();
	const skip = options.skipRoot ? realOrSelf(options.skipRoot) : undefined;
	for (const pkg of listInstalledPackages(options)) {
		const listed = pkg.manifest?.pi;
		const entries = (listed as { workflows?: unknown } | undefined)?.workflows;
		if (!Array.isArray(entries) || realOrSelf(pkg.root) === skip) continue;
		const unloadable = unloadableWarning(pkg, listed as Record<string, unknown>);
		if (unloadable) warnings.push(unloadable);
		const lockFile = lockFileFor(pkg.scope, options);
		const held = locks.get(lockFile) ?? { lock: readLock(lockFile), changed: false };
		locks.set(lockFile, held);
		const packageName = shortName(pkg);
		// Whether this version of the package was seen before: a workflow the lock has no digest for is then new since.
		const known = Object.values(held.lock.workflows).some(
			(entry) => entry.source === pkg.source && entry.version === pkg.version,
		);
		for (const filename of workflowFiles(pkg, entries, warnings)) {
			const read = readRegularFile(filename, DEFAULT_MAX_SCRIPT_BYTES);
			if (!read.ok) {
				warnings.push(`Skipped workflow ${filename} of package ${pkg.shown}: ${read.reason}`);
				continue;
			}
			const checked = checkWorkflowSource(read.text, { filename });
			if (!checked.ok) {
				warnings.push(`Skipped workflow ${filename} of package ${pkg.shown}: ${checked.error.message}`);
				continue;
			}
			const name = `${packageName}:${checked.meta.name}`;
			const clash = byName.get(name);
			if (clash) {
				warnings.push(
					`Installed workflow \`${name}\` is in two packages: ${clash.installed.shown} (${clash.filename}) and ${pkg.shown} (${filename}); \`${name}\` runs the first (${clash.installed.scope === "project" ? "the project's package" : "listed first"}). Remove one of the packages (\`pi remove <source>\`) or rename its meta.name`,
				);
				continue;
			}
			const sha256 = sha256Of(read.text);
			const entry = lockEntry(held, name, { pkg, filename, sha256, known });
			byName.set(name, {
				name,
				filename,
				meta: checked.meta,
				installed: {
					packageName,
					shown: pkg.shown,
					source: pkg.source,
					reinstall: pkg.reinstall,
					scope: pkg.scope,
					sha256,
					locked: entry.sha256,
					lockFile,
					entry,
				},
			});
		}
	}
	for (const [file, held] of locks) {
		if (!held.changed) continue;
		try {
			writeLock(file, held.lock);
		} catch (error) {
			warnings.push(`Could not write the workflow lock ${file}: ${(error as Error).message}`);
		}
	}
	return { workflows: [...byName.values()], warnings };
}

/**
 * The lock's entry for a workflow: recorded now when its package is seen at this version for the first time (an
 * install or an update); the recorded one otherwise; and, for a file the package did not have at this version when it
 * was first seen (a workflow renamed or added since), an entry with no digest, which nothing matches until re-approved.
 */
function lockEntry(
	held: { lock: WorkflowLock; changed: boolean },
	name: string,
	seen: { pkg: InstalledPackage; filename: string; sha256: string; known: boolean },
): LockEntry {
	const { pkg, filename, sha256 } = seen;
	const recorded = held.lock.workflows[name];
	if (recorded && recorded.version === pkg.version && recorded.source === pkg.source) {
		return recorded;
	}
	const entry = {
		sha256,
		file: filename,
		source: pkg.source,
		version: pkg.version,
		lockedAt: new Date().toISOString(),
	};
	if (seen.known) return { ...entry, sha256: "" };
	held.lock.workflows[name] = entry;
	held.changed = true;
	return entry;
}

/** `@acme/tools` → `tools`: a `/` cannot be in a command's name. */
function shortName(pkg: InstalledPackage): string {
	const name = typeof pkg.manifest?.name === "string" ? pkg.manifest.name : pkg.root.split(/[\\/]/).pop() || "package";
	return name.replace(/^@[^/]+\//, "");
}

/** The `.js` files a manifest's `workflows` entries name, each inside the package (symlinks resolved). */
function workflowFiles(pkg: InstalledPackage, entries: unknown[], warnings: string[]): string[] {
	const root = realOrSelf(pkg.root);
	const files: string[] = [];
	for (const entry of entries) {
		if (typeof entry !== "string") continue;
		const path = resolve(pkg.root, entry);
		let real: string;
		try {
			real = realpathSync(path);
		} catch {
			warnings.push(`Package ${pkg.shown} lists workflows at ${entry}, which is not there`);
			continue;
		}
		if (!inside(root, real)) {
			warnings.push(
				`Skipped ${entry} of package ${pkg.shown}: it leads out of the package (to ${real}); a package's workflows are files inside it`,
			);
			continue;
		}
		const names = statSync(real).isDirectory()
			? readdirSync(real)
					.filter((file) => file.endsWith(".js"))
					.sort()
					.map((file) => join(real, file))
			: [real];
		for (const file of names) {
			const target = realOrSelf(file);
			if (inside(root, target)) files.push(file);
			else
				warnings.push(
					`Skipped workflow ${file} of package ${pkg.shown}: it is a link out of the package (to ${target}); a package's workflows are files inside it`,
				);
		}
	}
	return files;
}

/**
 * pi 1.6 loads a local package folder whose manifest names none of its resource keys (and that has none of their
 * folders) as one extension, which fails with "Cannot find module" and stops `pi -p`: say what to add.
 */
function unloadableWarning(pkg: InstalledPackage, listed: Record<string, unknown>): string | undefined {
	if (pkg.kind !== "local" || PI_RESOURCE_KEYS.some((key) => listed[key] !== undefined)) return undefined;
	if (PI_RESOURCE_KEYS.some((key) => isFolder(join(pkg.root, key)))) return undefined;
	return `pi cannot load the package ${pkg.root}: its package.json "pi" lists only "workflows", so pi loads the folder as an extension and fails ("Cannot find module"). Add "extensions": [] beside "workflows" in its "pi" manifest: "pi": { "workflows": [...], "extensions": [] }`;
}

function isFolder(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

function realOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function inside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * `workflows.verifyBlocksInstall` of pi's settings: true in the user's or the project's settings file blocks running
 * an installed workflow whose last verify failed (a project can turn the block on, not off).
 */
export function verifyBlocksSetting(cwd: string, agentDir: string): boolean {
	return [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")].some((file) => {
		try {
			const settings = JSON.parse(readFileSync(file, "utf8")) as { workflows?: { verifyBlocksInstall?: unknown } };
			return settings?.workflows?.verifyBlocksInstall === true;
		} catch {
			return false;
		}
	});
}
