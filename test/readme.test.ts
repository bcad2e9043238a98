/** The README's first script works as written. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runWorkflowScript } from "../src/runtime/index.ts";
import { createFakeRunner } from "./helpers/fake-runner.ts";
import { checkSandboxLeaks } from "./helpers/sandbox-leaks.ts";

checkSandboxLeaks();

const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");

function codeAfter(heading: string, lang: string): string {
	const section = readme.slice(readme.indexOf(heading));
	const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section);
	if (!match?.[1]) throw new Error(`no ${lang} block after ${heading}`);
	return match[1];
}

describe("README", () => {
	it("runs 'A first script' as written: one schema call per file, then an overview from their answers", async () => {
		const fake = createFakeRunner((r) =>
			r.schema
				? r.label === "b.ts"
					? { fail: "model overloaded" }
					: { structured: { purpose: `purpose of ${r.label}`, risks: [`risk in ${r.label}`] } }
				: `overview of: ${r.prompt.split("\n").slice(1).join(" ")}`,
		);
		const result = await runWorkflowScript(codeAfter("## A first script", "js"), {
			agentRunner: fake.runner,
			args: { files: ["a.ts", "b.ts", "c.ts"] },
		});
		expect(result.status).toBe("completed");
		expect(result.value).toEqual({
			overview: "overview of: - purpose of a.ts - purpose of c.ts",
			risks: ["risk in a.ts", "risk in c.ts"],
		});
		expect(fake.requests.map((r) => r.phase)).toEqual(["explain", "explain", "explain", "overview"]);
		expect(result.failures).toEqual([expect.objectContaining({ label: "b.ts", cause: "model overloaded" })]);
	});
});
