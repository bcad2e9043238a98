/**
 * The session's defaults for workflow runs, from pi flags and the `workflows` settings key: a flag wins, a value
 * that cannot be used is named in `problems` (the extension tells the person once) instead of being used wrongly.
 */
import { describe, expect, it } from "vitest";
import { readSessionDefaults } from "../../src/pi/session-defaults.ts";

function read(flags: Record<string, string>, workflows?: unknown) {
	return readSessionDefaults({
		getFlag: (name: string) => flags[name],
		getSettings: () => (workflows === undefined ? {} : { workflows }) as never,
	});
}

describe("readSessionDefaults", () => {
	it("nothing set: no defaults, no problems", () => {
		expect(read({})).toEqual({ defaults: {}, problems: [] });
	});

	it("from settings: childModel, maxCostUsd and confirmAgents", () => {
		expect(read({}, { childModel: "openai/gpt-5-mini", maxCostUsd: 2.5, confirmAgents: 10 })).toEqual({
			defaults: {
				childModel: { reference: "openai/gpt-5-mini", source: "The `workflows.childModel` setting" },
				maxCostUsd: 2.5,
				confirmAgents: 10,
			},
			problems: [],
		});
	});

	it("workflows.slowMultiple: the multiple of the usual duration past which a call or run is marked slow", () => {
		expect(read({}, { slowMultiple: 3 })).toEqual({ defaults: { slowMultiple: 3 }, problems: [] });
		expect(read({}, { slowMultiple: 1 })).toEqual({
			defaults: {},
			problems: ["`workflows.slowMultiple` must be a number above 1 (default: 5), got 1"],
		});
		expect(read({}, { slowMultiple: "five" }).problems).toEqual([
			'`workflows.slowMultiple` must be a number above 1 (default: 5), got "five"',
		]);
	});

	it("a flag wins over its setting", () => {
		const { defaults } = read(
			{
				"workflow-child-model": "faux/faux-priced:low",
				"workflow-max-cost": "0.75",
				"workflow-confirm-agents": "0",
			},
			{ childModel: "openai/gpt-5", maxCostUsd: 9, confirmAgents: 50 },
		);
		expect(defaults).toEqual({
			childModel: { reference: "faux/faux-priced:low", source: "The --workflow-child-model flag" },
			maxCostUsd: 0.75,
			confirmAgents: 0,
		});
	});

	it.each([
		[
			{ "workflow-max-cost": "ten" },
			undefined,
			'--workflow-max-cost must be a positive number of US dollars, got "ten"',
		],
		[{ "workflow-max-cost": "0" }, undefined, '--workflow-max-cost must be a positive number of US dollars, got "0"'],
		[{}, { maxCostUsd: "5" }, '`workflows.maxCostUsd` must be a positive number of US dollars, got "5"'],
		[
			{ "workflow-confirm-agents": "2.5" },
			undefined,
			'--workflow-confirm-agents must be a whole number (0: never ask), got "2.5"',
		],
		[{}, { confirmAgents: true }, "`workflows.confirmAgents` must be a whole number (0: never ask), got true"],
		[{}, { childModel: 42 }, "`workflows.childModel` must be a `provider/id` string"],
		[{}, "fast", "the `workflows` setting must be an object (`childModel`, `maxCostUsd`, `confirmAgents`)"],
	])("%j with settings %j: left out, and named: %s", (flags, workflows, problem) => {
		const { defaults, problems } = read(flags as Record<string, string>, workflows);
		expect(problems).toEqual([problem]);
		expect(defaults).toEqual({});
	});
});
