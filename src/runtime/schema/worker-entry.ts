/** The schema worker's entry: compiles and validates what the host sends, one message at a time. */
import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage, isWorkflowError } from "../../errors.ts";
import { type CompiledSize, SchemaCompiler } from "./ajv.ts";
import type { SchemaValidation } from "./issues.ts";
import type { SchemaReady, SchemaReply, SchemaRequest, SchemaWorkerHeap } from "./protocol.ts";

const compiler = new SchemaCompiler((workerData as { cacheBytes?: number } | null)?.cacheBytes);
const port = parentPort;
if (!port) throw new Error("schema-worker-entry.ts runs only as a worker thread");

port.on("message", (request: SchemaRequest) => {
	port.postMessage(handle(request));
});
port.postMessage({ type: "ready" } satisfies SchemaReady);

function handle(request: SchemaRequest): SchemaReply {
	try {
		if (request.type === "release") {
			compiler.release(request.key, request.idle);
			return reply(request.id, {});
		}
		if (request.type === "heap") return reply(request.id, { heap: heap() });
		const compiled = request.job ? compiler.compile(request.job) : undefined;
		const result =
			request.type === "validate" ? compiler.validate(request.key, request.value, request.root) : undefined;
		return reply(request.id, { ...(result ? { result } : {}), ...(compiled ? { compiled } : {}) });
	} catch (error) {
		const coded = isWorkflowError(error)
			? { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }
			: {
					code: "internal",
					message: `The schema worker failed: ${errorMessage(error)}`,
				};
		return { id: request.id, ok: false, held: compiler.size, error: coded, ...evicted() };
	}
}

function reply(
	id: number,
	fields: { result?: SchemaValidation; heap?: SchemaWorkerHeap; compiled?: CompiledSize },
): SchemaReply {
	return { id, ok: true, held: compiler.size, ...fields, ...evicted() };
}

/** The validators the cache evicted during the job, so the host sends their schema along when it next needs one. */
function evicted(): { evicted?: string[] } {
	const keys = compiler.takeEvicted();
	return keys.length > 0 ? { evicted: keys } : {};
}

/** The heap now; collected first when the process runs with `--expose-gc` (the bench), so it counts what is kept. */
function heap(): SchemaWorkerHeap {
	(globalThis as { gc?: () => void }).gc?.();
	const stats = getHeapStatistics();
	return { used: stats.used_heap_size, limit: stats.heap_size_limit };
}
