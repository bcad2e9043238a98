/**
 * One sample of row 9, in a fresh process: the time to import some modules (an entry of the package, or a few
 * dependencies), one after the other. Prints one JSON line.
 *
 * Usage: node bench/rows/import-child.ts <file path of a module>[,<another>…]
 */
import { pathToFileURL } from "node:url";

const [paths = ""] = process.argv.slice(2);
const started = performance.now();
for (const path of paths.split(",")) await import(pathToFileURL(path).href);
process.stdout.write(`${JSON.stringify({ importMs: performance.now() - started })}\n`);
