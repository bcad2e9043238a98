/**
 * Worker entry for the engine-memory cases: the real release engine, plus what a script that controls its
 * engine's memory could make its worker do, which is post anything. `log("FORGE", messages)` is not posted; each
 * of `messages` is, with a `runId` of "$run" replaced by the run's id. `log("THREAD")` logs the worker's thread id.
 * Before it is ready it posts `null` and a string, which the pool must pass over without throwing.
 */
import { parentPort, threadId } from "node:worker_threads";
import RELEASE_SYNC from "@jitl/quickjs-wasmfile-release-sync";
import { serveWorker } from "../../src/sandbox/worker-loop.ts";

const port = parentPort;
if (!port) throw new Error("forging-worker.ts must run in a worker thread");
const post = port.postMessage.bind(port);

port.postMessage = (message: unknown) => {
	// A slice's calls come as one batch: each is looked at (and posted) on its own.
	const batch = message as { type?: string; messages?: unknown[] };
	if (batch?.type === "batch" && Array.isArray(batch.messages)) {
		for (const inner of batch.messages) port.postMessage(inner);
		return;
	}
	const call = message as { type?: string; name?: string; runId?: number; argsJson?: string };
	if (call?.type !== "call" || call.name !== "log" || typeof call.argsJson !== "string") return post(message);
	const [, text, data] = JSON.parse(call.argsJson) as [string, string, unknown];
	if (text === "THREAD") {
		return post({ ...call, argsJson: JSON.stringify(["info", `thread ${threadId}`, null, false]) });
	}
	if (text !== "FORGE" || !Array.isArray(data)) return post(message);
	for (const forged of data) {
		const fields = forged as { runId?: unknown } | null;
		post(fields?.runId === "$run" ? { ...fields, runId: call.runId } : forged);
	}
};

post(null);
post("not ready");
serveWorker(RELEASE_SYNC, import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
