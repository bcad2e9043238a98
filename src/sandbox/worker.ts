/**
 * Worker entry: serves sandbox runs with the release build of QuickJS. Spawned by pool.ts as `worker.ts` when
 * running from source (Node strips the types) and as `worker.js` from dist.
 */
import RELEASE_SYNC from "@jitl/quickjs-wasmfile-release-sync";
import { serveWorker } from "./worker-loop.ts";

serveWorker(RELEASE_SYNC, import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
