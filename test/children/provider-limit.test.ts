/**
 * The provider-limit classifier against error texts as pi-ai writes them for real providers (the SDKs' error
 * classes formatted by pi-ai: `<status> <body>`, `<status>: <body>`, `OpenAI API error (<status>): <body>`), and the
 * errors that must not be waited out.
 */
import { describe, expect, it } from "vitest";
import { classifyProviderLimit, providerLimitOf, retryAfterOf } from "../../src/children/provider-limit.ts";
import { assistantEnding } from "./assistant-message.ts";
import { BAD_REQUESTS } from "./bad-requests.ts";

const ANTHROPIC_429 =
	'429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (3a7c…) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."},"request_id":"req_011CV429xyz"}';
const ANTHROPIC_529 = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const ANTHROPIC_STREAM_OVERLOADED = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const OPENAI_429 =
	'429: {"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29871, Requested 1024. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}';
const OPENAI_RESPONSES_429 =
	'OpenAI API error (429): {"message":"Rate limit reached for gpt-5 in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.","type":"requests","param":null,"code":"rate_limit_exceeded"}';
const CODEX_USAGE = "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.";
const NO_BODY_503 = "503 status code (no body)";

const NOT_LIMITS: [string, string][] = [
	[
		"401",
		'401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}',
	],
	[
		"400 invalid_request",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: text content blocks must be non-empty"}}',
	],
	[
		"Anthropic context length",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 214388 tokens > 200000 maximum"}}',
	],
	[
		"OpenAI context length",
		`400: {"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}`,
	],
	[
		"OpenAI quota",
		'429: {"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}',
	],
	[
		"Anthropic billing",
		'400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}',
	],
	["a monthly plan limit", '429 {"error":{"type":"GoUsageLimitError","message":"Monthly usage limit reached"}}'],
	["a plain failure", "provider down"],
	["a request id with 429 in it", "500 internal: request req_4291 failed"],
	...BAD_REQUESTS,
];

const errorMessage = (text: string) => assistantEnding("error", text);

describe("classifyProviderLimit()", () => {
	it.each([
		["Anthropic 429 rate_limit_error", ANTHROPIC_429, { kind: "rate_limit" }],
		["Anthropic 529 overloaded_error", ANTHROPIC_529, { kind: "overloaded" }],
		["Anthropic mid-stream overloaded", ANTHROPIC_STREAM_OVERLOADED, { kind: "overloaded" }],
		["OpenAI 429, try again in 2s", OPENAI_429, { kind: "rate_limit", retryAfterMs: 2000 }],
		["OpenAI responses 429, try again in 120ms", OPENAI_RESPONSES_429, { kind: "rate_limit", retryAfterMs: 120 }],
		["Codex usage limit, try again in ~42 min", CODEX_USAGE, { kind: "usage_limit", retryAfterMs: 42 * 60_000 }],
		["503 without a body", NO_BODY_503, { kind: "overloaded" }],
		["a status named in a sentence", "Request failed with status code 503", { kind: "overloaded" }],
		["an HTTP status after a prefix", "fetch error: HTTP 429 from upstream", { kind: "rate_limit" }],
	])("%s: a limit", (_name, text, expected) => {
		const limit = classifyProviderLimit(text);
		expect(limit).toEqual({ ...expected, message: text });
	});

	it.each(NOT_LIMITS)("%s: not a limit (waiting would not help)", (_name, text) => {
		expect(classifyProviderLimit(text)).toBeUndefined();
		expect(providerLimitOf(errorMessage(text))).toBeUndefined();
	});

	it("only a message that ended on an error is read", () => {
		expect(providerLimitOf({ ...errorMessage(ANTHROPIC_529), stopReason: "stop" })).toBeUndefined();
		expect(providerLimitOf(errorMessage(ANTHROPIC_529))).toMatchObject({ kind: "overloaded" });
		expect(providerLimitOf(undefined)).toBeUndefined();
	});
});

describe("retryAfterOf()", () => {
	const now = Date.parse("2026-03-01T12:00:00Z");
	it.each([
		["retry after 40s", 40_000],
		["Retry after 40 seconds", 40_000],
		["Please try again in 1m30s.", 90_000],
		["Please try again in 6m0s.", 360_000],
		["try again in 1.5s", 1500],
		["Try again in ~3 hours.", 3 * 3_600_000],
		['{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"retryDelay":"12s"}]}}', 12_000],
		["Retry-After: 30", 30_000],
		["retry-after-ms: 250", 250],
		["Server requested 120s retry delay (max: 60000ms). 429 too many requests", 120_000],
		["Usage limit reached, resets at 2026-03-01T12:30:00Z", 30 * 60_000],
		['{"error":{"type":"usage_limit_reached","resets_at":1772370000}}', 1772370000 * 1000 - now],
		["Claude AI usage limit reached|1772370000", 1772370000 * 1000 - now],
		["Your limit resets at 1pm (UTC)", 60 * 60_000],
		["Your limit resets at 11:00 UTC", 23 * 60 * 60_000],
	])("%s → %d ms", (text, ms) => {
		expect(retryAfterOf(text, now)).toBe(ms);
	});

	it("says nothing when the text names no time", () => {
		expect(retryAfterOf(ANTHROPIC_429, now)).toBeUndefined();
		expect(retryAfterOf("please wait for 3 tool calls", now)).toBeUndefined();
		expect(retryAfterOf(NO_BODY_503, now)).toBeUndefined();
	});
});
