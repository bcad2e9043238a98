/**
 * Whether a child's provider error is one no wait lifts: the account's quota, credit or plan is spent (`quota`), or
 * its key is refused (`auth`). Every other child on that provider would meet it too, so the run stops rather than
 * fail them one by one. Read from pi-ai's error text, as provider-limit.ts reads the waits; a rate limit worded as a
 * quota (Google's per-minute `RESOURCE_EXHAUSTED`, which names a retry delay) is a wait, not a stop.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { WorkflowProviderStop } from "../runtime/core/types.ts";

/** A status code as a word of its own, not part of a request id or a byte count. */
const status = (code: string) => `(?<![a-z0-9_])${code}(?![a-z0-9_])`;

/** Said only of a spent balance or plan: true whatever else the text says. */
const SPENT = new RegExp(
	[
		"insufficient_quota",
		"billing_hard_limit_reached",
		"billing_not_active",
		"credit balance",
		"available balance",
		"insufficient (?:credits?|balance|funds)",
		"out of (?:credits?|budget)",
		"payment required",
		status("402"),
		"GoUsageLimitError",
		"FreeUsageLimitError",
		"monthly usage limit",
		"subscription_sharing_workplace_individual_usage_limit_exceeded",
		"specified (?:workspace )?API usage limits",
		"regain access on",
		'"code"\\s*:\\s*"?1308(?![0-9])',
	].join("|"),
	"i",
);
/** Quota wording that a rate limit shares (Google's free tier says "check your plan and billing details" per minute). */
const QUOTA = /exceeded your current quota|quota exceeded|billing/i;
/** A window or a retry time: the quota refills soon, so it is a wait. */
const REFILLS = /per ?minute|per-minute|perminute|"retryDelay"|retry in \d|try again in \d|rate.?limit/i;
/** A daily quota refills only tomorrow, whatever retry time comes with it (Google's `…PerDay…` quota ids)... */
const DAILY = /per ?day|perday/i;
/** ...unless the provider calls it a rate limit, with a time of its own (OpenAI's requests per day). */
const RATE_LIMIT = /rate_limit_exceeded|rate limit (?:reached|exceeded)/i;
/** The key is wrong, revoked or not allowed: a 401, or the providers' own words for it. */
const AUTH = new RegExp(
	[
		status("401"),
		"authentication_error",
		"invalid[ _-]?x-api-key",
		"invalid[ _-]api[ _-]key",
		"incorrect api key",
		"api key not valid",
		"API_KEY_INVALID",
		"api key (?:was|has been) (?:revoked|reported as leaked|disabled)",
		"account_deactivated",
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

/** The stop an error text describes, or undefined for an error that is not one (a wait, a bad request, an outage). */
export function classifyProviderStop(text: string): WorkflowProviderStop | undefined {
	if (SPENT.test(text)) return { kind: "quota", message: text };
	if (QUOTA.test(text) && ((DAILY.test(text) && !RATE_LIMIT.test(text)) || !REFILLS.test(text))) {
		return { kind: "quota", message: text };
	}
	if (AUTH.test(text)) return { kind: "auth", message: text };
	return undefined;
}
