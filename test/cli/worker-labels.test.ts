/**
 * The command line of placement (issue 48 §2): `worker --labels` refuses what is not a label before pi loads, and
 * `workers` needs a Redis URL. The listing itself runs against a real Redis in test/queue/placement.test.ts.
 */
import { describe, expect, it } from "vitest";
import { cliInProcess } from "../helpers/cli-in-process.ts";

const place = { cwd: "/", agentDir: "/nonexistent-agent-dir" };

describe("placement on the command line", () => {
	it("worker --labels with something that is not a label: exit 2, naming it and the form", async () => {
		const outcome = await cliInProcess(
			["worker", "--redis", "redis://127.0.0.1:1", "--labels", "gpu,two words"],
			place,
		);
		expect(outcome.code).toBe(2);
		expect(outcome.stderr).toBe(
			'pi-workflows: --labels: "two words" is not a label (`name` or `name=value`: letters, digits and . _ / -); give them as gpu,region=eu\n',
		);
	});

	it("workers without --redis, or with a URL that is not Redis's: exit 2, saying what to give", async () => {
		const none = await cliInProcess(["workers"], place);
		expect(none.code).toBe(2);
		expect(none.stderr).toBe("pi-workflows: `workers` needs --redis <url>: the Redis the workers take jobs from\n");
		const http = await cliInProcess(["workers", "--redis", "http://queue:6379"], place);
		expect(http.code).toBe(2);
		expect(http.stderr).toBe(
			'pi-workflows: --redis: "http://queue:6379" is not a Redis URL: it must start with redis:// (or rediss:// for TLS)\n',
		);
	});
});
