/**
 * Whether a child's provider error is one no wait lifts: the account's quota, credit or plan is spent (`quota`), or
 * its key is refused (`auth`). Every other child on that provider would meet it too, so the run stops rather than
 * fail them one by one. Read from the parts of pi-ai's error text (`providerErrorParts`, below, which
 * provider-limit.ts reads the waits from too); a rate limit worded as a quota (Google's per-minute
 * `RESOURCE_EXHAUSTED`, which names a retry delay) is a wait, not a stop.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { WorkflowProviderStop } from "../runtime/core/types.ts";

/** Body codes said only of a spent balance or plan. */
const SPENT_CODES = [
	"insufficient_quota",
	"billing_hard_limit_reached",
	"billing_not_active",
	"gousagelimiterror",
	"freeusagelimiterror",
	"subscription_sharing_workplace_individual_usage_limit_exceeded",
	"1308",
];
/** The provider's words for a spent balance or plan: true whatever else it says. */
const SPENT = new RegExp(
	[
		"credit balance",
		"available balance",
		"insufficient (?:credits?|balance|funds)",
		"out of (?:credits?|budget)",
		"payment required",
		"monthly usage limit",
		"specified (?:workspace )?API usage limits",
		"regain access on",
	].join("|"),
	"i",
);
/** Quota wording that a rate limit shares (Google's free tier says "exceeded your current quota" per minute). */
const QUOTA = /exceeded your current quota|quota exceeded/i;
/** A window or a retry time: the quota refills soon, so it is a wait. */
const REFILLS = /per ?minute|per-minute|perminute|"retryDelay"|retry in \d|try again in \d|rate.?limit/i;
/** A daily quota refills only tomorrow, whatever retry time comes with it (Google's `…PerDay…` quota ids)... */
const DAILY = /per ?day|perday/i;
/** ...unless the provider calls it a rate limit, with a time of its own (OpenAI's requests per day). */
const RATE_LIMIT = /rate_limit_exceeded|rate limit (?:reached|exceeded)/i;
/** Body codes of a key that is wrong, revoked or not allowed. */
const AUTH_CODES = ["authentication_error", "invalid_api_key", "api_key_invalid", "account_deactivated"];
/** The providers' words for it. */
const AUTH = new RegExp(
	[
		"invalid[ _-]?x-api-key",
		"invalid[ _-]api[ _-]key",
		"incorrect api key",
		"api key not valid",
		"api key (?:was|has been) (?:revoked|reported as leaked|disabled)",
		"deactivated account",
		"organization has been disabled",
	].join("|"),
	"i",
);

/** The stop a child's last assistant message reports, or undefined when it did not end on such an error. */
export function providerStopOf(message: AssistantMessage | undefined): WorkflowProviderStop | undefined {
	if (message?.stopReason !== "error" || !message.errorMessage) return undefined;
	const stop = classifyProviderStop(message.errorMessage);
	return stop && message.provider ? { ...stop, provider: message.provider } : stop;
}

/**
 * The stop an error text describes, or undefined for an error that is not one (a wait, a bad request, an outage).
 * Read from its status, its body's codes and the provider's own words (`providerErrorParts`): a bad request that quotes
 * a tool named `get_billing_info` or a path `messages.401` is neither.
 */
export function classifyProviderStop(text: string): WorkflowProviderStop | undefined {
	const parts = providerErrorParts(text);
	if (parts.status === 402 || hasCode(parts, SPENT_CODES) || SPENT.test(parts.words)) {
		return { kind: "quota", message: text };
	}
	if (QUOTA.test(parts.words) && ((DAILY.test(text) && !RATE_LIMIT.test(text)) || !REFILLS.test(text))) {
		return { kind: "quota", message: text };
	}
	if (parts.status === 401 || hasCode(parts, AUTH_CODES) || AUTH.test(parts.words)) {
		return { kind: "auth", message: text };
	}
	return undefined;
}

// The parts of an error text. pi-ai keeps only `errorMessage` on a message, where the status leads (`429 {…}`, `429:
// {…}`, `OpenAI API error (429): {…}`) or sits in a JSON body (`{"error":{"code":429,…}}`), the type and code are JSON
// fields and the provider's words are its `message`. A bad request echoes the request back (a tool named
// `get_billing_info`, a path `messages.401.content`), so the classifiers here and in provider-limit.ts read these
// parts, never a word or a number anywhere in the text.

export interface ProviderErrorParts {
	/** The HTTP status, where the text gives one: leading, in `(…)`, or as the body's numeric `code`. */
	status?: number;
	/** The body's `type`, `code`, `status` and `reason` values, lower case (`insufficient_quota`, `1308`). */
	codes: ReadonlySet<string>;
	/** The provider's sentences, without the request's names and paths it quotes (quoted spans, dotted paths). */
	words: string;
	/** The provider says the request itself is wrong: waiting or stopping the run does not mend it. */
	badRequest: boolean;
}

const LEADING_STATUS = /^\s*(?:(\d{3})(?![\w.])|[^{\n]{0,80}?\((\d{3})\)\s*:|[^{\n]{0,80}?got status:?\s*(\d{3}))/i;
/** A status the text names as one, outside its quoted parts: `status code 503`, `HTTP 429`, `status: 401`. */
const NAMED_STATUS = /\b(?:status(?: code)?|HTTP(?:\/[\d.]+)?)\s*:?\s*(\d{3})(?![\w.])/i;
const CODE_KEYS = new Set(["type", "code", "status", "reason"]);
/** Where bodies put the provider's sentence: `message` mostly, a bare `error` or `detail` in some gateways. */
const SENTENCE_KEYS = new Set(["message", "error", "detail", "error_description", "msg"]);
const FIELD = /"(?:type|code|status|reason)"\s*:\s*(?:"([^"\\]*)"|(\d+))/g;
/** Statuses and types a provider gives a request it will not take as written. */
const BAD_STATUS = new Set([400, 404, 405, 413, 415, 422]);
const BAD_CODES = ["invalid_request_error", "invalid_argument", "invalid_request", "not_found_error", "bad_request"];
/** The request's own words as a provider quotes them back: 'name', `name`, and paths such as a.401.b, x[3].y. */
const ECHOES = [/(?<![\w])'[^'\n]*'(?![\w])/g, /`[^`\n]*`/g, /[\w-]+(?:\.[\w-]+|\[\w*\])+/g];

/** The parts of one error text. */
export function providerErrorParts(text: string): ProviderErrorParts {
	const codes = new Set<string>();
	const sentences: string[] = [];
	const body = jsonBody(text);
	let status: number | undefined;
	const leading = LEADING_STATUS.exec(text);
	const leadingStatus = leading?.[1] ?? leading?.[2] ?? leading?.[3];
	if (leadingStatus) status = Number(leadingStatus);
	if (body) {
		const found = collect(body.value, codes, sentences);
		status ??= found;
		sentences.push(text.slice(0, body.start), text.slice(body.end));
	} else {
		// A body cut short (pi-ai keeps 4,000 characters) does not parse: its fields are read one by one.
		for (const field of text.matchAll(FIELD)) {
			const value = field[1] ?? field[2] ?? "";
			codes.add(value.toLowerCase());
			if (field[2] && Number(field[2]) >= 100 && Number(field[2]) < 600) status ??= Number(field[2]);
		}
		sentences.push(text.replace(FIELD, " "));
	}
	let words = sentences.join("\n");
	if (leading) words = words.replace(leading[0], " ");
	for (const echo of ECHOES) words = words.replace(echo, " ");
	const named = status === undefined ? NAMED_STATUS.exec(words) : null;
	if (named?.[1]) status = Number(named[1]);
	const badRequest = (status !== undefined && BAD_STATUS.has(status)) || BAD_CODES.some((code) => codes.has(code));
	return { ...(status !== undefined ? { status } : {}), codes, words, badRequest };
}

/** The JSON object in the text (from its first `{` to its last `}`), when it parses. */
function jsonBody(text: string): { value: unknown; start: number; end: number } | undefined {
	const start = text.indexOf("{");
	const end = text.lastIndexOf("}") + 1;
	if (start < 0 || end <= start) return undefined;
	try {
		return { value: JSON.parse(text.slice(start, end)), start, end };
	} catch {
		return undefined;
	}
}

/** Walks a parsed body: codes and sentences into the sets given; returns the first numeric HTTP-like `code`. */
function collect(value: unknown, codes: Set<string>, sentences: string[], depth = 0): number | undefined {
	if (depth > 8 || value === null || typeof value !== "object") return undefined;
	let status: number | undefined;
	for (const [key, field] of Object.entries(value)) {
		if (SENTENCE_KEYS.has(key) && typeof field === "string") sentences.push(field);
		else if (CODE_KEYS.has(key) && (typeof field === "string" || typeof field === "number")) {
			codes.add(String(field).toLowerCase());
			if (typeof field === "number" && field >= 100 && field < 600) status ??= field;
		} else if (typeof field === "object") status ??= collect(field, codes, sentences, depth + 1);
	}
	return status;
}

/** Whether any of `names` is among the body's codes. */
export function hasCode(parts: ProviderErrorParts, names: readonly string[]): boolean {
	return names.some((name) => parts.codes.has(name));
}
