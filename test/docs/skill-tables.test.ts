/**
 * The skill's reference tables say what the code has: its `agent()` options table names every option the runtime
 * takes (aliases too), its Limits table every limit of `agent()`, `tool()` and `ask()` with the code's value, and its
 * contents list every section and pattern it has.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_STALL_MS } from "../../src/children/attempt.ts";
import {
	AGENT_OPTION_NAMES,
	MAX_FALLBACK_MODELS,
	MAX_RETRIES,
	MAX_TIMEOUT_MS,
} from "../../src/runtime/agent/options.ts";
import { MAX_ASK_DETAILS_CHARS, MAX_CHOICES, MAX_QUESTION_CHARS } from "../../src/runtime/ask/ask.ts";
import { DEFAULT_LIMITS } from "../../src/runtime/run/run.ts";
import { SCHEMA_LIMITS } from "../../src/runtime/schema/limits.ts";
import { DEFAULT_TOOL_TIMEOUT_MS, MAX_TOOL_DETAILS_BYTES, MAX_TOOL_OUTPUT_CHARS } from "../../src/runtime/step/call.ts";
import { headingAnchor, proseLines, readPage } from "./pages.ts";

const SKILL = "skills/writing-workflows/SKILL.md";
const lines = proseLines(readPage(SKILL)).map((line) => line.text);

/** The lines of the section headed `heading` (up to the next heading of its level or above). */
function section(heading: string): string[] {
	const start = lines.indexOf(heading);
	expect(start, heading).toBeGreaterThanOrEqual(0);
	const level = heading.indexOf(" ");
	const end = lines.findIndex((line, i) => i > start && /^#+ /.test(line) && line.indexOf(" ") <= level);
	return lines.slice(start + 1, end === -1 ? undefined : end);
}

/** 1,000 as the tables write it. */
function count(n: number): string {
	return n.toLocaleString("en-US");
}

describe("the skill's tables", () => {
	it("the `agent()` options table names every option the runtime takes", () => {
		const table = section("## `agent()` options").filter((line) => line.startsWith("| "));
		const named = new Set(
			table.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1])),
		);
		expect(AGENT_OPTION_NAMES.filter((name) => !named.has(name))).toEqual([]);
	});

	it.each([
		["`agent()` calls per run", count(DEFAULT_LIMITS.maxAgentCalls)],
		["`agent()` `retries`", `0 to ${MAX_RETRIES}`],
		["`agent()` `fallbackModels`", `${MAX_FALLBACK_MODELS} models`],
		["`agent()` `stallMs`", `${DEFAULT_STALL_MS / 60_000} minutes`],
		["`agent()` / `tool()` / `ask()` `timeoutMs`", count(MAX_TIMEOUT_MS)],
		[
			"`agent()` `schema`",
			`${SCHEMA_LIMITS.maxBytes / 1024} KiB, ${SCHEMA_LIMITS.maxSubschemas} subschemas, ${SCHEMA_LIMITS.maxDepth} levels`,
		],
		["`tool()` calls per run", count(DEFAULT_LIMITS.maxToolCalls)],
		["`tool()` steps at once", count(DEFAULT_LIMITS.maxToolsRunning)],
		["one `tool()` step", `${DEFAULT_TOOL_TIMEOUT_MS / 60_000} minutes`],
		["one `tool()` step's output", `${MAX_TOOL_OUTPUT_CHARS / 1024} KiB of text`],
		["one `tool()` step's output", `${MAX_TOOL_DETAILS_BYTES / 1024} KiB of JSON \`details\``],
		["`ask()` calls per run", count(DEFAULT_LIMITS.maxAskCalls)],
		["`ask()` question", `${count(MAX_QUESTION_CHARS)} characters`],
		["`ask()` `details`", `${count(MAX_ASK_DETAILS_CHARS)} characters`],
		["`ask()` `choices`", `${MAX_CHOICES} choices`],
	])("the Limits table has %s: %s", (limit, value) => {
		const row = section("## Limits").find((line) => line.startsWith(`| ${limit} `));
		expect(row, `a row for ${limit}`).toBeDefined();
		expect(row?.split("|")[2]).toContain(value);
	});

	it("the contents list every section and every pattern, in order", () => {
		const contents = section("## Contents").flatMap((line) => /^\s*- \[.*\]\(#([^)]+)\)$/.exec(line)?.[1] ?? []);
		const headings = lines
			.filter((line) => /^#{2,3} /.test(line) && line !== "## Contents")
			.map((line) => headingAnchor(line.replace(/^#+ /, "")));
		expect(contents).toEqual(headings);
	});
});
