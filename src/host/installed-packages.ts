/**
 * The pi packages pi has installed, read from the files pi writes (pi-free, so the CLI and the core entry can read
 * them): the `packages` of `<agentDir>/settings.json` (user) and of `<cwd>/.pi/settings.json` (project, only when the
 * project is trusted, as pi installs and loads project packages only then), each at the place pi installs it
 * (pi 1.6, dist/core/package-manager.js): `npm:<name>` in `<base>/npm/node_modules/<name>`, a git URL in
 * `<base>/git/<host>/<path>`, a local path where it is, resolved from the settings file's folder; `<base>` is the
 * agent dir for user packages and `<cwd>/.pi` for project ones. A project entry replaces a user entry of the same
 * package, as in pi.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { readRegularFile } from "../agents/regular-file.ts";

/** One installed package: where it is and how to name its source to a person. */
export interface InstalledPackage {
	/** The source as pi's settings hold it (`npm:@acme/tools@1.2.0`, `git:github.com/acme/tools@v1`, `../tools`). */
	source: string;
	kind: "npm" | "git" | "local";
	scope: "user" | "project";
	/** The package's folder. */
	root: string;
	/** Its package.json, parsed (an object), or undefined when it has none that reads. */
	manifest: Record<string, unknown> | undefined;
	/** `name@version`, `<git url> @ <commit>` or the local path: where it came from, for listings. */
	shown: string;
	/** What changes when the package is updated: the npm or package.json version, or the git commit. */
	version: string;
	/** The command that installs it again, from any folder (a local path resolved, `-l` for a project's). */
	reinstall: string;
}

/** The largest package.json read: a manifest is small; a bigger file is skipped, not read without end. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** The packages pi has installed for `cwd`, project ones first (they win a clash, as in pi). */
export function listInstalledPackages(options: {
	cwd: string;
	agentDir: string;
	/** pi's decision about the project: without it, the project's packages are not read. */
	projectTrusted: boolean;
}): InstalledPackage[] {
	const scopes: ["user" | "project", string][] = [
		...(options.projectTrusted ? ([["project", join(options.cwd, ".pi")]] as ["project", string][]) : []),
		["user", options.agentDir],
	];
	const packages: InstalledPackage[] = [];
	const seen = new Set<string>();
	for (const [scope, base] of scopes) {
		for (const source of configuredSources(join(base, "settings.json"))) {
			const found = locate(source, base);
			if (!found) continue;
			const identity = found.kind === "local" ? found.root : `${found.kind}:${found.identity}`;
			if (seen.has(identity)) continue;
			seen.add(identity);
			packages.push(describe(source, scope, found.kind, found.root));
		}
	}
	return packages;
}

/** The `packages` of one settings file: strings, or objects with a `source`; nothing when it does not read. */
function configuredSources(settingsFile: string): string[] {
	let settings: unknown;
	try {
		settings = JSON.parse(readFileSync(settingsFile, "utf8"));
	} catch {
		return [];
	}
	const list = (settings as { packages?: unknown })?.packages;
	if (!Array.isArray(list)) return [];
	return list
		.map((entry) => (typeof entry === "string" ? entry : (entry as { source?: unknown })?.source))
		.filter((source): source is string => typeof source === "string" && source.trim() !== "");
}

/** Where pi put `source`, as pi's package manager computes it. */
function locate(
	source: string,
	base: string,
): { kind: InstalledPackage["kind"]; root: string; identity: string } | undefined {
	const trimmed = source.trim();
	if (trimmed.startsWith("npm:")) {
		const name = npmName(trimmed.slice(4).trim());
		return { kind: "npm", root: join(base, "npm", "node_modules", name), identity: name };
	}
	const git = gitPlace(trimmed);
	if (git) return { kind: "git", root: join(base, "git", git.host, git.path), identity: `${git.host}/${git.path}` };
	const local = trimmed.startsWith("~/") ? join(process.env.HOME ?? "", trimmed.slice(2)) : trimmed;
	const root = isAbsolute(local) ? local : resolve(base, local);
	return { kind: "local", root, identity: root };
}

/** `@scope/name@1.2.0` → `@scope/name`. */
function npmName(spec: string): string {
	const match = /^(@?[^@]+(?:\/[^@]+)?)(?:@.+)?$/.exec(spec);
	return match?.[1] ?? spec;
}

/** The host and path of a git source (`git:github.com/acme/tools@v1`, `https://github.com/acme/tools`). */
function gitPlace(source: string): { host: string; path: string } | undefined {
	const prefixed = source.startsWith("git:");
	let url = prefixed ? source.slice(4).trim() : source;
	if (!prefixed && !/^(https?|ssh|git):\/\//i.test(url)) return undefined;
	url = url.replace(/^(https?|ssh|git):\/\//i, "").replace(/^[^@/]+@([^:/]+):/, "$1/");
	url = url.replace(/^[^@/]+@/, "");
	const slash = url.indexOf("/");
	if (slash < 0) return undefined;
	const host = url.slice(0, slash).replace(/:\d+$/, "");
	const path = url
		.slice(slash + 1)
		.replace(/@[^/]*$/, "")
		.replace(/#.*$/, "")
		.replace(/\.git$/, "");
	return path === "" ? undefined : { host, path };
}

function describe(
	source: string,
	scope: InstalledPackage["scope"],
	kind: InstalledPackage["kind"],
	root: string,
): InstalledPackage {
	const manifest = readManifest(root);
	const version = typeof manifest?.version === "string" ? manifest.version : "";
	const name = typeof manifest?.name === "string" ? manifest.name : root;
	const reinstall = `pi install ${kind === "local" ? root : source}${scope === "project" ? " -l" : ""}`;
	if (kind === "git") {
		const commit = gitCommit(root) ?? "unknown commit";
		const shown = `${source} @ ${commit.slice(0, 12)}`;
		return { source, kind, scope, root, manifest, shown, version: commit, reinstall };
	}
	const shown = kind === "npm" ? `${name}@${version}` : `${root}${version ? ` (${name}@${version})` : ""}`;
	return { source, kind, scope, root, manifest, shown, version, reinstall };
}

function readManifest(root: string): Record<string, unknown> | undefined {
	const read = readRegularFile(join(root, "package.json"), MAX_MANIFEST_BYTES);
	if (!read.ok) return undefined;
	try {
		const parsed: unknown = JSON.parse(read.text);
		return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
			? (parsed as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

/** The commit a git checkout is at, read from its `.git` (no git process: this runs while a description is built). */
function gitCommit(root: string): string | undefined {
	try {
		const head = readFileSync(join(root, ".git", "HEAD"), "utf8").trim();
		if (!head.startsWith("ref: ")) return head;
		const ref = head.slice(5);
		try {
			return readFileSync(join(root, ".git", ref), "utf8").trim();
		} catch {
			const packed = readFileSync(join(root, ".git", "packed-refs"), "utf8");
			return packed
				.split("\n")
				.find((line) => line.endsWith(` ${ref}`))
				?.split(" ")[0];
		}
	} catch {
		return undefined;
	}
}
