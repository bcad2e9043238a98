/**
 * The JavaScript of `npm run build` (tsc writes only the `.d.ts` beside it): one bundled file per public entry and
 * per worker entry, so a fresh process reads a handful of files where it read some 145 modules. Modules that two entries
 * share go to shared chunks under `chunks/`, so a process that loads two entries still has one copy of each class
 * and singleton (`instanceof WorkflowError`, the sandbox pool). Dependencies stay imports: they are installed.
 *
 * Usage: node scripts/build.ts [<output dir, default dist>]   (the bench builds into its own folder)
 */
import { chmodSync, copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "rolldown";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "src");
/**
 * The package's exports and bin, and the two worker threads' entries, which the host starts by URL
 * (`src/sandbox/pool.ts`, `src/runtime/schema/schema-worker-host.ts`) at these places.
 */
const ENTRIES = ["index", "pi", "queue/index", "cli/main", "sandbox/worker", "runtime/schema/worker-entry"];
/** Stands for the way from a chunk back to the output folder until the chunk's place is known. */
const TO_ROOT = "<pi-workflows output root>/";

/** Bundles src/ into `out` and copies the guest files the sandbox reads at run time. */
export async function bundlePackage(out: string): Promise<void> {
	await build({
		input: Object.fromEntries(ENTRIES.map((name) => [name, join(SRC, `${name}.ts`)])),
		platform: "node",
		external: (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0"),
		plugins: [moduleUrls()],
		logLevel: "warn",
		output: {
			dir: out,
			format: "esm",
			entryFileNames: "[name].js",
			chunkFileNames: "chunks/[name]-[hash].js",
			comments: false,
			// Non-ASCII text escaped: a file that is all ASCII is read and scanned by V8 as one-byte text, which made the
			// core entry's import about 7 % faster (its messages use "…", "→", "×").
			charset: "ascii",
			sourcemap: true,
		},
	});
	chmodSync(join(out, "cli/main.js"), 0o755);
	mkdirSync(join(out, "runtime/guest"), { recursive: true });
	for (const file of readdirSync(join(SRC, "runtime/guest")).filter((name) => name.endsWith(".js"))) {
		copyFileSync(join(SRC, "runtime/guest", file), join(out, "runtime/guest", file));
	}
}

/**
 * Keeps `import.meta.url` meaning the module's own place in the output (`dist/sandbox/pool.js`, as tsc laid it out):
 * the code finds its sibling files from there (the worker entries, the guest files, the skills, the examples). A
 * module's URL becomes its path resolved against the URL of the chunk it lands in, known once chunks are placed.
 */
function moduleUrls(): Plugin {
	return {
		name: "module-urls",
		transform(code, id) {
			if (!id.startsWith(SRC) || !code.includes("import.meta.url")) return null;
			const path = relative(SRC, id).split(sep).join("/").replace(/\.ts$/, ".js");
			const url = `new URL(${JSON.stringify(TO_ROOT + path)}, import.meta.url).href`;
			// Same lines, so the line numbers of the source map still hold (`map: null`: the code did not move).
			return { code: code.replaceAll("import.meta.url", url), map: null };
		},
		renderChunk(code, chunk) {
			if (!code.includes(TO_ROOT)) return null;
			const depth = chunk.fileName.split("/").length - 1;
			return { code: code.replaceAll(TO_ROOT, depth === 0 ? "./" : "../".repeat(depth)), map: null };
		},
	};
}

if (import.meta.main) await bundlePackage(resolve(process.argv[2] ?? join(ROOT, "dist")));
