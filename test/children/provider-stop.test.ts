/**
 * The provider-stop classifier against error texts as pi-ai writes them for real providers: quota, credit and plan
 * exhaustion and refused keys stop the run; rate limits, also those worded as a quota or pointing at billing, are
 * waits (provider-limit.ts), and other errors are neither. Both sides in one table, each row checked both ways.
 */
import { describe, expect, it } from "vitest";
import { classifyProviderLimit } from "../../src/children/provider-limit.ts";
import { classifyProviderStop, providerStopOf } from "../../src/children/provider-stop.ts";
import { assistantEnding } from "./assistant-message.ts";
import { BAD_REQUESTS } from "./bad-requests.ts";

const GOOGLE_QUOTA_TEXT =
	"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.";
const googleQuota = (quotaId: string, retry: string) =>
	`{"error":{"code":429,"message":"${GOOGLE_QUOTA_TEXT}\\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50, model: gemini-2.5-pro\\nPlease retry in ${retry}.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"${quotaId}"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"${retry.replace(/\.\d+/, "")}"}]}}`;

/** Stops: [name, text, kind]. */
const STOPS: [string, string, "quota" | "auth"][] = [
	[
		"OpenAI insufficient_quota (a 429)",
		'429: {"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}',
		"quota",
	],
	[
		"OpenAI billing hard limit",
		'400: {"message":"Billing hard limit has been reached","type":"invalid_request_error","param":null,"code":"billing_hard_limit_reached"}',
		"quota",
	],
	[
		"Anthropic credit balance",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CV"}',
		"quota",
	],
	[
		"Anthropic workspace spend limit",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified workspace API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."}}',
		"quota",
	],
	[
		"Google daily free-tier quota (RESOURCE_EXHAUSTED, PerDay)",
		googleQuota("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "41.2s"),
		"quota",
	],
	[
		"OpenRouter 402",
		'402 {"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402}}',
		"quota",
	],
	["DeepSeek 402", '402 {"error":{"message":"Insufficient Balance","type":"unknown_error"}}', "quota"],
	["a gateway's bare error string", '403 {"error":"Insufficient credits for this request"}', "quota"],
	[
		"a monthly plan limit",
		'429 {"error":{"type":"GoUsageLimitError","message":"Monthly usage limit reached"}}',
		"quota",
	],
	[
		"Anthropic 401",
		'401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}',
		"auth",
	],
	[
		"OpenAI 401 incorrect key",
		'401: {"message":"Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}',
		"auth",
	],
	[
		"OpenAI deactivated account",
		'401: {"message":"This key is associated with a deactivated account. If you feel this is an error, contact us through our help center at help.openai.com.","type":"invalid_request_error","param":null,"code":"account_deactivated"}',
		"auth",
	],
	[
		"Google key not valid (a 400)",
		'{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}',
		"auth",
	],
	[
		"Google leaked key (a 403)",
		'{"error":{"code":403,"message":"Your API key was reported as leaked. Please use another API key.","status":"PERMISSION_DENIED"}}',
		"auth",
	],
	[
		"Groq invalid key",
		'401: {"error":{"message":"Invalid API Key","type":"invalid_request_error","code":"invalid_api_key"}}',
		"auth",
	],
];

/** Not stops: [name, text, what classifyProviderLimit makes of it]. */
const NOT_STOPS: [string, string, string | undefined][] = [
	[
		"Anthropic 429 rate_limit_error",
		'429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute. You may also contact sales to discuss your options for a rate limit increase."}}',
		"rate_limit",
	],
	[
		"OpenAI requests per day, pointing at billing",
		'429: {"message":"Rate limit reached for gpt-4o-mini in organization org-abc on requests per day (RPD): Limit 200, Used 200, Requested 1. Please try again in 7m12s. Visit https://platform.openai.com/account/rate-limits to learn more. You can increase your rate limit by adding a payment method to your account at https://platform.openai.com/account/billing.","type":"requests","param":null,"code":"rate_limit_exceeded"}',
		"rate_limit",
	],
	[
		"Google per-minute free-tier quota (RESOURCE_EXHAUSTED, PerMinute)",
		googleQuota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "12.3s"),
		"rate_limit",
	],
	[
		"Vertex resource exhausted",
		"429 Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.",
		"rate_limit",
	],
	["Anthropic 529", '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "overloaded"],
	["ChatGPT usage limit", "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.", "usage_limit"],
	["Claude subscription usage limit", "Claude AI usage limit reached|1772370000", "usage_limit"],
	[
		"a model the key may not use (403 permission_error)",
		'403 {"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}',
		undefined,
	],
	[
		"400 invalid_request",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: field required"}}',
		undefined,
	],
	["a request id with 401 and 402 in it", "500 internal: request req_4011_4021 failed", undefined],
	...BAD_REQUESTS.map(([name, text]): [string, string, undefined] => [name, text, undefined]),
];

describe("classifyProviderStop()", () => {
	it.each(STOPS)("%s: a stop, and no wait", (_name, text, kind) => {
		expect(classifyProviderStop(text)).toEqual({ kind, message: text });
		expect(classifyProviderLimit(text)).toBeUndefined();
	});

	it.each(NOT_STOPS)("%s: not a stop", (_name, text, wait) => {
		expect(classifyProviderStop(text)).toBeUndefined();
		expect(classifyProviderLimit(text)?.kind).toBe(wait);
	});

	it("a Google per-minute quota waits the delay it names", () => {
		const text = googleQuota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "12.3s");
		expect(classifyProviderLimit(text)).toMatchObject({ kind: "rate_limit", retryAfterMs: 12_300 });
	});

	it("the message's provider names the stop; only a message that ended on an error is read", () => {
		const text = STOPS[2]?.[1] ?? "";
		expect(providerStopOf(assistantEnding("error", text))).toEqual({
			kind: "quota",
			provider: "anthropic",
			message: text,
		});
		expect(providerStopOf(assistantEnding("stop", text))).toBeUndefined();
		expect(providerStopOf(undefined)).toBeUndefined();
	});
});
