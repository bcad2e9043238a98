/**
 * docs/try-before-you-spend.md shows a dry run's output: the command in its first `sh` block, run as the CLI runs
 * it (in-process, an empty pi directory, no credentials, no history), prints exactly the `text` block after it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.ts";
import { shutdownSchemaWorker } from "../../src/runtime/index.ts";
import { codeBlocks, ROOT, readPage } from "./pages.ts";

afterAll(() => shutdownSchemaWorker());

/** The words of a one-command shell line: `\` continuations joined, single quotes kept together. */
function shellWords(code: string): string[] {
	const line = code.replace(/\\\n\s*/g, " ").trim();
	return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? "");
}

it("the dry run's sample output is what the CLI prints for its command", async () => {
	const blocks = codeBlocks(readPage("docs/try-before-you-spend.md"));
	const command = blocks.findIndex((block) => block.info === "sh" && block.code.includes("--dry-run"));
	const shown = blocks[command + 1];
	expect(shown?.info).toBe("text");
	const [bin, ...argv] = shellWords(blocks[command]?.code ?? "");
	expect(bin).toBe("pi-workflows");
	const agentDir = mkdtempSync(join(tmpdir(), "wf-docs-dry-"));
	try {
		let out = "";
		const stdout = new PassThrough();
		stdout.on("data", (chunk) => {
			out += String(chunk);
		});
		const code = await runCli(argv, { cwd: ROOT, env: {}, agentDir, stdout, stderr: new PassThrough() });
		expect(code).toBe(0);
		expect(out).toBe(shown?.code);
	} finally {
		rmSync(agentDir, { recursive: true, force: true });
	}
});
