/**
 * `--placement-wait-ms` on `run` and `resume`: how long the host waits for a live worker with every label a queued
 * child requires before the child fails with `placement_unsatisfiable` (the queue's `placementWaitMs`, 60 s unless
 * given). A real redis-server with no worker at all; the failure names the wait given.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliInProcess } from "../helpers/cli-in-process.ts";
import { ROOT } from "../helpers/package.ts";
import { checkSandboxLeaks } from "../helpers/sandbox-leaks.ts";
import { hasBinary, startRedis, type TestRedis } from "../helpers/system-binary.ts";

checkSandboxLeaks();

const PI = ["-e", join(ROOT, "test", "fixtures", "faux-provider-extension.ts"), "--model", "faux/faux-1"];

const SCRIPT = `export const meta = { name: "tpu", description: "one child that needs a tpu" };
return await agent("task tpu", { label: "needs tpu", placement: { labels: ["tpu"] } });
`;

describe("pi-workflows run --placement-wait-ms: usage", () => {
	it.each([
		[
			["--placement-wait-ms", "soon", "--redis", "redis://127.0.0.1:1"],
			'--placement-wait-ms must be a whole number from 0 to 2147483647, got "soon"',
		],
		[
			["--placement-wait-ms", "500"],
			"--placement-wait-ms is how long a queued child waits for a live worker with the labels it requires: give --redis too",
		],
	])("%j: one usage line, exit 2", async (flags, message) => {
		const place = { cwd: ROOT, agentDir: ROOT };
		for (const command of [
			["run", "x.js"],
			["resume", "20261205-000000-aaaaaa"],
		]) {
			const result = await cliInProcess([...command, ...flags], place);
			expect(result.code, result.stderr).toBe(2);
			expect(result.stderr).toBe(`pi-workflows: ${message}\n`);
		}
	});
});

describe.skipIf(!hasBinary("redis-server"))("pi-workflows run --placement-wait-ms with a queue", () => {
	let redis: TestRedis;
	let cwd: string;
	let agentDir: string;
	beforeAll(async () => {
		redis = await startRedis();
		cwd = mkdtempSync(join(tmpdir(), "wf-cli-placement-"));
		agentDir = mkdtempSync(join(tmpdir(), "wf-cli-placement-agent-"));
		writeFileSync(join(cwd, "tpu.js"), SCRIPT);
	}, 60_000);
	afterAll(async () => {
		await redis?.stop();
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	it("a child needing a label no worker has fails with placement_unsatisfiable after the wait given", async () => {
		const result = await cliInProcess(
			["run", "tpu.js", ...PI, "--json", "--redis", redis.url, "--placement-wait-ms", "300"],
			{ cwd, agentDir },
		);
		expect(result.code, result.stderr).toBe(1);
		const { failures } = JSON.parse(result.stdout) as { failures: { code?: string; cause?: string }[] };
		expect(failures).toHaveLength(1);
		expect(failures[0]?.code).toBe("placement_unsatisfiable");
		expect(failures[0]?.cause).toBe(
			`\`needs tpu\` (#1) needs a worker with the label tpu, and no live worker at ${redis.url} had it for its whole wait of 0.3 s (live workers: no worker is live). Start a worker with --labels tpu, add the labels to a running worker's --labels-file, or change the call's \`placement\` (\`placement.waitMs\` says how long a child waits)`,
		);
	}, 120_000);
});
