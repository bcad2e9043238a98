import { existsSync } from "node:fs";
import { join } from "node:path";
import { type ModelRegistry, ModelRegistry as Registry } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { chooseChildModel, parentModelRuntime } from "../../src/children/model.ts";
import { createFauxHarness, type FauxHarness } from "../helpers/faux.ts";
import { until } from "../helpers/until.ts";

let faux: FauxHarness;
beforeEach(async () => {
	faux = await createFauxHarness();
});
afterEach(() => {
	faux.dispose();
});

describe("parentModelRuntime", () => {
	it("returns the runtime behind pi's ModelRegistry, so children share the parent's providers and credentials", async () => {
		const registry = new Registry(faux.modelRuntime);
		expect(await parentModelRuntime(registry, { agentDir: faux.agentDir })).toBe(faux.modelRuntime);
	});

	it("without that field: builds a runtime from the agent dir and copies the providers extensions registered", async () => {
		const provider = faux.modelRuntime.getProvider("faux");
		// A registry shaped like pi's public API only, as a later pi might hand out.
		const registry = {
			getRegisteredProviderIds: () => ["faux"],
			getRegisteredNativeProvider: (id: string) => (id === "faux" ? provider : undefined),
			getRegisteredProviderConfig: () => undefined,
		} as unknown as ModelRegistry;
		const runtime = await parentModelRuntime(registry, { agentDir: faux.agentDir });
		expect(runtime).not.toBe(faux.modelRuntime);
		expect(runtime.getModel("faux", "faux-1")?.id).toBe("faux-1");
		// That runtime is pi's file-backed one: its background refresh makes auth.json and models-store.json in the
		// agent dir. Wait for both, so the harness's dispose removes the folder after them, not before.
		await runtime.getAvailable();
		await until(
			() => ["auth.json", "models-store.json"].every((name) => existsSync(join(faux.agentDir, name))),
			"the runtime's files in the agent dir",
		);
	});
});

describe("chooseChildModel", () => {
	const type = GENERAL_PURPOSE_AGENT;

	it("returns undefined when nothing names a model and there is no parent model", () => {
		expect(chooseChildModel({ type, request: {}, modelRuntime: faux.modelRuntime })).toBeUndefined();
	});

	it("falls back to the parent's model and thinking level", () => {
		const choice = chooseChildModel({
			type,
			request: {},
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.reasoningModel,
			defaultThinking: "minimal",
		});
		expect(choice).toEqual({ model: faux.reasoningModel, thinking: "minimal", warnings: [] });
	});

	it("the call's thinking wins over a `:thinking` suffix on the call's model", () => {
		const choice = chooseChildModel({
			type,
			request: { model: "faux/faux-think:low", thinking: "high" },
			modelRuntime: faux.modelRuntime,
		});
		expect(choice?.thinking).toBe("high");
	});

	it("the script's meta.model comes after the agent file's and the call's, before the session's default", () => {
		const fromScript = chooseChildModel({
			type,
			request: { defaultModel: "faux/faux-priced" },
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
		});
		expect(fromScript?.model.id).toBe("faux-priced");
		const callWins = chooseChildModel({
			type,
			request: { model: "faux/faux-think", defaultModel: "faux/faux-priced" },
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
		});
		expect(callWins?.model.id).toBe("faux-think");
		const fileWins = chooseChildModel({
			type: { ...type, name: "pinned", model: "faux/faux-billed" },
			request: { model: "faux/faux-think", defaultModel: "faux/faux-priced" },
			modelRuntime: faux.modelRuntime,
			defaultModel: faux.model,
		});
		expect(fileWins?.model.id).toBe("faux-billed");
	});

	it("a meta.model pi cannot resolve: agent_options_invalid naming meta.model", () => {
		expect(() =>
			chooseChildModel({ type, request: { defaultModel: "nowhere/none" }, modelRuntime: faux.modelRuntime }),
		).toThrow("The script's `meta.model` names model `nowhere/none`, which pi cannot resolve");
	});

	it("passes on pi's warning when it uses a model id its provider does not list", () => {
		const choice = chooseChildModel({ type, request: { model: "faux/faux-9" }, modelRuntime: faux.modelRuntime });
		expect(choice?.model.id).toBe("faux-9");
		expect(choice?.warnings).toEqual([
			'`agent()` option `model`: Model "faux-9" not found for provider "faux". Using custom model id.',
		]);
	});
});
