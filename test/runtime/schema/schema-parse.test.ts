import { describe, expect, it } from "vitest";
import { parseStructuredText } from "../../../src/runtime/schema/session.ts";

const FOUND: [name: string, text: string, expected: unknown][] = [
	["a bare object", '{"a": 1, "b": [true, null]}', { a: 1, b: [true, null] }],
	["a bare object with surrounding whitespace", '\n\t {"a": 1}  \n', { a: 1 }],
	["a double-encoded object", JSON.stringify('{"a": 1}'), { a: 1 }],
	["a ```json fence", 'Here it is:\n```json\n{"a": 1}\n```\nDone.', { a: 1 }],
	["a ```JSON fence with trailing spaces", '```JSON  \n{"a": 1}\n```', { a: 1 }],
	["a plain ``` fence", 'Result:\n```\n{"a": 2}\n```', { a: 2 }],
	["a json fence after an untagged one", '```\nnot json\n```\nand\n```json\n{"a": 3}\n```', { a: 3 }],
	["a second fence when the first does not parse", '```json\n{oops}\n```\n```json\n{"a": 4}\n```', { a: 4 }],
	["a fence without a closing line break", '```json\n{"a": 5}```', { a: 5 }],
	[
		"an object in prose",
		'I found it: {"title": "x", "n": {"deep": [1]}} — hope that helps.',
		{ title: "x", n: { deep: [1] } },
	],
	["braces inside strings", 'Answer {"text": "a } and a { inside"} end', { text: "a } and a { inside" }],
	["escaped quotes inside strings", 'Answer {"text": "say \\"}\\" now"} end', { text: 'say "}" now' }],
	["an object after a brace that is not JSON", 'Use {curly} braces, then {"a": 6}', { a: 6 }],
	["an object after a brace that never closes", 'Broken { here, but {"a": 7}', { a: 7 }],
	["an object in an unclosed fence", 'Here:\n```json\n{"a": 8}\n', { a: 8 }],
];

const NOT_FOUND: [name: string, text: string][] = [
	["empty text", ""],
	["prose only", "I could not do it."],
	["a bare array", "[1, 2]"],
	["a bare number", "42"],
	["a JSON string holding prose", JSON.stringify("hello")],
	["an array in a fence", "```json\n[1]\n```"],
	["invalid JSON in braces", "{a: 1}"],
	["a brace that never closes", '{"a": 1'],
	["a flood of backticks", "```x".repeat(100_000)],
];

describe("parseStructuredText", () => {
	it.each(FOUND)("reads %s", (_, text, expected) => {
		expect(parseStructuredText(text)).toEqual(expected);
	});

	it.each(NOT_FOUND)("on %s: returns undefined", (_, text) => {
		expect(parseStructuredText(text)).toBeUndefined();
	});

	it("on many braces that are not JSON: keeps looking", () => {
		expect(parseStructuredText(`${"{x} ".repeat(1000)}{"a": 1}`)).toEqual({ a: 1 });
	});

	it("on a flood of braces that never close: gives up instead of scanning for ever", () => {
		expect(parseStructuredText(`${"{".repeat(200_000)}{"a": 1}`)).toBeUndefined();
	});
});
