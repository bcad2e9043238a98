/**
 * A dry run's `bash` in bubblewrap: a script that finds its work with `git ls-files` fans out over the real files,
 * a command that writes, deletes or reaches the network changes nothing and its step says it failed, and a machine
 * without `bwrap` (simulated by PATH) keeps the step fenced and says the plan may be short.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dryRunPlanText, SANDBOXED_BASH_TEXT } from "../../../src/runtime/dry/plan-text.ts";
import { dryRunWorkflowScript, NO_SANDBOX_WARNING } from "../../../src/runtime/run/dry-run.ts";
import { createTempRepo, type TempRepo } from "../../helpers/git-repo.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { hasBinary } from "../../helpers/system-binary.ts";
import { until } from "../../helpers/until.ts";

checkSandboxLeaks();

const FAN_OUT = `
export const meta = { name: "review-all", description: "reviews every tracked file" };
const files = (await tool("bash", { command: "git ls-files" })).output.split("\\n").filter(Boolean);
phase("review");
return await parallel(files.map((f) => () => agent("review " + f, { label: f })));
`;

let repo: TempRepo;
beforeEach(() => {
	repo = createTempRepo();
	for (const name of ["src/a.ts", "src/b.ts", "docs/c.md"]) repo.write(name, "x\n");
	repo.git(["add", "--all"]);
	repo.git(["commit", "--quiet", "-m", "more"]);
});
afterEach(() => repo.dispose());

describe.skipIf(!hasBinary("bwrap", "bubblewrap"))("a dry run's bash in bubblewrap", () => {
	it("runs `git ls-files` for real: one agent call per tracked file", async () => {
		const { plan } = await dryRunWorkflowScript(FAN_OUT, {
			cwd: repo.dir,
			sandboxedBash: true,
			fenceTools: ["bash"],
		});
		const tracked = repo.git(["ls-files"]).split("\n").filter(Boolean);
		expect(tracked).toHaveLength(5);
		expect(plan.status).toBe("completed");
		expect(plan.bash).toBe("sandboxed");
		expect(plan.calls.map((call) => call.label)).toEqual(tracked);
		expect(plan.totals.agentCalls).toBe(5);
		expect(plan.tools.map((step) => [step.name, step.ran])).toEqual([["bash", true]]);
		expect(dryRunPlanText(plan)).toContain(SANDBOXED_BASH_TEXT);
	});

	it("bashTimeoutMs ends a long command (a real run's background plan must not run its `npm test` through)", async () => {
		const script = `export const meta = { name: "slow", description: "a long command, then its answer" };
try { await tool("bash", { command: "sleep 30; echo late" }); } catch (error) { return String(error.message); }
return "ran";`;
		const { plan, result } = await dryRunWorkflowScript(script, {
			cwd: repo.dir,
			sandboxedBash: true,
			fenceTools: ["bash"],
			bashTimeoutMs: 300,
		});
		expect(plan.status).toBe("completed");
		expect(result.value).toMatch(/Command timed out after 0\.3 seconds/);
	});

	it("a command that writes, deletes or reaches the network changes nothing, and its step reports the failure", async () => {
		const connections: string[] = [];
		const server = createServer((socket) => {
			connections.push("connected");
			socket.destroy();
		});
		const port = await listen(server);
		const outside = join(dirname(repo.dir), "outside.txt");
		const commands = [
			"echo new > new.txt",
			"rm README.md",
			"git commit --allow-empty --quiet -m sneaky",
			`exec 3<>/dev/tcp/127.0.0.1/${port}`,
			// The temp folder the project lives in is the sandbox's private /tmp: the write lands there, not here.
			`echo out > ${outside} && cat ${outside}`,
		];
		const script = `
export const meta = { name: "side-effects", description: "tries to change things" };
const results = [];
for (const command of ${JSON.stringify(commands)}) results.push(await tool("bash", { command }));
return results;
`;
		try {
			const { result, plan } = await dryRunWorkflowScript(script, {
				cwd: repo.dir,
				sandboxedBash: true,
				fenceTools: ["bash"],
			});
			expect(plan.status).toBe("completed");
			const results = result.value as { output: string; isError: boolean; details: { exit_code: number } }[];
			expect(results.map((r) => r.isError)).toEqual([true, true, true, true, false]);
			expect(results[0]?.output).toMatch(/Read-only file system\n+Command exited with code 1$/);
			expect(results[1]?.output).toMatch(/Read-only file system\n+Command exited with code 1$/);
			expect(results[2]?.output).toMatch(/Read-only file system[\s\S]*Command exited with code 128$/);
			expect(results[3]?.output).toMatch(/Connection refused[\s\S]*Command exited with code 1$/);
			expect(results[4]?.output).toBe("out\n");
			expect(results.map((r) => r.details.exit_code)).toEqual([1, 1, 128, 1, 0]);
			expect(plan.warnings.filter((w) => w.includes("exit 1"))).toHaveLength(4);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
		expect(connections).toEqual([]);
		expect(existsSync(join(repo.dir, "new.txt"))).toBe(false);
		expect(existsSync(join(repo.dir, "README.md"))).toBe(true);
		expect(existsSync(outside)).toBe(false);
		expect(repo.git(["status", "--porcelain"])).toBe("");
		expect(repo.git(["log", "--format=%s"])).toBe("more\ninit\n");
	});
});

describe.skipIf(!hasBinary("bwrap", "bubblewrap"))("a dry run's bash within the step's bounds", () => {
	it("never sees the host's credentials: a plan may be public", async () => {
		const names = ["PW_DRY_API_KEY", "PW_DRY_GITHUB_TOKEN", "PW_DRY_PLAIN"];
		for (const name of names) process.env[name] = `value of ${name}`;
		try {
			const script = `
export const meta = { name: "env", description: "prints its environment" };
return (await tool("bash", { command: "env | grep ^PW_DRY_ | sort" })).output;
`;
			const { result } = await dryRunWorkflowScript(script, {
				cwd: repo.dir,
				sandboxedBash: true,
				fenceTools: ["bash"],
			});
			expect(result.value).toBe("PW_DRY_PLAIN=value of PW_DRY_PLAIN\n");
		} finally {
			for (const name of names) delete process.env[name];
		}
	});

	it("never reads the person's home: keys and pi's credentials there are hidden, a project inside it is not", async () => {
		// Outside /tmp, which the sandbox already replaces: a home as a person has one.
		const home = mkdtempSync(join("/var/tmp", "pw-dry-home-"));
		const saved = process.env.HOME;
		try {
			mkdirSync(join(home, ".ssh"));
			writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY");
			const project = join(home, "code", "app");
			mkdirSync(project, { recursive: true });
			writeFileSync(join(project, "notes.md"), "the project's own file\n");
			execFileSync("git", ["init", "--quiet"], { cwd: project });
			process.env.HOME = home;
			const script = `
export const meta = { name: "peek", description: "reads around" };
const key = await tool("bash", { command: "cat ~/.ssh/id_ed25519; ls -A ${home}" });
const own = await tool("bash", { command: "cat notes.md" });
return { key: key.output, own: own.output };
`;
			const { result } = await dryRunWorkflowScript(script, {
				cwd: project,
				sandboxedBash: true,
				fenceTools: ["bash"],
			});
			const value = result.value as { key: string; own: string };
			expect(value.key).not.toContain("PRIVATE KEY");
			expect(value.key).toContain("No such file or directory");
			expect(value.own).toBe("the project's own file\n");
		} finally {
			process.env.HOME = saved;
			rmSync(home, { recursive: true, force: true });
		}
	});

	it("ends the command and everything it started at the step's timeout", async () => {
		const token = `pw-sleeper-${process.pid}-${Date.now()}`;
		const script = `
export const meta = { name: "slow", description: "waits too long" };
try { await tool("bash", { command: "sleep 600 & sleep 600; : ${token}" }, { timeoutMs: 200 }); }
catch (error) { return error.code; }
`;
		const { result } = await dryRunWorkflowScript(script, {
			cwd: repo.dir,
			sandboxedBash: true,
			fenceTools: ["bash"],
		});
		expect(result.value).toBe("tool_timeout");
		await until(() => processesNaming(token).length === 0, "the sandboxed command to end");
		expect(processesNaming(token)).toEqual([]);
	});
});

describe("a dry run's bash where no sandbox can be made", () => {
	let path: string | undefined;
	beforeEach(() => {
		path = process.env.PATH;
		// No bwrap on PATH: the machine has no sandbox.
		process.env.PATH = join(repo.dir, "no-such-bin");
	});
	afterEach(() => {
		process.env.PATH = path;
	});

	it("fences the step, runs nothing, and says the plan may be short", async () => {
		const script = `
export const meta = { name: "touches", description: "lists and writes" };
const listing = await tool("bash", { command: "git ls-files; touch made.txt" });
return listing.output;
`;
		const { result, plan } = await dryRunWorkflowScript(script, {
			cwd: repo.dir,
			sandboxedBash: true,
			fenceTools: ["bash"],
		});
		expect(result.value).toBe("[dry run] bash was not run");
		expect(plan.bash).toBe("fenced");
		expect(plan.tools.map((step) => [step.name, step.ran])).toEqual([["bash", false]]);
		expect(plan.warnings).toContain(NO_SANDBOX_WARNING);
		expect(dryRunPlanText(plan)).toContain(`  - ${NO_SANDBOX_WARNING}`);
		expect(existsSync(join(repo.dir, "made.txt"))).toBe(false);
	});
});

/** Live processes whose command line holds `token`. */
function processesNaming(token: string): string[] {
	return readdirSync("/proc")
		.filter((entry) => /^\d+$/.test(entry))
		.filter((pid) => {
			try {
				return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(token);
			} catch {
				return false;
			}
		});
}

async function listen(server: Server): Promise<number> {
	return await new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			resolve(typeof address === "object" && address ? address.port : 0);
		});
	});
}
