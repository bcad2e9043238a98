/**
 * Reading `journal.jsonl` (pure): one entry per line, the last entry of a key wins, a torn last line (no newline:
 * the writer died mid-line) is dropped silently, and any other bad line becomes a problem with its line number.
 */
import { errorMessage } from "../errors.ts";
import type { WorkflowJournalEntry } from "../runtime/types.ts";
import type { JournalProblem } from "./types.ts";

const NEWLINE = 0x0a;

/** What a journal file holds. */
export interface JournalContents {
	entries: Map<string, WorkflowJournalEntry>;
	problems: JournalProblem[];
	/** Bytes up to and including the last newline: where the next line goes once a torn tail is cut. */
	completeBytes: number;
}

/** Parses the bytes of a journal file. Never throws. */
export function parseJournal(bytes: Buffer): JournalContents {
	const completeBytes = bytes.lastIndexOf(NEWLINE) + 1;
	const lines = bytes.subarray(0, completeBytes).toString("utf8").split("\n");
	lines.pop(); // the empty string after the last newline
	const entries = new Map<string, WorkflowJournalEntry>();
	const problems: JournalProblem[] = [];
	lines.forEach((text, index) => {
		if (text.trim() === "") return;
		const entry = parseLine(text);
		if (typeof entry === "string") problems.push({ line: index + 1, reason: entry });
		else {
			entries.delete(entry.key); // re-recorded: the entry moves to where it was last written
			entries.set(entry.key, entry);
		}
	});
	return { entries, problems, completeBytes };
}

/** The entry on one line, or why it is not one. */
function parseLine(text: string): WorkflowJournalEntry | string {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		return `not JSON (${errorMessage(error)})`;
	}
	return entryShapeProblem(value) ?? (value as WorkflowJournalEntry);
}

/** Why `value` is not a journal entry, or undefined when it is one. */
export function entryShapeProblem(value: unknown): string | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return "not an object";
	const entry = value as Record<string, unknown>;
	if (typeof entry.key !== "string" || entry.key === "") return "`key` is not a non-empty string";
	if (!("value" in entry) || entry.value === undefined) return "`value` is missing";
	if (entry.kind !== undefined && entry.kind !== "answer" && entry.kind !== "tool") {
		return '`kind` is not "answer" or "tool"';
	}
	for (const field of ["agentId", "label", "agentType", "model"]) {
		if (entry[field] !== undefined && typeof entry[field] !== "string") return `\`${field}\` is not a string`;
	}
	if (entry.usage !== undefined) {
		const usage = entry.usage as Record<string, unknown> | null;
		const numbers = typeof usage === "object" && usage !== null && !Array.isArray(usage);
		if (!numbers || !["input", "output", "total"].every((k) => typeof usage[k] === "number")) {
			return "`usage` is not `{ input, output, total }` numbers";
		}
	}
	if (entry.cost !== undefined) {
		const cost = entry.cost as Record<string, unknown> | null;
		if (typeof cost !== "object" || cost === null || Array.isArray(cost) || typeof cost.usd !== "number") {
			return "`cost` is not `{ usd, billedUsd?, unpriced? }` numbers";
		}
	}
	return undefined;
}
