/**
 * A literal's `"__proto__"` key is an own key of the value the static pass reads, as JSON.parse makes it, not the
 * prototype: the pass builds literal objects by assignment and takes `defineProperty` for that one key.
 */
import { expect, it } from "vitest";
import { checkWorkflowScript } from "../../src/runtime/index.ts";

const HEAD = `export const meta = { name: "t", description: "d" };\n`;

it("reads a schema's `__proto__` property as a property, and names its mistake", () => {
	const body = `await agent("x", { schema: { type: "object", properties: { "__proto__": { type: "strin" } } } });`;
	const [finding, ...rest] = checkWorkflowScript(`${HEAD}${body}`).diagnostics;
	expect(rest).toEqual([]);
	expect(finding).toMatchObject({
		code: "schema_invalid",
		line: 2,
		message: '`schema.properties.__proto__.type` is `"strin"`, which is not a JSON Schema type',
	});
});

it("reads a `phase()` option named `__proto__` as an option, and refuses it", () => {
	const body = `phase("a", { "__proto__": { costUsd: 1 } });`;
	const codes = checkWorkflowScript(`${HEAD}${body}`).diagnostics.map((diagnostic) => diagnostic.code);
	expect(codes).toEqual(["phase_options_invalid"]);
});
