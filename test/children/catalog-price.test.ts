/** A model's catalog price for estimates, read from pi's own model registry (the faux provider's models). */
import { ModelRegistry } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { catalogPrice } from "../../src/children/model.ts";
import { createFauxHarness, type FauxHarness } from "../helpers/faux.ts";

let faux: FauxHarness;
beforeEach(async () => {
	faux = await createFauxHarness();
});
afterEach(() => {
	faux.dispose();
});

describe("catalogPrice", () => {
	it("pi's price per million tokens; a thinking suffix ignored; none for an unpriced or unknown model", () => {
		const registry = new ModelRegistry(faux.modelRuntime);
		expect(catalogPrice(registry, "faux/faux-priced")).toEqual({ input: 3, output: 15 });
		expect(catalogPrice(registry, "faux/faux-priced:high")).toEqual({ input: 3, output: 15 });
		expect(catalogPrice(registry, "faux/faux-1")).toBeUndefined();
		expect(catalogPrice(registry, "faux/nope")).toBeUndefined();
		expect(catalogPrice(registry, "no-slash")).toBeUndefined();
		expect(catalogPrice(undefined, "faux/faux-priced")).toBeUndefined();
	});

	it("prices the names scripts write (sonnet, opus, haiku, a Claude id without provider) as the models they stand for", () => {
		const registry = new ModelRegistry(faux.modelRuntime);
		expect(catalogPrice(registry, "claude-sonnet-4-5")).toEqual(
			catalogPrice(registry, "anthropic/claude-sonnet-4-5"),
		);
		expect(catalogPrice(registry, "claude-sonnet-4-5")).toBeDefined();
		for (const family of ["sonnet", "opus", "haiku"]) {
			const prices = registry
				.getAll()
				.filter((model) => model.provider === "anthropic" && model.id.split("-").includes(family))
				.map((model) => catalogPrice(registry, `anthropic/${model.id}`));
			expect(prices.length, family).toBeGreaterThan(0);
			expect(prices, family).toContainEqual(catalogPrice(registry, family));
			expect(catalogPrice(registry, family), family).toBeDefined();
		}
		expect(catalogPrice(registry, "tuesday")).toBeUndefined();
	});
});
