/**
 * Worker entry for leak checks: serves runs with QuickJS's debug build, whose runtime asserts that every
 * object was freed when it is disposed. Tests pass its URL as `workerEntry`.
 */
import DEBUG_SYNC from "@jitl/quickjs-wasmfile-debug-sync";
import { serveWorker } from "../../src/sandbox/worker-loop.ts";

serveWorker(DEBUG_SYNC, import.meta.resolve("@jitl/quickjs-wasmfile-debug-sync/wasm"));
