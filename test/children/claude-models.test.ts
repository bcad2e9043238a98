/**
 * Claude Code's model names, `inherit`, and model tiers, resolved by `chooseChildModel` against a real pi
 * `ModelRuntime` holding faux models named like Anthropic's (two providers, several versions); and a pi child
 * running on the match, with the match in the run's census.
 */
import { fauxProvider } from "@earendil-works/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { createPiAgentRunner } from "../../src/children/agent-runner.ts";
import { claudeName, matchClaudeModel } from "../../src/children/claude-models.ts";
import { chooseChildModel, type ModelTiers } from "../../src/children/model.ts";
import { readModelTiers } from "../../src/pi/session-defaults.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { createFauxHarness, type FauxHarness, fauxAssistantMessage } from "../helpers/faux.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";

checkSandboxLeaks();

let faux: FauxHarness;
let anthropic: ReturnType<typeof fauxProvider>;
beforeEach(async () => {
	faux = await createFauxHarness();
	// Models named as Anthropic's, on a provider of their own and one that resells them (dots, a prefix).
	anthropic = fauxProvider({
		provider: "anthropic",
		models: [
			{ id: "claude-opus-4-5-20251101" },
			{ id: "claude-opus-4-6" },
			{ id: "claude-sonnet-4-5" },
			{ id: "claude-3-5-haiku-20241022" },
		],
	});
	const reseller = fauxProvider({
		provider: "reseller",
		models: [{ id: "anthropic/claude-opus-4.6" }, { id: "anthropic/claude-sonnet-4.6" }],
	});
	faux.modelRuntime.registerNativeProvider(anthropic.provider);
	faux.modelRuntime.registerNativeProvider(reseller.provider);
	// "The models the user has" are those of providers with credentials.
	for (const provider of ["faux", "anthropic", "reseller"]) await faux.modelRuntime.setRuntimeApiKey(provider, "test");
});
afterEach(() => {
	faux.modelRuntime.unregisterProvider("anthropic");
	faux.modelRuntime.unregisterProvider("reseller");
	faux.dispose();
});

const type = GENERAL_PURPOSE_AGENT;

function choose(model: string, extra: Partial<Parameters<typeof chooseChildModel>[0]> = {}) {
	const choice = chooseChildModel({ type, request: { model }, modelRuntime: faux.modelRuntime, ...extra });
	return {
		model: choice ? `${choice.model.provider}/${choice.model.id}` : undefined,
		matches: choice?.matches,
	};
}

describe("Claude Code model names", () => {
	it("reads the short names, [1m] and opusplan, and full ids with their version", () => {
		expect(claudeName("opus")).toEqual({ family: "opus", short: true });
		expect(claudeName("Sonnet[1m]")).toEqual({ family: "sonnet", short: true });
		expect(claudeName("opusplan")).toEqual({ family: "opus", short: true });
		expect(claudeName("claude-opus-4-5-20251101")).toMatchObject({ family: "opus", short: false, version: [4, 5] });
		expect(claudeName("claude-3-5-haiku-20241022")).toMatchObject({ family: "haiku", short: false, version: [3, 5] });
		expect(claudeName("faux/faux-1")).toBeUndefined();
		expect(claudeName("gpt-5")).toBeUndefined();
	});

	it("a short name is the newest model of its family, Anthropic's own provider first", () => {
		expect(choose("opus")).toEqual({
			model: "anthropic/claude-opus-4-6",
			matches: [
				{
					kind: "model",
					written: "opus",
					resolved: "anthropic/claude-opus-4-6",
					how: "the newest opus model pi has",
				},
			],
		});
		// The newest sonnet is the reseller's 4.6, newer than Anthropic's 4.5: the version comes first.
		expect(choose("sonnet").model).toBe("reseller/anthropic/claude-sonnet-4.6");
		expect(choose("haiku").model).toBe("anthropic/claude-3-5-haiku-20241022");
		expect(choose("opus[1m]").model).toBe("anthropic/claude-opus-4-6");
	});

	it("a full id the user has is that model, with no match to report", () => {
		for (const written of ["anthropic/claude-opus-4-5-20251101", "claude-opus-4-5-20251101"]) {
			expect(choose(written)).toEqual({ model: "anthropic/claude-opus-4-5-20251101", matches: undefined });
		}
	});

	it("a full id pi lacks is its version under another name, else the newest of its family", () => {
		expect(choose("claude-sonnet-4-6")).toMatchObject({
			model: "reseller/anthropic/claude-sonnet-4.6",
			matches: [{ how: "that version of sonnet as pi names it" }],
		});
		expect(choose("claude-opus-4-1-20250805")).toMatchObject({
			model: "anthropic/claude-opus-4-6",
			matches: [{ how: "no opus 4.1 here: the newest opus model pi has" }],
		});
	});

	it("no model of the family is a clear error listing what exists", async () => {
		// A runtime of its own: only the faux provider has credentials.
		const bare = await createFauxHarness();
		try {
			await bare.modelRuntime.setRuntimeApiKey("faux", "test");
			expect(() =>
				chooseChildModel({ type, request: { model: "haiku" }, modelRuntime: bare.modelRuntime }),
			).toThrowError(
				"`agent()` option `model` names model `haiku`, a Claude Code model name, and pi has no haiku model. Models you have: faux/faux-1, faux/faux-think, faux/faux-priced, faux/faux-billed. Write `provider/id` of one of them, or log in to a provider that has haiku (pi's /login)",
			);
		} finally {
			bare.dispose();
		}
	});

	it("an agent file's `model: sonnet` goes the same way; `inherit` is the session's model", () => {
		const file = { ...type, name: "reviewer", model: "sonnet", path: "/x/.claude/agents/reviewer.md" };
		const fromFile = chooseChildModel({ type: file, request: {}, modelRuntime: faux.modelRuntime });
		expect(fromFile?.model.id).toBe("anthropic/claude-sonnet-4.6");
		const inherit = chooseChildModel({
			type: { ...file, model: "inherit" },
			request: { model: "opus" },
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
		});
		// `inherit` in the file leaves the choice open, so the call's `opus` fills it.
		expect(inherit?.model.id).toBe("claude-opus-4-6");
		expect(inherit?.matches?.map((m) => [m.written, m.resolved, m.how])).toEqual([
			["inherit", "faux/faux-1", "the session's model"],
			["opus", "anthropic/claude-opus-4-6", "the newest opus model pi has"],
		]);
		const plain = chooseChildModel({
			type,
			request: { model: "inherit" },
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
		});
		expect(plain?.model).toBe(faux.model);
	});

	it("picks by version, not by the order pi lists them", () => {
		const models = faux.modelRuntime.getModels("anthropic");
		const reversed = [...models].reverse();
		const name = claudeName("opus");
		if (!name) throw new Error("opus is a Claude name");
		expect(matchClaudeModel(name, models)?.model.id).toBe("claude-opus-4-6");
		expect(matchClaudeModel(name, reversed)?.model.id).toBe("claude-opus-4-6");
	});
});

describe("model tiers", () => {
	const tiers: ModelTiers = {
		tiers: { small: "haiku", big: "faux/faux-think" },
		source: "the `workflows.modelTiers` setting",
	};

	it("a tier is its model, named in the matches; `model` wins over `tier`", () => {
		const big = chooseChildModel({
			type,
			request: { tier: "big" },
			modelRuntime: faux.modelRuntime,
			modelTiers: tiers,
		});
		expect(big?.model).toBe(faux.reasoningModel);
		expect(big?.matches).toEqual([
			{ kind: "tier", written: "big", resolved: "faux/faux-think", how: "the `workflows.modelTiers` setting" },
		]);
		const small = chooseChildModel({
			type,
			request: { tier: "small" },
			modelRuntime: faux.modelRuntime,
			modelTiers: tiers,
		});
		expect(small?.model.id).toBe("claude-3-5-haiku-20241022");
		const both = chooseChildModel({
			type,
			request: { tier: "big", model: "faux/faux-1" },
			modelRuntime: faux.modelRuntime,
			modelTiers: tiers,
		});
		expect(both?.model).toBe(faux.model);
	});

	it("an unset tier says where to set tiers", () => {
		expect(() =>
			chooseChildModel({ type, request: { tier: "small" }, modelRuntime: faux.modelRuntime }),
		).toThrowError(
			'`agent()` option `tier: "small"` names a model tier, and no model tiers are set. Set them once in pi\'s settings (~/.pi/agent/settings.json or .pi/settings.json): `"workflows": { "modelTiers": { "small": "provider/id", "medium": "provider/id", "big": "provider/id" } }`, or for one session with `--workflow-model-tiers small=provider/id,big=provider/id` (`--model-tiers` for pi-workflows run); or write `model: "provider/id"` instead',
		);
		expect(() =>
			chooseChildModel({ type, request: { tier: "medium" }, modelRuntime: faux.modelRuntime, modelTiers: tiers }),
		).toThrowError(
			'`agent()` option `tier: "medium"` names a model tier, and only `big`, `small` are set (the `workflows.modelTiers` setting).',
		);
	});

	it("reads the flag (which replaces the setting) and the setting, and names what it cannot use", () => {
		const problems: string[] = [];
		expect(readModelTiers("small=a/b, big = c/d", { small: "x/y" }, problems)).toEqual({
			tiers: { small: "a/b", big: "c/d" },
			source: "the --workflow-model-tiers flag",
		});
		expect(readModelTiers(undefined, { medium: "x/y" }, problems)).toEqual({
			tiers: { medium: "x/y" },
			source: "the `workflows.modelTiers` setting",
		});
		expect(problems).toEqual([]);
		expect(readModelTiers(undefined, ["x"], problems)).toBeUndefined();
		expect(readModelTiers("small", undefined, problems)).toBeUndefined();
		expect(problems).toEqual([
			'`workflows.modelTiers` must be an object of tier names to models, like { "small": "provider/id", "big": "provider/id" }',
			'--workflow-model-tiers takes tier=provider/id pairs separated by commas, got "small"',
		]);
	});
});

describe("a pi child on a Claude Code model name", () => {
	it("runs on the match, and the run's census names it once per pair with the calls counted", async () => {
		anthropic.setResponses([fauxAssistantMessage("looks fine")]);
		faux.route("review", [fauxAssistantMessage("still fine")]);
		const runner = createPiAgentRunner({
			cwd: faux.agentDir,
			agentDir: faux.agentDir,
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
			agentTypes: new Map([[type.name, type]]),
		});
		const result = await runWorkflowScript(
			`export const meta = { name: "t", description: "d" };\nconst a = await agent("review a", { model: "opus" });\nconst b = await agent("review b", { model: "inherit" });\nreturn [a, b];`,
			{ agentRunner: runner, agentTypes: [type.name] },
		);
		expect(result.status).toBe("completed");
		expect(result.value).toEqual(["looks fine", "still fine"]);
		expect(faux.requests.map((r) => r.model)).toEqual(["faux/faux-1"]);
		expect(result.matches).toEqual([
			{
				kind: "model",
				written: "opus",
				resolved: "anthropic/claude-opus-4-6",
				how: "the newest opus model pi has",
				calls: 1,
			},
			{ kind: "model", written: "inherit", resolved: "faux/faux-1", how: "the session's model", calls: 1 },
		]);
	});
});
