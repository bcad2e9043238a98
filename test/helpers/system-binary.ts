/**
 * Real servers and browsers from Debian's packages (`redis-server`, `chromium`). A test that needs one asks for it
 * here: under `CI=true` a missing binary is a failure (`.ci/run` installs them), elsewhere the test is skipped with
 * a message saying how to get it.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The absolute path of `name` on PATH, or undefined. */
export function findBinary(name: string): string | undefined {
	const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
	const path = found.stdout.trim();
	return found.status === 0 && path ? path : undefined;
}

/**
 * Whether the tests that need `name` run here. Throws under `CI=true` when it is missing; otherwise prints how to
 * get it once and returns false, for `describe.skipIf(!hasBinary(...))`.
 */
export function hasBinary(name: string, debianPackage: string = name): boolean {
	if (findBinary(name)) return true;
	const how = `install it with \`sudo apt-get install ${debianPackage}\` (.ci/run does this)`;
	if (process.env.CI === "true") throw new Error(`${name} is not on PATH and CI=true: ${how}.`);
	console.warn(`Skipping the tests that need ${name}: it is not on PATH; ${how}.`);
	return false;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			const port = typeof address === "object" && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

/** A redis-server of the test's own: a free port, a temp dir, no persistence; `stop()` ends it and removes the dir. */
export interface TestRedis {
	url: string;
	port: number;
	dir: string;
	/** Ends the server (SIGTERM, then SIGKILL) and removes its dir. */
	stop(): Promise<void>;
	/** Ends the server but keeps its port and dir, for `start()` again (a Redis restart). */
	kill(): Promise<void>;
	/** Starts it again on the same port. */
	start(): Promise<void>;
}

/** Starts a redis-server on a free port in a temp dir and waits until it answers PING. */
export async function startRedis(): Promise<TestRedis> {
	const binary = findBinary("redis-server");
	if (!binary) throw new Error("redis-server is not on PATH: install it with `sudo apt-get install redis-server`.");
	const port = await freePort();
	const dir = mkdtempSync(join(tmpdir(), "pwf-redis-"));
	let child: ReturnType<typeof spawn> | undefined;
	const start = async (): Promise<void> => {
		child = spawn(
			binary,
			["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
			{ stdio: "ignore" },
		);
		for (let tries = 0; tries < 200; tries++) {
			if (await ping(port)) return;
			if (child.exitCode !== null)
				throw new Error(`redis-server exited with code ${child.exitCode} on port ${port}`);
			await new Promise((r) => setTimeout(r, 25));
		}
		throw new Error(`redis-server did not answer PING on port ${port}`);
	};
	const kill = async (): Promise<void> => {
		const running = child;
		child = undefined;
		if (!running || running.exitCode !== null) return;
		const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
		running.kill("SIGTERM");
		const timer = setTimeout(() => running.kill("SIGKILL"), 3000);
		await exited;
		clearTimeout(timer);
	};
	await start();
	return {
		url: `redis://127.0.0.1:${port}`,
		port,
		dir,
		start,
		kill,
		async stop() {
			await kill();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

async function ping(port: number): Promise<boolean> {
	const { connect } = await import("node:net");
	return await new Promise((resolve) => {
		const socket = connect(port, "127.0.0.1");
		const done = (ok: boolean) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(500, () => done(false));
		socket.once("error", () => done(false));
		socket.once("connect", () => socket.write("PING\r\n"));
		socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
	});
}

/** Launch options for Debian's chromium under playwright-core: no sandbox (root), no background networking. */
export const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];
