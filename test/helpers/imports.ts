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
