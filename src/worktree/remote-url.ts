/**
 * Whether two spellings of a git URL name one repository: `https://github.com/o/r.git`, `git@github.com:o/r` and
 * `ssh://git@github.com/o/r` do; so do a folder and `file://` of it. Scheme, user, port, a trailing `/` or `.git` and
 * the host's case are not part of the name.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

/** The repository a git URL names, as `host/path` (or a folder's real path), for comparing two URLs. */
export function repositoryName(url: string, base = process.cwd()): string {
	const text = url.trim();
	const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(text);
	if (scheme) {
		const [, kind = "", rest = ""] = scheme;
		if (kind.toLowerCase() === "file") return folderName(decodeURIComponent(rest.replace(/^[^/]*/, "")), base);
		// [user[:password]@]host[:port]/path
		const at = /^(?:[^@/]*@)?([^/:]*)(?::\d*)?(\/.*)?$/.exec(rest);
		return remoteName(at?.[1] ?? rest, at?.[2] ?? "");
	}
	// scp-like: [user@]host:path (a colon before any slash)
	const scp = /^(?:[^@/]*@)?([^/:]+):(.*)$/.exec(text);
	if (scp && !isAbsolute(text)) return remoteName(scp[1] ?? "", scp[2] ?? "");
	return folderName(text, base);
}

/** The two URLs name one repository. */
export function sameRepository(a: string, b: string, base = process.cwd()): boolean {
	return repositoryName(a, base) === repositoryName(b, base);
}

function remoteName(host: string, path: string): string {
	return `${host.toLowerCase()}/${trimTail(path.replace(/^\/+/, ""))}`;
}

/** A folder by its real path when it exists (a symlinked temp dir is one folder), else resolved as given. */
function folderName(path: string, base: string): string {
	const absolute = resolve(base, path);
	let real = absolute;
	try {
		real = realpathSync(absolute);
	} catch {
		// Not on this machine: compare as written.
	}
	return `file:${trimTail(real)}`;
}

function trimTail(path: string): string {
	return path
		.replace(/\/+$/, "")
		.replace(/\.git$/, "")
		.replace(/\/+$/, "");
}
