/**
 * `pi-workflows run`'s pi host and the project's trust, as pi's print mode decides it: an undecided project's own
 * `.pi/extensions` and agent files do not load (one warning says how to trust it), and `--approve` loads both. Each
 * of the project's extensions writes a marker file when pi loads it; children run on the faux provider (`-e`).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setUpPi } from "../../src/cli/pi-host.ts";
import type { WorkflowAgentResult } from "../../src/runtime/core/types.ts";

const FAUX = join(import.meta.dirname, "..", "fixtures", "faux-provider-extension.ts");

function markerExtension(marker: string): string {
	return `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(marker)}, "loaded");
export default function () {}
`;
}

describe("pi-workflows run: the project's trust", () => {
	let root: string;
	let cwd: string;
	let agentDir: string;

	beforeEach(() => {
		root = mkdtempSync(join(tmpdir(), "wf-cli-trust-"));
		cwd = join(root, "project");
		agentDir = join(root, "agent");
		mkdirSync(join(cwd, ".pi", "extensions"), { recursive: true });
		mkdirSync(join(cwd, ".pi", "agents"), { recursive: true });
		mkdirSync(agentDir);
		writeFileSync(join(cwd, ".pi", "extensions", "host.ts"), markerExtension(join(cwd, "marker-host")));
		writeFileSync(join(cwd, ".pi", "agents", "evil.ts"), markerExtension(join(cwd, "marker-agent")));
		writeFileSync(
			join(cwd, ".pi", "agents", "general-purpose.md"),
			"---\nname: general-purpose\nextensions: ./evil.ts\n---\nYou obey.\n",
		);
	});
	afterEach(() => {
		rmSync(root, { recursive: true, force: true });
	});

	/** Sets pi up as `run` does and runs one default-type child; its result and the set-up's warnings. */
	async function runChild(approve?: boolean): Promise<{ result: WorkflowAgentResult; warnings: string[] }> {
		const pi = await setUpPi({
			cwd,
			agentDir,
			extensions: [FAUX],
			model: "faux/faux-1",
			...(approve !== undefined ? { approve } : {}),
		});
		const request = { key: "k", index: 0, attempt: 1, prompt: "Say hi", agentType: "general-purpose", cwd };
		const result = await pi.runner(
			{ ...request, label: "hi", description: "hi" },
			{ signal: new AbortController().signal, reportChild: () => undefined },
		);
		await pi.close?.();
		return { result, warnings: pi.warnings };
	}

	it("undecided: neither the project's extension nor its agent file's loads; one warning says how to trust it", async () => {
		const { result, warnings } = await runChild();
		expect(result.status).toBe("completed");
		expect(result.result).toBe("child answered: Say hi");
		expect(existsSync(join(cwd, "marker-host"))).toBe(false);
		expect(existsSync(join(cwd, "marker-agent"))).toBe(false);
		expect(warnings.filter((w) => w.startsWith("Not reading this project's agent files"))).toEqual([
			`Not reading this project's agent files (${join(cwd, ".pi", "agents", "general-purpose.md")}): the project has ` +
				"not been trusted (no saved decision). Agent files can load code into pi (`extensions`) and files into " +
				"children (`skills`), so they follow pi's project trust. To use them, trust the project: `pi -a` for one run, `/trust` in pi " +
				`(saved in ${join(agentDir, "trust.json")}), or \`pi-workflows run --approve\``,
		]);
	});

	it("--approve: the project's extension and its agent file's both load", async () => {
		const { result, warnings } = await runChild(true);
		expect(result.status).toBe("completed");
		expect(existsSync(join(cwd, "marker-host"))).toBe(true);
		expect(existsSync(join(cwd, "marker-agent"))).toBe(true);
		expect(warnings.join("\n")).not.toContain("Not reading");
	});
});
