/**
 * How a CLI run shows its progress on stderr. On a terminal: the envelope as the progress text (phases, agents,
 * failures, recent log), redrawn in place every spinner tick with a star spinner and live clocks, each line cut to
 * the terminal's width so the redraw stays in place. Elsewhere (a pipe, a CI log): one plain line per thing that
 * happened, never redrawn.
 */
import {
	formatDuration,
	limitKindText,
	oneLine,
	STAR_FRAMES,
	summarizeWorkflowProgress,
	TICK_MS,
} from "../progress/format.ts";
import {
	forecastSummary,
	formatCost,
	formatWorkflowProgress,
	hasCost,
	hasSaving,
	slowText,
	type WorkflowProgressEnvelope,
} from "../progress/index.ts";
import { visibleText } from "../progress/visible-text.ts";
import type { WorkflowProgressEvent } from "../runtime/core/events.ts";
import type { CliContext } from "./context.ts";

/** The view of one run. */
export interface ProgressView {
	/** After each runtime event, with the envelope the tracker made of it. */
	update(event: WorkflowProgressEvent, envelope: WorkflowProgressEnvelope): void;
	/** A line for the person that is not progress (a warning, "stopping…"). */
	message(text: string): void;
	/** The final envelope; ends the redraw timer. */
	finish(envelope: WorkflowProgressEnvelope): void;
	/** Holds the view still (a question is being typed on the terminal) until the returned function is called. */
	hold(): () => void;
}

type Stream = CliContext["stderr"];

/** The live view on a terminal, plain lines elsewhere. */
export function createProgressView(stream: Stream, now: () => number = Date.now): ProgressView {
	return stream.isTTY ? liveView(stream, now) : plainView(stream);
}

function liveView(stream: Stream, now: () => number): ProgressView {
	let envelope: WorkflowProgressEnvelope | undefined;
	let shown = 0;
	let held = 0;
	const clear = () => {
		if (shown > 0) stream.write(`\x1b[${shown}A\r\x1b[J`);
		shown = 0;
	};
	const draw = (spin: boolean) => {
		if (!envelope || held > 0) return;
		const at = now();
		const width = Math.max(20, (stream.columns ?? 80) - 1);
		const height = Math.max(3, (stream.rows ?? 24) - 2);
		const lines = formatWorkflowProgress(envelope, { now: at }).split("\n").slice(0, height);
		if (spin) lines[0] = `${STAR_FRAMES[Math.floor(at / TICK_MS) % STAR_FRAMES.length]} ${lines[0]}`;
		clear();
		stream.write(`${lines.map((line) => cut(line, width)).join("\n")}\n`);
		shown = lines.length;
	};
	// Only moves the spinner and clocks: it must not keep the process alive.
	const timer = setInterval(() => draw(true), TICK_MS);
	timer.unref();
	return {
		update(_event, next) {
			envelope = next;
		},
		message(text) {
			clear();
			stream.write(`${visibleText(text)}\n`);
			draw(true);
		},
		finish(final) {
			clearInterval(timer);
			envelope = final;
			held = 0;
			draw(false);
		},
		hold() {
			// The drawn lines stay above the prompt; the next draw starts below what the person typed.
			if (held++ === 0) shown = 0;
			let released = false;
			return () => {
				if (released) return;
				released = true;
				held--;
			};
		},
	};
}

/** At most `width` characters (code points: the marks the text uses are one cell wide). */
function cut(line: string, width: number): string {
	const chars = [...line];
	return chars.length <= width ? line : `${chars.slice(0, width - 1).join("")}…`;
}

function plainView(stream: Stream): ProgressView {
	// Labels, logs and answers come from the script and its children: shown, never acted on by the terminal.
	const say = (text: string) => stream.write(`${visibleText(text)}\n`);
	return {
		update(event, envelope) {
			const line = eventLine(event);
			// Each call that ends says where the run stands against its plan, and time left when it is known.
			const ended = event.type === "agent_finished" || event.type === "agent_failed";
			const standing = ended && envelope.forecast ? ` · ${forecastSummary(envelope)}` : "";
			const slow = ended ? slowOfCall(envelope, event.key) : "";
			if (line !== undefined) say(`${line}${slow}${standing}`);
		},
		message: say,
		finish(final) {
			say(summarizeWorkflowProgress(final));
		},
		hold: () => () => {},
	};
}

/** " · slower than usual: 6 min, usually ~1 min" when the call took over the slow multiple of its usual time. */
function slowOfCall(envelope: WorkflowProgressEnvelope, key: string): string {
	const slow = envelope.agentCalls.find((call) => call.key === key)?.slow;
	return slow ? ` · ${slowText(slow)}` : "";
}

/** " · faux/priced · $0.0015": the model a child ran on and what it cost, when known. */
function spentText(event: { model?: string; cost?: Parameters<typeof formatCost>[0] }): string {
	const model = event.model ? ` · ${event.model}` : "";
	return hasCost(event.cost) ? `${model} · ${formatCost(event.cost)}` : model;
}

/** The plain line of one event; undefined for events that change nothing a person follows (queued, child state). */
function eventLine(event: WorkflowProgressEvent): string | undefined {
	switch (event.type) {
		case "run_start":
			return `Workflow ${event.meta.name}: started`;
		case "phase_start":
			return `Phase ${oneLine(event.phase)}`;
		case "agent_started":
			return `  ▸ ${oneLine(event.label)} (${event.agentType})${event.attempt > 1 ? `, attempt ${event.attempt}` : ""}`;
		case "agent_retry":
			return `  ↻ ${oneLine(event.label)}: ${oneLine(event.reason)}`;
		case "agent_finished": {
			if (event.cached) {
				const saved = hasSaving(event.cost) ? `, saved ${formatCost(event.cost)}` : "";
				return `  ✓ ${oneLine(event.label)} · replayed from the run record${saved}`;
			}
			return `  ✓ ${oneLine(event.label)} · ${formatDuration(event.durationMs)}${spentText(event)}`;
		}
		case "agent_failed":
			return `  ✗ ${oneLine(event.label)}: ${oneLine(event.error)}${spentText(event)}`;
		case "slot_failed":
			return `  ✗ ${event.kind}[${event.index}]: ${oneLine(event.error)}`;
		case "ask_started":
			return `  ? waiting for you: ${oneLine(event.question)}`;
		case "ask_answered":
			return `  ✓ answered${event.source === "person" ? "" : ` (${event.source})`}: ${oneLine(event.answer)}`;
		case "tool_failed":
			return `  ✗ ${oneLine(event.label)}: ${event.code}: ${oneLine(event.error)}`;
		case "log":
			return `  › ${event.level === "info" ? "" : `${event.level}: `}${oneLine(event.message)}`;
		case "provider_wait_started": {
			const who = event.call ? ` (${oneLine(event.call.label)})` : "";
			const what = event.lengthened ? "the provider wait is longer" : "waiting for the provider";
			return `  ⏸ ${what}: ${limitKindText(event.kind)}${who}, next try in ${formatDuration(event.waitMs)} · ${oneLine(event.message)}`;
		}
		case "provider_wait_ended":
			return event.outcome === "over"
				? `  ▸ the provider wait is over (${formatDuration(event.waitedMs)}); children start again`
				: undefined;
		default:
			return undefined;
	}
}
