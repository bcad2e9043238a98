/**
 * A worker's labels: those it was started with (`--labels`, the `workflows.worker.labels` setting) and those in
 * its labels file (`--labels-file`), which it reads again at every heartbeat: a person or a script changes what the
 * worker has (a repository cloned, a model loaded) by writing the file, and hosts see it within a second or two.
 */
import { readFile } from "node:fs/promises";
import { canonicalLabels, labelProblem } from "../runtime/core/placement.ts";

/** The labels in a text: separated by commas, spaces or lines; `#` starts a comment. */
export function labelsIn(text: string): { labels: string[]; problems: string[] } {
	const words = text
		.split("\n")
		.map((line) => line.replace(/#.*/, ""))
		.join(" ")
		.split(/[\s,]+/)
		.filter(Boolean);
	const problems = words.map(labelProblem).filter((problem): problem is string => problem !== undefined);
	return { labels: canonicalLabels(words.filter((word) => labelProblem(word) === undefined)), problems };
}

/** What a worker has now. */
export class WorkerLabels {
	readonly #fixed: string[];
	readonly #file: string | undefined;
	readonly #log: (line: string) => void;
	#fromFile: string[] = [];
	#said = "";

	constructor(fixed: readonly string[], file: string | undefined, log: (line: string) => void) {
		this.#fixed = canonicalLabels(fixed);
		this.#file = file;
		this.#log = log;
	}

	/** The labels now. */
	get current(): string[] {
		return canonicalLabels([...this.#fixed, ...this.#fromFile]);
	}

	/** Reads the labels file again (a missing file has no labels); says in the log what changed or is wrong. */
	async refresh(): Promise<string[]> {
		if (this.#file === undefined) return this.current;
		let text = "";
		let problem = "";
		try {
			text = await readFile(this.#file, "utf8");
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENOENT") problem = `cannot read ${this.#file}: ${error}`;
		}
		const read = labelsIn(text);
		const said = [problem, ...read.problems.map((p) => `${this.#file}: ${p}; ignoring it`)].filter(Boolean);
		const before = this.current.join(", ");
		this.#fromFile = read.labels;
		const now = this.current.join(", ");
		const words = [...said, ...(now !== before ? [`labels now: ${now || "none"}`] : [])].join("\n");
		// Each change once, not at every heartbeat.
		if (words && words !== this.#said) for (const line of words.split("\n")) this.#log(line);
		this.#said = words;
		return this.current;
	}
}
