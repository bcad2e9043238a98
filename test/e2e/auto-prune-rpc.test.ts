/**
 * The automatic prune through pi's own loader (`pi --mode rpc -e ./src/pi.ts`): when the session starts, a project's
 * old record goes and the session is told; with a `workflows.retention` setting it cannot use, it is told that and
 * nothing goes.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRunStore, type RunRecord } from "../../src/runs/index.ts";
import { notifyOf, RpcPi } from "../helpers/rpc-pi.ts";
import { endedRun } from "../runs/support.ts";

const dirs: string[] = [];
const pis: RpcPi[] = [];
afterEach(async () => {
	for (const pi of pis.splice(0)) await pi.close();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** pi in RPC mode in `cwd`; resolves with the first notification that `match` accepts. */
async function notified(cwd: string, agentDir: string, match: (message: string) => boolean): Promise<string> {
	const pi = new RpcPi(cwd, agentDir);
	pis.push(pi);
	return notifyOf(await pi.waitFor((line) => match(notifyOf(line))));
}

/** A project with one run record that ended 90 days ago. */
async function projectWithOldRun(): Promise<{ cwd: string; agentDir: string; old: RunRecord }> {
	const cwd = mkdtempSync(join(tmpdir(), "wf-prune-rpc-project-"));
	const agentDir = mkdtempSync(join(tmpdir(), "wf-prune-rpc-agent-"));
	dirs.push(cwd, agentDir);
	const store = createRunStore({ cwd, root: join(agentDir, "workflow-runs") });
	const old = await endedRun(store, { name: "ancient", daysAgo: 90, agents: 0 });
	return { cwd, agentDir, old };
}

describe("the automatic prune when a pi session starts (RPC mode)", () => {
	it("deletes a project's record past the rule and says so", async () => {
		const { cwd, agentDir, old } = await projectWithOldRun();
		// keep 0: the one old run is past the count too.
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ workflows: { retention: { keep: 0 } } }));
		const message = await notified(cwd, agentDir, (text) => text.includes("pruned"));
		expect(message).toMatch(
			/^pi-workflows: pruned 1 old workflow run \(\d+(\.\d)? (B|KiB)\); set workflows\.retention/,
		);
		expect(existsSync(old.dir)).toBe(false);
	}, 90_000);

	it("a retention setting it cannot use is named, and nothing is deleted", async () => {
		const { cwd, agentDir, old } = await projectWithOldRun();
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ workflows: { retention: { keep: "all" } } }));
		const message = await notified(cwd, agentDir, (text) => text.includes("retention"));
		expect(message).toBe(
			'pi-workflows: `workflows.retention.keep` must be a whole number, 0 or more, got "all"; old runs are not pruned',
		);
		expect(existsSync(old.dir)).toBe(true);
	}, 90_000);
});
