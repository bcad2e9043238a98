import { describe, expect, it } from "vitest";
import { createTurnLimit } from "../../src/children/turn-limit.ts";

/** Feeds turn endings (true = the turn ended in tool calls) and records what the limit did after each. */
function run(maxTurns: number, graceTurns: number, turns: boolean[]) {
	const actions: string[] = [];
	const limit = createTurnLimit({
		maxTurns,
		graceTurns,
		steer: () => actions.push("steer"),
		abort: () => actions.push("abort"),
	});
	for (const continues of turns) limit.onTurnEnd(continues);
	return { actions, state: limit.state, turns: limit.turns };
}

describe("createTurnLimit", () => {
	it("does nothing while the child stays within its turns", () => {
		expect(run(3, 5, [true, true, false])).toEqual({ actions: [], state: "within", turns: 3 });
	});

	it("steers once when the limit is reached and the child goes on", () => {
		expect(run(2, 5, [true, true, true, false])).toEqual({ actions: ["steer"], state: "steered", turns: 4 });
	});

	it("does not steer a turn that ends with an answer, even at the limit", () => {
		expect(run(2, 5, [true, false])).toEqual({ actions: [], state: "within", turns: 2 });
	});

	it("aborts once the grace turns are used up", () => {
		expect(run(1, 2, [true, true, true, true])).toEqual({ actions: ["steer", "abort"], state: "exceeded", turns: 4 });
	});

	it("with no grace turns: aborts at the limit", () => {
		expect(run(2, 0, [true, true])).toEqual({ actions: ["abort"], state: "exceeded", turns: 2 });
	});

	it("defaults to 5 grace turns", () => {
		const actions: string[] = [];
		const limit = createTurnLimit({
			maxTurns: 1,
			steer: () => actions.push("steer"),
			abort: () => actions.push("abort"),
		});
		for (let turn = 0; turn < 5; turn++) limit.onTurnEnd(true);
		expect(actions).toEqual(["steer"]);
		limit.onTurnEnd(true);
		expect(actions).toEqual(["steer", "abort"]);
	});
});
