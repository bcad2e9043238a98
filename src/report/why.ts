/**
 * "Why it ran again": for each call that ran live in a resume, the nearest recorded call it did not match and what
 * part of its identity differs, or "new call". The runtime's own rules decide (nearest by label, then agent type
 * and prompt; the differences in words: src/runtime/agent/replay-miss.ts); the report adds the prompts' heads
 * around their first difference. A call with no journal line (it failed) falls back to the warning its resume
 * logged about it.
 */

import { callNumber } from "../errors.ts";
import { differences, nearestEntry, readIdentity } from "../runtime/agent/replay-miss.ts";
import type { WorkflowJournalEntry } from "../runtime/core/types.ts";
import type { ReportCall, ReportLog, ReportSession, ReportWhy } from "./types.ts";

/** Characters of context the diff keeps on each side of a change. */
const DIFF_CONTEXT = 40;

/** Fills `why` on every live call of every resumed session. */
export function explainReruns(
	sessions: readonly ReportSession[],
	calls: readonly ReportCall[],
	journal: readonly WorkflowJournalEntry[],
	logs: readonly ReportLog[],
): void {
	const byKey = new Map(journal.map((entry) => [entry.key, entry]));
	// The session in which each key first ran live: a later session's entries were not there to match.
	const firstLive = new Map<string, number>();
	for (const call of calls) {
		if (call.outcome !== "completed") continue;
		const seen = firstLive.get(call.key);
		if (seen === undefined || call.session < seen) firstLive.set(call.key, call.session);
	}
	for (const session of sessions) {
		if (!session.resumed) continue;
		const asked = new Set(session.calls.map((id) => calls[id]?.key));
		const named = new Set<string>();
		const unmatched = journal.filter(
			(entry) =>
				entry.kind === undefined && !asked.has(entry.key) && (firstLive.get(entry.key) ?? 0) < session.session,
		);
		const live = session.calls
			.map((id) => calls[id])
			.filter((call): call is ReportCall => call !== undefined && isLive(call))
			.sort((a, b) => a.index - b.index);
		for (const call of live) {
			const before = unfinishedBefore(calls, call);
			const why = before
				? {
						kind: "unfinished" as const,
						differences: [
							call.interrupted
								? `it did not finish in ${sessionName(before)} (${endText(before)}): it went on from its ${call.interrupted.turns} finished ${call.interrupted.turns === 1 ? "turn" : "turns"}`
								: `it did not finish in ${sessionName(before)} (${endText(before)}), so there was no answer to replay: only finished calls replay`,
						],
					}
				: explainOne(call, byKey.get(call.key), unmatched, named, logs, session.session);
			call.why = why.kind === "new" ? (sameLabelUnfinished(calls, call) ?? why) : why;
		}
	}
}

/** The same call (same key) in the latest earlier session, when it ended there without an answer. */
function unfinishedBefore(calls: readonly ReportCall[], call: ReportCall): ReportCall | undefined {
	let found: ReportCall | undefined;
	for (const other of calls) {
		if (other.key === call.key && other.session < call.session && (!found || other.session > found.session))
			found = other;
	}
	return found && found.outcome !== "completed" && found.outcome !== "replayed" ? found : undefined;
}

/**
 * A "new" call whose label an earlier session's call had, which ended without an answer: that is the call the person
 * means, and the journal never held it; its prompt preview (from the event log) says what differs.
 */
function sameLabelUnfinished(calls: readonly ReportCall[], call: ReportCall): ReportWhy | undefined {
	let found: ReportCall | undefined;
	for (const other of calls) {
		if (other.label !== call.label || other.session >= call.session) continue;
		if (!found || other.session > found.session) found = other;
	}
	if (!found || found.outcome === "completed" || found.outcome === "replayed") return undefined;
	const why: ReportWhy = {
		kind: "unfinished",
		nearest: { label: found.label, index: found.index },
		differences: [
			`the call of that label in ${sessionName(found)} did not finish (${endText(found)}), so nothing was recorded to replay; it is another call now${found.agentType !== call.agentType ? ` (its agent type was \`${found.agentType}\`, now \`${call.agentType}\`)` : ""}`,
		],
	};
	if (found.prompt !== undefined && call.prompt !== undefined && found.prompt !== call.prompt) {
		why.differences.push("its prompt differs (see the diff of their first characters)");
		why.diff = promptDiff(found.prompt, call.prompt);
	}
	return why;
}

function sessionName(call: ReportCall): string {
	return call.session === 1 ? "the first run" : `resume ${call.session - 1}`;
}

function endText(call: ReportCall): string {
	return `${call.outcome}${call.error ? `: ${call.error}` : ""}`;
}

/** A call that reached a child in this session (not replayed, not skipped before it started). */
function isLive(call: ReportCall): boolean {
	return call.outcome !== "replayed" && call.outcome !== "skipped" && call.startedAt !== undefined;
}

function explainOne(
	call: ReportCall,
	own: WorkflowJournalEntry | undefined,
	unmatched: readonly WorkflowJournalEntry[],
	named: Set<string>,
	logs: readonly ReportLog[],
	session: number,
): ReportWhy {
	const scope = scopeOf(call.key);
	const candidates = unmatched.filter((entry) => !named.has(entry.key) && scopeOf(entry.key) === scope);
	const identity = readIdentity(own?.identity);
	if (!identity) {
		const warning = logs.find(
			(log) =>
				log.session === session &&
				log.level === "warn" &&
				log.message.startsWith(`Resume: \`${call.label}\` (${callNumber(call.index)})`),
		);
		if (warning) return { kind: "edited", differences: [warning.message] };
		if (candidates.length === 0) return { kind: "new", differences: [] };
		return {
			kind: "unknown",
			differences: [
				"the journal has no line for this call (it did not finish), so what it was made of is not recorded",
			],
		};
	}
	const ref = { key: call.key, index: call.index, label: call.label, agentType: call.agentType };
	const nearest = nearestEntry([...candidates], ref, identity);
	if (!nearest) return { kind: "new", differences: [] };
	named.add(nearest.key);
	const recorded = readIdentity(nearest.identity);
	const why: ReportWhy = {
		kind: "edited",
		nearest: { label: nearest.label ?? "?", ...(recorded ? { index: recorded.index } : {}) },
		differences: recorded
			? differences(recorded, identity)
			: ["the recorded call is from an older version that did not record what it was made of"],
	};
	if (recorded && recorded.prompt !== identity.prompt) {
		why.diff = promptDiff(recorded.promptHead, identity.promptHead);
	}
	return why;
}

/** The text both prompts share just before their first difference, and each one's differing middle. */
export function promptDiff(recorded: string, now: string): { same: string; recorded: string; now: string } {
	let start = 0;
	while (start < recorded.length && start < now.length && recorded[start] === now[start]) start++;
	let end = 0;
	while (
		end < recorded.length - start &&
		end < now.length - start &&
		recorded[recorded.length - 1 - end] === now[now.length - 1 - end]
	) {
		end++;
	}
	const cut = (text: string) => (text.length > DIFF_CONTEXT * 2 ? `${text.slice(0, DIFF_CONTEXT * 2)}…` : text);
	return {
		same: `${start > DIFF_CONTEXT ? "…" : ""}${recorded.slice(Math.max(0, start - DIFF_CONTEXT), start)}`,
		recorded: cut(recorded.slice(start, recorded.length - end)),
		now: cut(now.slice(start, now.length - end)),
	};
}

/** The nested-workflow scope of a key: everything before its last "/" ("" at the top level). */
function scopeOf(key: string): string {
	const slash = key.lastIndexOf("/");
	return slash < 0 ? "" : key.slice(0, slash);
}
