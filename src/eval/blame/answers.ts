/**
 * A recorded run's answers as blame reads them: its `agent()` answers by key and by label, and its `tool()` results
 * and `ask()` answers by key. Read from a replay cassette: the run's files are not touched.
 */
import type { ReplayCassette } from "../../host/cassette.ts";
import type { JsonValue, WorkflowJournalEntry } from "../../runtime/core/types.ts";

/** One recorded `agent()` answer. */
export interface RecordedAnswer {
	key: string;
	label: string;
	/** Its 0-based order in the run that recorded it; -1 when the journal line does not say. */
	index: number;
	entry: WorkflowJournalEntry;
}

export class RunAnswers {
	readonly runId: string;
	readonly #agents = new Map<string, RecordedAnswer>();
	readonly #steps = new Map<string, WorkflowJournalEntry>();

	constructor(cassette: ReplayCassette) {
		this.runId = cassette.runId;
		// The last line of a key wins, as when a resume loads the journal.
		for (const entry of cassette.journal) {
			if (entry.kind !== undefined) {
				this.#steps.set(entry.key, entry);
				continue;
			}
			const index = (entry.identity as { index?: unknown } | undefined)?.index;
			this.#agents.set(entry.key, {
				key: entry.key,
				label: typeof entry.label === "string" ? entry.label : entry.key,
				index: typeof index === "number" ? index : -1,
				entry,
			});
		}
	}

	agent(key: string): RecordedAnswer | undefined {
		return this.#agents.get(key);
	}

	/** A `tool()` result or `ask()` answer. */
	step(key: string): WorkflowJournalEntry | undefined {
		return this.#steps.get(key);
	}

	/**
	 * The recorded call with `label` at `index` (the same place in the run), else the `position`-th call of that
	 * label (0-based, in the order the run made them).
	 */
	byLabel(label: string, index: number, position: number): RecordedAnswer | undefined {
		const same = [...this.#agents.values()].filter((answer) => answer.label === label);
		same.sort((a, b) => a.index - b.index);
		return same.find((answer) => answer.index === index) ?? same[position];
	}

	/** The 0-based position of `answer` among the recorded calls of its label. */
	positionOf(answer: Pick<RecordedAnswer, "label" | "index">): number {
		return [...this.#agents.values()].filter((a) => a.label === answer.label && a.index < answer.index).length;
	}
}

/** How far apart two answers are, 0 (the same) to 1 (nothing in common): what the pair search ranks calls by. */
export function answerDistance(
	a: JsonValue | undefined,
	b: JsonValue | undefined,
	similarity: (x: string, y: string) => number,
): number {
	if (a === undefined || b === undefined) return 1;
	return 1 - similarity(JSON.stringify(a), JSON.stringify(b));
}
