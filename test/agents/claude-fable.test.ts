/**
 * `model: "fable"`, which public Claude Code scripts write (test/corpus: elyxlz/vesta's bug-hunt, zhaow-de/healthchecks'
 * review), is a Claude Code family name: the newest claude-fable model the user has, as `opus` is for opus, rather
 * than pi's fuzzy lookup over a catalog of models nobody has credentials for.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { claudeName, matchClaudeModel } from "../../src/children/claude-models.ts";

/** Only what the match reads: provider and id. */
function models(...ids: string[]): Model<Api>[] {
	return ids.map((id) => {
		const [provider, name] = id.split("/") as [string, string];
		return { provider, id: name } as Model<Api>;
	});
}

describe("Claude Code's fable", () => {
	it("reads `fable` and full claude-fable ids as the fable family", () => {
		expect(claudeName("fable")).toEqual({ family: "fable", short: true });
		expect(claudeName("claude-fable-5-1")).toEqual({
			family: "fable",
			short: false,
			id: "claude-fable-5-1",
			version: [5, 1],
		});
	});

	it("is the newest fable model there is, Anthropic's own provider first", () => {
		const have = models(
			"anthropic/claude-fable-5",
			"anthropic/claude-fable-5-1",
			"reseller/claude-fable-5-1",
			"anthropic/claude-opus-5",
		);
		const match = matchClaudeModel({ family: "fable", short: true }, have);
		expect(match && `${match.model.provider}/${match.model.id}`).toBe("anthropic/claude-fable-5-1");
		expect(match?.how).toBe("the newest fable model pi has");
	});

	it("no fable model among them is no match (the caller lists what there is)", () => {
		expect(matchClaudeModel({ family: "fable", short: true }, models("anthropic/claude-opus-5"))).toBeUndefined();
	});
});
