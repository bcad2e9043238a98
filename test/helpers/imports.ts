/** For the import-direction tests: the `.ts` files of a source folder and the import statements of each. */
import { readdirSync, readFileSync } from "node:fs";

/** One import statement: where from, and whether it imports types only. */
export interface ImportLine {
	typeOnly: boolean;
	from: string;
}

/** The folder `src/<folder>/`, its `.ts` files, and a reader of each file's imports. */
export function sourceFolder(folder: string): { files: string[]; importsOf: (name: string) => ImportLine[] } {
	const dir = new URL(`../../src/${folder}/`, import.meta.url);
	const files = readdirSync(dir).filter((name) => name.endsWith(".ts"));
	const importsOf = (name: string) => {
		const source = readFileSync(new URL(name, dir), "utf8");
		return [...source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)].map((match) => ({
			typeOnly: match[1] !== undefined,
			from: match[2] ?? "",
		}));
	};
	return { files, importsOf };
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
