/**
 * A build of the package into bench/results/.build/dist (git-ignored), so rows 4, 5 and 9 measure the JavaScript an
 * installed package runs: `npm run build`'s bundles (scripts/build.ts), without the declaration files, which would
 * join the repository's own type check here.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Builds the package; returns the output directory, or why the build failed. */
export function buildPackage(root: URL): { dir: string } | { error: string } {
	const out = fileURLToPath(new URL("bench/results/.build/dist", root));
	rmSync(out, { recursive: true, force: true });
	const result = spawnSync(process.execPath, [fileURLToPath(new URL("scripts/build.ts", root)), out], {
		cwd: fileURLToPath(root),
		encoding: "utf8",
	});
	if (result.status !== 0) return { error: `${result.error?.message ?? ""}${result.stdout}${result.stderr}`.trim() };
	return { dir: out };
}
