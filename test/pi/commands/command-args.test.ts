/**
 * A saved workflow's command arguments read against `meta.args`: JSON, `key=value` words with numbers, booleans
 * and comma lists converted, the errors with the usage, the required ones missing, and the completions.
 */
import { describe, expect, it } from "vitest";
import {
	argCompletions,
	commandUsage,
	missingArgs,
	parseCommandArgs,
	takeDryRunFlag,
} from "../../../src/host/command-args.ts";
import type { WorkflowMeta } from "../../../src/runtime/core/types.ts";

const META: WorkflowMeta = {
	name: "review-and-fix",
	description: "d",
	args: {
		type: "object",
		properties: {
			target: { type: "string", description: "File or git range" },
			focus: { type: "array", items: { type: "string" }, default: ["correctness"] },
			maxFixes: { type: "integer", default: 8 },
			ratio: { type: "number" },
			dryRun: { type: "boolean" },
			minSeverity: { type: "string", enum: ["low", "medium", "high"] },
			limits: { type: "object" },
			ids: { type: "array", items: { type: "integer" } },
		},
		required: ["target"],
		additionalProperties: false,
	},
};

const USAGE = [
	"Usage: /review-and-fix target=<string> [focus=<string,…>] [maxFixes=<integer>] [ratio=<number>] [dryRun=<boolean>] [minSeverity=<low|medium|high>] [limits=<object>] [ids=<integer,…>]",
	"   or: /review-and-fix {JSON args}",
	"  target: required; File or git range",
	'  focus: default ["correctness"]',
	"  maxFixes: default 8",
].join("\n");

describe("parseCommandArgs()", () => {
	it("reads JSON as it is", () => {
		expect(parseCommandArgs(' {"target":"src/math.ts","maxFixes":2} ', "review-and-fix", META)).toEqual({
			target: "src/math.ts",
			maxFixes: 2,
		});
	});

	it("converts key=value words by each property's type: numbers, booleans, comma lists, JSON objects, quoted text", () => {
		const args = parseCommandArgs(
			'target=src/math.ts maxFixes=3 ratio=0.5 dryRun=false minSeverity=high focus=security,tests ids=1,2 limits={"a":1} ',
			"review-and-fix",
			META,
		);
		expect(args).toEqual({
			target: "src/math.ts",
			maxFixes: 3,
			ratio: 0.5,
			dryRun: false,
			minSeverity: "high",
			focus: ["security", "tests"],
			ids: [1, 2],
			limits: { a: 1 },
		});
		expect(parseCommandArgs('target="a file.ts" dryRun', "review-and-fix", META)).toEqual({
			target: "a file.ts",
			dryRun: true,
		});
		// A string stays a string, even when it looks like a number.
		expect(parseCommandArgs("target=42", "review-and-fix", META)).toEqual({ target: "42" });
	});

	it("without a schema: JSON-looking values as JSON, anything else as text", () => {
		const meta: WorkflowMeta = { name: "free", description: "d" };
		expect(parseCommandArgs("n=3 on=true list=[1,2] word=hello", "free", meta)).toEqual({
			n: 3,
			on: true,
			list: [1, 2],
			word: "hello",
		});
	});

	it.each([
		["maxFixes=two", '/review-and-fix: `maxFixes`: "two" is not a number'],
		["maxFixes=2.5", "/review-and-fix: `maxFixes`: 2.5 is not a whole number"],
		["dryRun=maybe", '/review-and-fix: `dryRun`: "maybe" is not true or false'],
		["ids=1,x", '/review-and-fix: `ids`: "x" is not a number'],
		[
			"colour=red",
			"/review-and-fix: `colour` is not an argument of this workflow; it takes `target`, `focus`, `maxFixes`, `ratio`, `dryRun`, `minSeverity`, `limits`, `ids`",
		],
		["target=a target=b", "/review-and-fix: `target` was given twice; give it once"],
		["target", "/review-and-fix: `target` needs a value: write target=<string>"],
		['target="open', '/review-and-fix: a " is not closed'],
		["{target:", "/review-and-fix: the arguments are not JSON ("],
	])("on %s: args_invalid saying what is wrong, then the usage", (text, message) => {
		let thrown: unknown;
		try {
			parseCommandArgs(text, "review-and-fix", META);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toMatchObject({ code: "args_invalid" });
		const lines = (thrown as Error).message.split("\n");
		expect(lines[0]).toContain(message);
		expect(lines.slice(1).join("\n")).toBe(USAGE);
	});
});

describe("commandUsage(), missingArgs()", () => {
	it("builds the usage from the schema, required first", () => {
		expect(commandUsage("review-and-fix", META)).toBe(USAGE);
		expect(commandUsage("plain", { name: "plain", description: "d" })).toBe("Usage: /plain [JSON args]");
	});

	it("names the required arguments that are missing", () => {
		expect(missingArgs({ maxFixes: 1 }, META).map((arg) => arg.name)).toEqual(["target"]);
		expect(missingArgs({ target: "x" }, META)).toEqual([]);
		expect(missingArgs([1], META)).toEqual([]);
	});
});

describe("argCompletions()", () => {
	it("offers the argument names not given yet, with what they take", () => {
		const all = argCompletions("", META);
		expect(all?.map((item) => item.label)).toEqual([
			"target=",
			"focus=",
			"maxFixes=",
			"ratio=",
			"dryRun=",
			"minSeverity=",
			"limits=",
			"ids=",
		]);
		expect(all?.[0]).toEqual({
			value: "target=",
			label: "target=",
			description: "required, string, File or git range",
		});
		expect(argCompletions("target=src m", META)).toEqual([
			{ value: "target=src maxFixes=", label: "maxFixes=", description: "integer" },
			{ value: "target=src minSeverity=", label: "minSeverity=", description: "low|medium|high" },
		]);
		expect(argCompletions("target=src maxFixes=2 ", META)?.map((item) => item.label)).not.toContain("target=");
	});

	it("offers an enum's values and a boolean's, and nothing inside JSON or for nothing that fits", () => {
		expect(argCompletions("target=x minSeverity=", META)?.map((item) => item.value)).toEqual([
			"target=x minSeverity=low",
			"target=x minSeverity=medium",
			"target=x minSeverity=high",
		]);
		expect(argCompletions("dryRun=t", META)).toEqual([{ value: "dryRun=true", label: "true" }]);
		expect(argCompletions('{"target":', META)).toBeNull();
		expect(argCompletions("zzz", META)).toBeNull();
	});
});

describe("takeDryRunFlag()", () => {
	it("takes --dry-run as a word anywhere, and leaves it inside JSON strings and longer words", () => {
		expect(takeDryRunFlag("target=src --dry-run")).toEqual({ dryRun: true, text: "target=src" });
		expect(takeDryRunFlag("--dry-run target=src")).toEqual({ dryRun: true, text: "target=src" });
		expect(takeDryRunFlag("--dry-run")).toEqual({ dryRun: true, text: "" });
		expect(takeDryRunFlag('{"target":"--dry-run"}')).toEqual({ dryRun: false, text: '{"target":"--dry-run"}' });
		expect(takeDryRunFlag("target=src --dry-runs")).toEqual({ dryRun: false, text: "target=src --dry-runs" });
	});
});
