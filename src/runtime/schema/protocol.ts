/** Host ⇄ schema worker messages. One job at a time is in flight, so replies need no ordering of their own. */
import type { CompiledSize, CompileJob } from "./ajv.ts";
import type { SchemaValidation } from "./issues.ts";

/** Host → worker. `job` comes along whenever the worker may not hold the schema yet (a new or replaced worker). */
export type SchemaRequest =
	| { type: "compile"; id: number; job: CompileJob }
	| { type: "validate"; id: number; key: string; job?: CompileJob; value: unknown; root: string }
	/** `idle`: the host may use it again, keep it while there is room; else drop it. */
	| { type: "release"; id: number; key: string; idle?: boolean }
	| { type: "heap"; id: number };

/** Worker → host, once, when it has loaded and can take jobs. */
export interface SchemaReady {
	type: "ready";
}

/** The worker's JavaScript heap, in bytes: what it uses (after a full GC when the process exposes `gc`), its limit. */
export interface SchemaWorkerHeap {
	used: number;
	limit: number;
}

/**
 * Worker → host; `held` is how many validators the worker keeps after the job, `evicted` the keys of those its
 * cache dropped during it (the host sends their schema along with the next job that needs one), `compiled` how big
 * the job's validator is when the job compiled one or found it held.
 */
export type SchemaReply =
	| {
			id: number;
			ok: true;
			held: number;
			evicted?: string[];
			result?: SchemaValidation;
			heap?: SchemaWorkerHeap;
			compiled?: CompiledSize;
	  }
	| {
			id: number;
			ok: false;
			held: number;
			evicted?: string[];
			error: { code: string; message: string; details?: Record<string, unknown> };
	  };
