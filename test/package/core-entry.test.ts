/**
 * The core entry (`pi-workflows`, src/index.ts) imports no pi package, not even for types, so it installs and loads
 * where pi is not; everything that needs pi is `pi-workflows/pi` (src/pi.ts).
 */
import { describe, expect, it } from "vitest";
import { importGraph, PI_PACKAGES } from "../helpers/imports.ts";

describe("the core entry's import graph", () => {
	const graph = importGraph("index.ts");

	it("reaches the runtime, the sandbox, progress and the run store", () => {
		expect([...graph.keys()]).toEqual(
			expect.arrayContaining([
				"index.ts",
				"runtime/run/run.ts",
				"sandbox/pool.ts",
				"progress/tracker.ts",
				"runs/store.ts",
			]),
		);
	});

	it("imports no pi package or typebox from any file it reaches", () => {
		const offenders = [...graph].flatMap(([file, bare]) =>
			bare.filter((from) => PI_PACKAGES.test(from)).map((from) => `${file} imports ${from}`),
		);
		expect(offenders).toEqual([]);
	});

	it("the pi entry does reach pi (the walk sees pi imports where they are)", () => {
		const piImports = [...importGraph("pi.ts").values()].flat().filter((from) => PI_PACKAGES.test(from));
		expect(piImports).toEqual(
			expect.arrayContaining(["@earendil-works/pi-coding-agent", "@earendil-works/pi-tui", "typebox"]),
		);
	});
});
