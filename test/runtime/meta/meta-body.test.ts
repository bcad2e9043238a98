import { runInNewContext } from "node:vm";
import { type Node, parse } from "acorn";
import { describe, expect, it } from "vitest";
import { isWorkflowError } from "../../../src/errors.ts";
import { parseWorkflowSource } from "../../../src/runtime/meta/read.ts";

const CONTRACT_EXAMPLE = `export const meta = {
  name: "review-and-fix",
  description: "Review a change and fix what is found",
  phases: [{ title: "review" }, { title: "fix", detail: "one agent per finding" }],
}; const early = await agent("first", { label: "same line as the header" });

phase("review");
const findings = await agent(\`Review \${args.target}\`, { agent: "reviewer" });
const fixes = await parallel(findings.items.map((f) => () => agent(\`Fix: \${f.title}\`, { label: f.title })));
return { early, findings, fixes };
`;

const SOURCES: [name: string, source: string][] = [
	["the contract's example, with code on the header's last line", CONTRACT_EXAMPLE],
	[
		"a one-line header followed by code on the same line",
		'export const meta = { name: "t", description: "d" }; log(meta.name); return 1;',
	],
	[
		"CRLF line endings",
		'export const meta = {\r\n\tname: "t",\r\n\tdescription: "d",\r\n};\r\nlog("a");\r\n\treturn 2;',
	],
	[
		"a hashbang and comments before the header",
		'#!/usr/bin/env pi\n// about\n/* more */ export const meta = { name: "t", description: "d" };\nlog(1);',
	],
	[
		"a header broken over short lines",
		'export\nconst\nmeta\n=\n{\nname\n:\n"t"\n,\ndescription\n:\n"what the workflow does"\n}\nlog(1)\nreturn meta.name',
	],
	[
		"a source ending in a line comment",
		'export const meta = { name: "t", description: "d" };\nconst x = [1, 2];\nreturn x; // done',
	],
];

/** Every node of a tree as "type start-end line:column-line:column". */
function nodeKeys(program: Node, skip?: { start: number; end: number }): string[] {
	const keys: string[] = [];
	const visit = (node: Node): void => {
		if (skip && node.start >= skip.start && node.end <= skip.end) return;
		const { start, end } = node.loc ?? { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } };
		if (node.type !== "Program") {
			keys.push(`${node.type} ${node.start}-${node.end} ${start.line}:${start.column}-${end.line}:${end.column}`);
		}
		for (const value of Object.values(node)) {
			for (const item of Array.isArray(value) ? value : [value]) {
				if (typeof item === "object" && item !== null && typeof (item as Node).type === "string") visit(item);
			}
		}
	};
	visit(program);
	return keys;
}

function parseModule(source: string): Node & { body: Node[] } {
	return parse(source, {
		ecmaVersion: "latest",
		sourceType: "module",
		allowAwaitOutsideFunction: true,
		allowReturnOutsideFunction: true,
		locations: true,
	});
}

describe("parseWorkflowSource body", () => {
	it.each(SOURCES)(
		"for %s: keeps every node of the author's code at the same offset, line and column",
		(_, source) => {
			const { body } = parseWorkflowSource(source);
			const original = parseModule(source);
			const header = original.body[0] as Node;
			const expected = nodeKeys(original, header);
			const actual = new Set(
				nodeKeys(parse(body, { ecmaVersion: "latest", sourceType: "script", locations: true })),
			);
			expect(expected.length).toBeGreaterThan(3);
			expect(expected.filter((key) => !actual.has(key))).toEqual([]);
		},
	);

	it.each(SOURCES)("for %s: leaves every character outside the header as written", (_, source) => {
		const { body } = parseWorkflowSource(source);
		const header = parseModule(source).body[0] as Node;
		const hashbang = source.startsWith("#!") ? source.indexOf("\n") : 0;
		expect(body.slice(hashbang, header.start)).toBe(source.slice(hashbang, header.start));
		expect(body.slice(header.end, source.length)).toBe(source.slice(header.end));
		const lineBreaks = (text: string) => text.replace(/[^\r\n]/g, "");
		expect(lineBreaks(body.slice(0, header.end))).toBe(lineBreaks(source.slice(0, header.end)));
	});

	it("wraps the code as an async arrow that receives the meta, called after the last line", () => {
		const { body, meta } = parseWorkflowSource('export const meta = { name: "t", description: "d" };\nreturn 1;');
		expect(body).toBe(`(async(meta)=>{                                     \nreturn 1;\n})(${JSON.stringify(meta)})`);
	});

	it("when no line of the header can hold the opener: throws meta_invalid asking for one line", () => {
		const source = 'export\nconst\nmeta\n=\n{\nname\n:\n"t"\n,\ndescription\n:\n"d"\n}';
		let thrown: unknown;
		try {
			parseWorkflowSource(source);
		} catch (error) {
			thrown = error;
		}
		expect(isWorkflowError(thrown) && thrown.toJSON()).toEqual({
			code: "meta_invalid",
			message: "Write `export const meta = {` on one line (1:1)",
			line: 1,
			column: 1,
		});
	});
});

describe("parseWorkflowSource body when run", () => {
	/** Runs a body in a fresh V8 context with just enough globals; a stand-in for the sandbox. */
	async function run(source: string): Promise<{ value?: unknown; stack?: string; logs: unknown[] }> {
		const { body, filename } = parseWorkflowSource(source, { filename: "review.js" });
		const logs: unknown[] = [];
		const globals = {
			log: (message: unknown) => logs.push(message),
			agent: async (prompt: string) => `done: ${prompt}`,
		};
		try {
			const value: unknown = await runInNewContext(body, globals, { filename });
			return { value, logs };
		} catch (error) {
			return { stack: (error as Error).stack, logs };
		}
	}

	it("resolves to what the script returns, with `meta` bound to the header", async () => {
		const result = await run(
			'export const meta = { name: "t", description: "d", phases: [{ title: "p" }] };\nlog(meta.name);\nreturn { phases: meta.phases, answer: await agent("x") };',
		);
		expect(JSON.parse(JSON.stringify(result))).toEqual({
			value: { phases: [{ title: "p" }], answer: "done: x" },
			logs: ["t"],
		});
	});

	it("reports a thrown error at the author's own line:column", async () => {
		const result = await run(
			'export const meta = {\n  name: "t",\n  description: "d",\n};\n\nif (true) {\n    throw new Error("boom");\n}',
		);
		expect(result.stack).toContain("Error: boom");
		expect(result.stack).toContain("review.js:7:11");
	});

	it("reports an error on the header's own line at the author's column", async () => {
		const result = await run('export const meta = { name: "t", description: "d" }; missing();');
		expect(result.stack).toContain("missing is not defined");
		expect(result.stack).toContain("review.js:1:54");
	});
});
