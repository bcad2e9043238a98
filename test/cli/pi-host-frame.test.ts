/**
 * `pi-workflows run`'s pi host and the provenance frame: the runner it builds frames every child with the provenance
 * the command composed (here a run with no person present), kept in the child's conversation file; the
 * `workflows.provenanceFrame: false` setting leaves it out. Children run on the faux provider (`-e`).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setUpPi } from "../../src/cli/pi-host.ts";
import { cliPerson } from "../../src/cli/provenance.ts";

const FAUX = join(import.meta.dirname, "..", "fixtures", "faux-provider-extension.ts");

describe("pi-workflows run: the provenance frame", () => {
	let root: string;
	let cwd: string;
	let agentDir: string;
	let runDir: string;

	beforeEach(() => {
		root = mkdtempSync(join(tmpdir(), "wf-cli-frame-"));
		cwd = join(root, "project");
		agentDir = join(root, "agent");
		runDir = join(root, "run");
		for (const dir of [cwd, agentDir, runDir]) mkdirSync(dir);
	});
	afterEach(() => {
		rmSync(root, { recursive: true, force: true });
	});

	/** Runs one child as `run` would and returns its conversation file's text. */
	async function conversation(): Promise<string> {
		const pi = await setUpPi({
			cwd,
			agentDir,
			extensions: [FAUX],
			model: "faux/faux-1",
			runFolder: async () => runDir,
			provenance: {
				script: { kind: "file", path: join(cwd, "review.js") },
				person: cliPerson("run", ["review.js"], {}),
			},
		});
		const request = { key: "k", index: 0, attempt: 1, prompt: "Say hi", agentType: "general-purpose", cwd };
		const result = await pi.runner(
			{ ...request, label: "hi", description: "hi" },
			{ signal: new AbortController().signal, reportChild: () => undefined },
		);
		await pi.close?.();
		expect(result.status).toBe("completed");
		const [file] = readdirSync(join(runDir, "children"));
		return readFileSync(join(runDir, "children", file ?? ""), "utf8");
	}

	it("with no terminal: the child's conversation file holds the frame saying no person was present", async () => {
		const text = await conversation();
		expect(text).toContain(`computed by a workflow script, the workflow file ${join(cwd, "review.js")}`);
		expect(text).toContain(
			"No person was present when this run started (started by `pi-workflows run review.js` with no terminal attached)",
		);
	});

	it("`workflows.provenanceFrame: false` in pi's settings: no frame", async () => {
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ workflows: { provenanceFrame: false } }));
		expect(await conversation()).not.toContain("workflow-provenance");
	});
});
