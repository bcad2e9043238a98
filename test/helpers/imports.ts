/** For the import-direction tests: the `.ts` files of a source folder and the import statements of each. */

import { readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";

/** One import statement: where from, and whether it imports types only. */
export interface ImportLine {
	typeOnly: boolean;
	from: string;
}

/** The folder `src/<folder>/`, its `.ts` files, and a reader of each file's imports. */
export function sourceFolder(folder: string): { files: string[]; importsOf: (name: string) => ImportLine[] } {
	const dir = new URL(`../../src/${folder}/`, import.meta.url);
	// Subfolders too (`cli/eval/`): their imports are said as from the folder's top, so one rule reads them all.
	const files = (readdirSync(dir, { recursive: true }) as string[]).filter((name) => name.endsWith(".ts")).sort();
	const importsOf = (name: string) => {
		const source = readFileSync(new URL(name, dir), "utf8");
		return [...source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)].map((match) => ({
			typeOnly: match[1] !== undefined,
			from: fromTop(name, match[2] ?? ""),
		}));
	};
	return { files, importsOf };
}

/** `from` as the folder's top-level files would write it: `../pi-host.ts` in `eval/x.ts` is `./pi-host.ts`. */
function fromTop(name: string, from: string): string {
	if (!from.startsWith(".") || !name.includes("/")) return from;
	const path = posix.normalize(posix.join(posix.dirname(name), from));
	return path.startsWith("../") ? path : `./${path}`;
}

/** Packages only the pi entry may reach: pi's own and the schema library pi hands extensions. */
export const PI_PACKAGES = /^(@earendil-works\/|typebox(\/|$))/;

/**
 * Every `.ts` file reachable from `entry` (a path under `src/`) through static `import`/`export … from`, and the bare
 * specifiers each imports. Types are included (they end up in the `.d.ts` files) unless `runtimeOnly`, which leaves
 * out `import type`/`export type` statements, the only ones erased from the JavaScript. Dynamic `import()` is not
 * followed: that is how an entry loads something only when it is used.
 */
export function importGraph(entry: string, options: { runtimeOnly?: boolean } = {}): Map<string, string[]> {
	const src = new URL("../../src/", import.meta.url);
	const graph = new Map<string, string[]>();
	const pending = [new URL(entry, src)];
	for (let url = pending.pop(); url; url = pending.pop()) {
		const file = url.pathname.slice(src.pathname.length);
		if (graph.has(file)) continue;
		const source = readFileSync(url, "utf8");
		const bare: string[] = [];
		for (const match of source.matchAll(
			/^(?:import|export)\s(type\s)?[^;]*?from\s+"([^"]+)";|^import\s+"([^"]+)";/gms,
		)) {
			if (options.runtimeOnly && match[1]) continue;
			const from = match[2] ?? match[3] ?? "";
			if (from.startsWith(".")) pending.push(new URL(from, url));
			else bare.push(from);
		}
		graph.set(file, bare);
	}
	return graph;
}
