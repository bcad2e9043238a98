/**
 * Whether a child's provider error is a limit to wait out (a rate limit, an overload, a usage limit) and for how
 * long, read from pi-ai's error text: pi-ai keeps no HTTP status or headers on a message, only `errorMessage`
 * (`429 {"type":"error",…}`, `OpenAI API error (429): …`, `You have hit your ChatGPT usage limit… Try again in ~42
 * min.`), taken apart by provider-stop.ts's `providerErrorParts` so that a number or a word the request echoes back
 * is not read as one. Quota, billing and auth are stops (provider-stop.ts), and bad requests and context overflow
 * fail the child: waiting would not help.
 */
import { type AssistantMessage, isContextOverflow } from "@earendil-works/pi-ai";
import type { WorkflowProviderLimit } from "../runtime/core/types.ts";
import { classifyProviderStop, hasCode, type ProviderErrorParts, providerErrorParts } from "./provider-stop.ts";

const USAGE_LIMIT = /usage[ _]limit|usage_limit_reached|subscription_sharing_usage_limit_exceeded/i;
const OVERLOADED_STATUS = [503, 529];
const OVERLOADED_CODES = ["overloaded_error", "server_busy", "unavailable"];
const OVERLOADED = new RegExp(
	[
		"overloaded",
		"server_busy",
		"servers? (?:is|are) (?:currently )?busy",
		"currently experiencing high demand",
		"at capacity",
		"service.?(?:is.?)?(?:temporarily.?)?unavailable",
	].join("|"),
	"i",
);
const RATE_LIMIT_CODES = ["rate_limit_error", "rate_limit_exceeded", "resource_exhausted", "too_many_requests"];
const RATE_LIMIT = /rate.?limit|too many requests|resource.?exhausted|throttl/i;

/**
 * The limit a child's last assistant message reports, or undefined when it did not end on a provider error or the
 * error is not one to wait out. `now` is the clock for reset times given as a time of day or a date.
 */
export function providerLimitOf(
	message: AssistantMessage | undefined,
	now = Date.now(),
): WorkflowProviderLimit | undefined {
	if (message?.stopReason !== "error" || !message.errorMessage) return undefined;
	if (isContextOverflow(message)) return undefined;
	return classifyProviderLimit(message.errorMessage, now);
}

/** The limit an error text describes, or undefined for errors that waiting does not fix. */
export function classifyProviderLimit(text: string, now = Date.now()): WorkflowProviderLimit | undefined {
	// Checked first: quota wording often comes with a 429 or `RESOURCE_EXHAUSTED` too.
	if (classifyProviderStop(text)) return undefined;
	const kind = limitKind(providerErrorParts(text));
	if (!kind) return undefined;
	const retryAfterMs = retryAfterOf(text, now);
	return { kind, message: text, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** Which wait the parts describe: by status, the body's codes, the provider's words; a bad request is none. */
function limitKind(parts: ProviderErrorParts): WorkflowProviderLimit["kind"] | undefined {
	const rateLimited = parts.status === 429 || hasCode(parts, RATE_LIMIT_CODES);
	if (parts.badRequest && !rateLimited) return undefined;
	if (USAGE_LIMIT.test(parts.words) || parts.codes.has("usage_limit_reached")) return "usage_limit";
	const overloaded = OVERLOADED_STATUS.includes(parts.status ?? 0) || hasCode(parts, OVERLOADED_CODES);
	if (overloaded || OVERLOADED.test(parts.words)) return "overloaded";
	if (rateLimited || RATE_LIMIT.test(parts.words)) return "rate_limit";
	return undefined;
}

/** One duration word: `2s`, `20ms`, `1.5 min`, `~42 min`, `3 hours`; the unit names longest first. */
const UNIT = "milliseconds?|msecs?|ms|minutes?|mins?|m|hours?|hrs?|h|seconds?|secs?|s";
const DURATION = new RegExp(`~?\\s*(\\d+(?:\\.\\d+)?)\\s*(${UNIT})(?![a-z])`, "gi");
/** Where a provider says how long to wait: the duration (possibly several words, `1m30s`) follows the phrase. */
const WAIT_PHRASE =
	/(?:try again|retry|retrying|please wait|wait|resets?|available again)\s*(?:in|after|for)\s*(?:about|approximately|roughly)?\s*((?:~?\s*\d+(?:\.\d+)?\s*[a-z]+\s*,?\s*(?:and\s*)?)+)/i;
/** pi-ai's own provider retry, when a server asks for longer than it waits: `Server requested 120s retry delay`. */
const SERVER_REQUESTED = /requested\s+(\d+(?:\.\d+)?)\s*(ms|s)\s+retry delay/i;
/** A `Retry-After:`-like header quoted in the text, in seconds. */
const RETRY_AFTER_HEADER = /retry[-_ ]after(?:[-_ ]ms)?["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)/i;
/** Google's RetryInfo in a JSON body: `"retryDelay": "12s"`. */
const RETRY_DELAY = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/i;
/** A reset time: an ISO date, an epoch in seconds (`"resets_at": 1746230400`, `…reached|1746230400`), or a time of day. */
const RESET_EPOCH = /(?:resets?_?at["']?\s*[:=]\s*|limit reached\|)(\d{10})(?!\d)/i;
const RESET_DATE =
	/resets?(?: at| on)?\s*:?\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)/i;
const RESET_CLOCK = /resets?(?: at)?\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(?(UTC|GMT)\)?)?/i;

/** How long the text asks to wait, in ms, when it says; a time already past gives 0. */
export function retryAfterOf(text: string, now = Date.now()): number | undefined {
	const phrase = WAIT_PHRASE.exec(text);
	if (phrase?.[1]) {
		const ms = durationMs(phrase[1]);
		if (ms !== undefined) return ms;
	}
	const server = SERVER_REQUESTED.exec(text);
	if (server?.[1]) return Number(server[1]) * (server[2]?.toLowerCase() === "ms" ? 1 : 1000);
	const delay = RETRY_DELAY.exec(text);
	if (delay?.[1]) return Math.round(Number(delay[1]) * 1000);
	const header = RETRY_AFTER_HEADER.exec(text);
	if (header?.[1]) {
		const value = Number(header[1]);
		return /retry[-_ ]after[-_ ]ms/i.test(header[0]) ? value : Math.round(value * 1000);
	}
	const epoch = RESET_EPOCH.exec(text);
	if (epoch?.[1]) return Math.max(0, Number(epoch[1]) * 1000 - now);
	const date = RESET_DATE.exec(text);
	if (date?.[1]) {
		const at = Date.parse(date[1].replace(" ", "T"));
		if (Number.isFinite(at)) return Math.max(0, at - now);
	}
	const clock = RESET_CLOCK.exec(text);
	if (clock?.[1] && (clock[2] !== undefined || clock[3] !== undefined)) return untilClock(clock, now);
	return undefined;
}

/** The sum of the duration words in `text` (`1m30s`, `6m0s`, `~42 min`), or undefined when it has none. */
function durationMs(text: string): number | undefined {
	let total = 0;
	let found = false;
	for (const match of text.matchAll(DURATION)) {
		const value = Number(match[1]);
		const unit = (match[2] ?? "").toLowerCase();
		const scale =
			unit.startsWith("ms") || unit.startsWith("msec") || unit.startsWith("milli")
				? 1
				: unit.startsWith("h")
					? 3_600_000
					: unit === "m" || unit.startsWith("min")
						? 60_000
						: 1000;
		total += value * scale;
		found = true;
	}
	return found ? Math.round(total) : undefined;
}

/** The next time the clock shows `h[:mm] [am|pm]` (UTC when the text says so, else local time), from `now`. */
function untilClock(match: RegExpExecArray, now: number): number | undefined {
	let hours = Number(match[1]);
	const minutes = match[2] !== undefined ? Number(match[2]) : 0;
	const meridiem = match[3]?.toLowerCase();
	if (meridiem === "pm" && hours < 12) hours += 12;
	if (meridiem === "am" && hours === 12) hours = 0;
	if (hours > 23 || minutes > 59) return undefined;
	const at = new Date(now);
	if (match[4]) at.setUTCHours(hours, minutes, 0, 0);
	else at.setHours(hours, minutes, 0, 0);
	let ms = at.getTime() - now;
	if (ms < 0) ms += 24 * 3_600_000;
	return ms;
}
