/**
 * Provider limits in the pi runner, on real pi sessions over the faux provider: a limit comes back as a result's
 * `providerLimit` (after pi's own retries when they are on), other provider errors do not, and a limited model
 * gives way to the next fallback model only before the child did any tool work.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall } from "../helpers/faux.ts";
import { createRunnerFixture, type RunnerFixture } from "./runner-fixture.ts";

let fx: RunnerFixture;
beforeEach(async () => {
	fx = await createRunnerFixture();
});
afterEach(() => {
	fx.teardown();
});

const RATE_429 =
	'429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}';
const AUTH_401 = '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}';
const error = (errorMessage: string) => fauxAssistantMessage([], { stopReason: "error", errorMessage });
/** pi's retry with no real delay, so a test's retries take milliseconds. */
const FAST_RETRY = { maxRetries: 2, baseDelayMs: 1 };

describe("createPiAgentRunner: provider limits", () => {
	it("pi's retry off: a 429 comes back at once as the result's providerLimit", async () => {
		fx.faux.route("Say hello", [error(RATE_429)]);
		const result = await fx.runner({ piRetry: false })(fx.request(), fx.context());
		expect(result).toMatchObject({
			status: "failed",
			error: RATE_429,
			providerLimit: { kind: "rate_limit", message: RATE_429 },
			model: "faux/faux-1",
		});
		expect(fx.faux.requests).toHaveLength(1);
	});

	it("pi's retry on: a short 429 is retried inside the session and the child completes", async () => {
		fx.faux.route("Say hello", [error(RATE_429), fauxAssistantMessage("Hello.")]);
		const result = await fx.runner({ piRetry: FAST_RETRY })(fx.request(), fx.context());
		expect(result).toMatchObject({ status: "completed", result: "Hello." });
		expect(result.providerLimit).toBeUndefined();
		expect(fx.faux.requests).toHaveLength(2);
		// pi's wait is shown, and it is not silence to the stall watchdog.
		expect(fx.reports.some((report) => report.activity?.startsWith("provider error, pi retries in"))).toBe(true);
	});

	it("pi's retry on: when pi gives up on a limit, the result carries it for the run's queue", async () => {
		fx.faux.route("Say hello", [error(RATE_429), error(RATE_429), error(RATE_429)]);
		const result = await fx.runner({ piRetry: FAST_RETRY })(fx.request(), fx.context());
		expect(result).toMatchObject({ status: "failed", providerLimit: { kind: "rate_limit" } });
		expect(fx.faux.requests).toHaveLength(3);
	});

	it("a usage limit with a reset time: the limit carries the provider's time", async () => {
		const codex = "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.";
		fx.faux.route("Say hello", [error(codex)]);
		const result = await fx.runner()(fx.request(), fx.context());
		expect(result.providerLimit).toEqual({ kind: "usage_limit", retryAfterMs: 42 * 60_000, message: codex });
		// pi does not retry a usage limit: one request.
		expect(fx.faux.requests).toHaveLength(1);
	});

	it.each([
		["401", AUTH_401],
		[
			"400 invalid_request",
			'400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: field required"}}',
		],
		[
			"context overflow",
			'400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 214388 tokens > 200000 maximum"}}',
		],
		[
			"quota",
			'429: {"message":"You exceeded your current quota, please check your plan and billing details.","code":"insufficient_quota"}',
		],
	])("a non-transient error (%s) fails the child at once, without a limit", async (_name, text) => {
		fx.faux.route("Say hello", [error(text)]);
		const result = await fx.runner({ piRetry: FAST_RETRY })(fx.request(), fx.context());
		expect(result).toMatchObject({ status: "failed", error: text });
		expect(result.providerLimit).toBeUndefined();
		expect(fx.faux.requests).toHaveLength(1);
	});

	it("a limited model gives way to the next fallback model before any tool work; the result says which answered", async () => {
		fx.faux.route((r) => r.model === "faux/faux-1", [error(RATE_429)]);
		fx.faux.route((r) => r.model === "faux/faux-think", [fauxAssistantMessage("Hello from the fallback.")]);
		const result = await fx.runner({ piRetry: false })(
			fx.request({ fallbackModels: ["faux/faux-think"] }),
			fx.context(),
		);
		expect(result).toMatchObject({
			status: "completed",
			result: "Hello from the fallback.",
			model: "faux/faux-think",
			fallbackFrom: ["faux/faux-1"],
		});
		expect(result.providerLimit).toBeUndefined();
		expect(result.warnings).toContain(
			"`faux/faux-1` met a provider limit (rate_limit) before any tool work; `faux/faux-think` took over",
		);
		expect(fx.faux.requests.map((r) => r.model)).toEqual(["faux/faux-1", "faux/faux-think"]);
		// The widget hears it: the child's report names the model now running and the one it left.
		expect(fx.reports.at(-1)).toMatchObject({ model: "faux/faux-think", fallbackFrom: ["faux/faux-1"] });
		expect(fx.tracker.created).toHaveLength(2);
	});

	it("an agent file's `fallback_models` wins over the call's", async () => {
		fx.dirs.write(".pi/agents/scout.md", "---\nname: scout\nfallback_models: faux/faux-think\n---\nScout.\n");
		fx.faux.route((r) => r.model === "faux/faux-1", [error(RATE_429)]);
		fx.faux.route((r) => r.model === "faux/faux-think", [fauxAssistantMessage("scouted")]);
		const result = await fx.runner({ piRetry: false })(
			fx.request({ agentType: "scout", fallbackModels: ["faux/nope"] }),
			fx.context(),
		);
		expect(result).toMatchObject({ status: "completed", model: "faux/faux-think" });
	});

	it("after tool work a limit is not handed to a fallback model: it goes to the run's queue", async () => {
		fx.faux.route(
			(r) => r.model === "faux/faux-1",
			[fauxAssistantMessage([fauxToolCall("ls", { path: "." })], { stopReason: "toolUse" }), error(RATE_429)],
		);
		const result = await fx.runner({ piRetry: false })(
			fx.request({ fallbackModels: ["faux/faux-think"] }),
			fx.context(),
		);
		expect(result).toMatchObject({ status: "failed", providerLimit: { kind: "rate_limit" }, model: "faux/faux-1" });
		expect(result.fallbackFrom).toBeUndefined();
		expect(fx.faux.requests.map((r) => r.model)).toEqual(["faux/faux-1", "faux/faux-1"]);
	});

	it("every model limited: the result carries the first model's limit, since the next try starts there", async () => {
		const later = '429: {"message":"Rate limit reached. Please try again in 9s.","code":"rate_limit_exceeded"}';
		fx.faux.route((r) => r.model === "faux/faux-1", [error(RATE_429)]);
		fx.faux.route((r) => r.model === "faux/faux-think", [error(later)]);
		const result = await fx.runner({ piRetry: false })(
			fx.request({ fallbackModels: ["faux/faux-think"] }),
			fx.context(),
		);
		expect(result).toMatchObject({
			status: "failed",
			providerLimit: { message: RATE_429 },
			model: "faux/faux-think",
			fallbackFrom: ["faux/faux-1"],
		});
	});

	it("an unknown fallback model is an author error, before any session starts", async () => {
		await expect(
			fx.runner()(fx.request({ fallbackModels: ["nosuchprovider/model"] }), fx.context()),
		).rejects.toMatchObject({ code: "agent_options_invalid" });
		expect(fx.tracker.created).toEqual([]);
	});

	it("pi's wait before its own retry is not silence: a stall watchdog shorter than that wait does not fire", async () => {
		fx.faux.route("Say hello", [error(RATE_429), fauxAssistantMessage("Hello.")]);
		// pi waits 300 ms before retrying; the watchdog would stop a child silent for 100 ms.
		const result = await fx.runner({ piRetry: { maxRetries: 1, baseDelayMs: 300 } })(
			fx.request({ stallMs: 100 }),
			fx.context(),
		);
		expect(result).toMatchObject({ status: "completed", result: "Hello." });
		expect(result.warnings ?? []).toEqual([]);
		expect(fx.faux.requests).toHaveLength(2);
		expect(fx.reports.some((report) => report.status === "stalled")).toBe(false);
	});
});
