/**
 * src/cli imports: the core, the run store, and the host layer (src/host) it shares with the extension, never src/pi;
 * pi only in pi-host.ts, which the commands load with `import()` when `run` or `resume` runs. So `--help`, `check`
 * and `runs` load no pi package, and work where pi is not installed. Of the queue, only its Redis URL check.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importGraph, PI_PACKAGES, sourceFolder } from "../helpers/imports.ts";

const { files, importsOf } = sourceFolder("cli");

describe("src/cli imports", () => {
	it("finds the files it checks", () => {
		expect(files).toEqual(expect.arrayContaining(["main.ts", "cli.ts", "run.ts", "pi-host.ts"]));
	});

	it.each(files)("%s: the core, the run store and the host layer; pi only in pi-host.ts", (name) => {
		for (const { typeOnly, from } of importsOf(name)) {
			if (from === "./pi-host.ts") {
				expect(typeOnly, `${name} imports pi-host.ts statically: load it with import()`).toBe(true);
				continue;
			}
			if (from.startsWith("./") || from.startsWith("node:") || from === "../errors.ts") continue;
			if (from.startsWith("../runtime/") || from === "../runs/index.ts" || from.startsWith("../host/")) continue;
			if (["../progress/index.ts", "../progress/format.ts", "../progress/visible-text.ts"].includes(from)) continue;
			if (from === "../telemetry/spans.ts") continue;
			// The run report: pi-free (test/report/imports.test.ts).
			if (from === "../report/index.ts") continue;
			// The eval room (`eval`): pi-free; its trials' runners come from pi-host.ts through eval/trial-pi.ts.
			if (from === "../eval/index.ts" || from === "../eval/recorded-trial.ts") continue;
			// The Redis URL check: ioredis there is types only (the bin's graph below loads no queue package).
			if (from === "../queue/redis-url.ts") continue;
			if (from === "../pi.ts" || from.startsWith("../queue/") || PI_PACKAGES.test(from)) {
				expect(name, `${name} imports ${from}`).toBe("pi-host.ts");
				continue;
			}
			expect.fail(`${name} imports ${from}, which cli/ must not depend on`);
		}
	});

	it("imports nothing from src/pi", () => {
		const fromPi = files.flatMap((name) =>
			importsOf(name)
				.filter(({ from }) => from.startsWith("../pi/"))
				.map(({ from }) => `${name} imports ${from}`),
		);
		expect(fromPi).toEqual([]);
	});

	it("the bin turns on the compile cache before anything else loads: its body comes by import()", () => {
		expect(importGraph("cli/main.ts", { runtimeOnly: true }).get("cli/main.ts")).toEqual(["node:module"]);
		const bin = readFileSync(new URL("../../src/cli/main.ts", import.meta.url), "utf8");
		expect(bin.indexOf("enableCompileCache?.();")).toBeLessThan(bin.indexOf('await import("./process-command.ts")'));
	});

	it("the bin's static graph loads no pi package and no typebox", () => {
		const graph = importGraph("cli/process-command.ts", { runtimeOnly: true });
		expect([...graph.keys()]).toEqual(expect.arrayContaining(["cli/run.ts", "cli/check.ts", "host/durable-run.ts"]));
		expect([...graph.keys()]).not.toContain("cli/pi-host.ts");
		const offenders = [...graph].flatMap(([file, bare]) =>
			bare.filter((from) => PI_PACKAGES.test(from)).map((from) => `${file} imports ${from}`),
		);
		expect(offenders).toEqual([]);
	});

	it("the bin's static graph loads no queue package (ioredis, bullmq): `--redis` is checked without them", () => {
		const graph = importGraph("cli/process-command.ts", { runtimeOnly: true });
		expect([...graph.keys()]).toContain("queue/redis-url.ts");
		const offenders = [...graph].flatMap(([file, bare]) =>
			bare.filter((from) => /^(ioredis|bullmq)(\/|$)/.test(from)).map((from) => `${file} imports ${from}`),
		);
		expect(offenders).toEqual([]);
	});

	it("pi's side loads no queue package either: BullMQ comes with --redis or `worker` only", () => {
		const graph = importGraph("cli/pi-host.ts", { runtimeOnly: true });
		const offenders = [...graph].flatMap(([file, bare]) =>
			bare.filter((from) => /^(ioredis|bullmq)(\/|$)/.test(from)).map((from) => `${file} imports ${from}`),
		);
		expect(offenders).toEqual([]);
	});
});
