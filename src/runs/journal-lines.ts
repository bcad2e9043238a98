/**
 * Reading `journal.jsonl` (pure): one entry per line, the last entry of a key wins. A last line with no newline is
 * kept when it parses (a hand edit that lost its newline); one that does not is a torn write (the writer died
 * mid-line), dropped. Every line skipped, torn or bad, becomes a problem with its line number and why.
 */
import { errorMessage } from "../errors.ts";
import type { WorkflowJournalEntry } from "../runtime/core/types.ts";
import type { JournalProblem } from "./types.ts";

const NEWLINE = 0x0a;

/** What a journal file holds. */
export interface JournalContents {
	entries: Map<string, WorkflowJournalEntry>;
	problems: JournalProblem[];
	/** Bytes worth keeping: where the next line goes once a torn tail is cut. */
	completeBytes: number;
	/** True when the kept bytes end in a line with no newline: one goes before the next line. */
	needsNewline: boolean;
}

/** Parses the bytes of a journal file. Never throws. */
export function parseJournal(bytes: Buffer): JournalContents {
	const lastNewline = bytes.lastIndexOf(NEWLINE) + 1;
	const lines = bytes.toString("utf8").split("\n");
	const tail = lines.pop() ?? ""; // what follows the last newline ("" when the file ends in one)
	const entries = new Map<string, WorkflowJournalEntry>();
	const problems: JournalProblem[] = [];
	const take = (line: number, parsed: ParsedLine, reason = "reason" in parsed ? parsed.reason : "") => {
		if ("entry" in parsed) {
			entries.delete(parsed.entry.key); // re-recorded: the entry moves to where it was last written
			entries.set(parsed.entry.key, parsed.entry);
		} else problems.push({ line, reason, ...(parsed.key !== undefined ? { key: parsed.key } : {}) });
	};
	lines.forEach((text, index) => {
		if (text.trim() !== "") take(index + 1, parseLine(text));
	});
	if (tail.trim() === "") return { entries, problems, completeBytes: lastNewline, needsNewline: false };
	const last = parseLine(tail);
	// Only a line that is not JSON can be a torn write: every line the writer makes is one whole JSON object.
	if ("notJson" in last) {
		take(lines.length + 1, last, "a torn last line: the run stopped while writing it; cut from the file");
		return { entries, problems, completeBytes: lastNewline, needsNewline: false };
	}
	take(lines.length + 1, last);
	return { entries, problems, completeBytes: bytes.length, needsNewline: true };
}

type ParsedLine = { entry: WorkflowJournalEntry } | { reason: string; key?: string; notJson?: true };

/** The entry on one line, or why it is not one (with its key when that can still be read). */
function parseLine(text: string): ParsedLine {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		const key = keyIn(text);
		return { reason: `not JSON (${errorMessage(error)})`, notJson: true, ...(key !== undefined ? { key } : {}) };
	}
	const problem = entryShapeProblem(value);
	if (problem === undefined) return { entry: value as WorkflowJournalEntry };
	const key = (value as { key?: unknown } | null)?.key;
	return { reason: problem, ...(typeof key === "string" && key !== "" ? { key } : {}) };
}

/** The `"key":"…"` of a line that is not JSON (torn or mangled), when it is still there whole. */
function keyIn(text: string): string | undefined {
	const match = /"key"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
	if (!match?.[1]) return undefined;
	try {
		const key: unknown = JSON.parse(match[1]);
		return typeof key === "string" && key !== "" ? key : undefined;
	} catch {
		return undefined;
	}
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
	if (entry.replay !== undefined && entry.replay !== false) return "`replay` is not false";
	for (const field of ["agentId", "label", "agentType", "model", "phase"]) {
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
