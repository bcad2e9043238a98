/**
 * Whether a child's provider error is one no wait lifts: the account's quota, credit or plan is spent (`quota`), or
 * its key is refused (`auth`). Every other child on that provider would meet it too, so the run stops rather than
 * fail them one by one. Read from the parts of pi-ai's error text (provider-error.ts), as provider-limit.ts reads
 * the waits; a rate limit worded as a quota (Google's per-minute `RESOURCE_EXHAUSTED`, which names a retry delay) is a wait, not a stop.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import type { WorkflowProviderStop } from "../runtime/core/types.ts";
import { hasCode, providerErrorParts } from "./provider-error.ts";

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
 * Read from its status, its body's codes and the provider's own words (provider-error.ts): a bad request that quotes
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
