/** Prints what every corpus script does today (check and run), for notes: `node test/corpus/report.ts`. */
import { shutdownSchemaWorker } from "../../src/runtime/index.ts";
import { corpusEntries, outcomeLine, runCorpusEntry } from "./harness.ts";

let checked = 0;
let completed = 0;
const entries = corpusEntries();
for (const entry of entries) {
	const outcome = await runCorpusEntry(entry);
	if (outcome.checkErrors.length === 0) checked++;
	if (outcome.run.status === "completed") completed++;
	process.stdout.write(`${outcomeLine(entry, outcome)}\n    expected ${JSON.stringify(entry.expected)}\n`);
}
process.stdout.write(`\n${checked} of ${entries.length} pass the check; ${completed} complete\n`);
await shutdownSchemaWorker();
