/**
 * One run across machines is one trace: a real redis-server, two real `pi-workflows worker` processes with an
 * OpenTelemetry SDK loaded by `NODE_OPTIONS=--import` (as docs/across-machines.md says), one exporting to a file and
 * one over OTLP/HTTP to a receiver this test runs, and a host with the SDK's in-memory exporter. Every span shares the
 * run's trace id; the tree is run → call (CLIENT) → attempt → the worker's job span → the tools its child ran and
 * what its provider emitted; a
 * retried attempt stays in the trace, and so does a job whose worker died (it runs again on the other, under the same
 * attempt span); the workers add no tokens or cost; a run the host does not sample has no spans on the workers either.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { trace } from "@opentelemetry/api";
import { AlwaysOffSampler, BasicTracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_AGENT } from "../../src/agents/agent-types.ts";
import { createQueueHost, type QueueHost } from "../../src/queue/host.ts";
import { queuePlanner } from "../../src/queue/plan.ts";
import { runWorkflowScript } from "../../src/runtime/index.ts";
import { checkConvention } from "../helpers/genai-conventions.ts";
import { registerMemorySdk } from "../helpers/memory-tracing.ts";
import { ROOT } from "../helpers/package.ts";
import { type CliProcess, childStarts, killAll, startWorker, waitFor } from "../helpers/queue-workers.ts";
import { hasBinary, startRedis, type TestRedis } from "../helpers/system-binary.ts";

/** A span as both exports give it here: enough to rebuild the tree. */
interface SeenSpan {
	name: string;
	traceId: string;
	spanId: string;
	parentId?: string;
	kind: number;
	attributes: Record<string, unknown>;
	where: string;
}

const FAN = `export const meta = { name: "traced-fan", description: "children on the queue, traced" };
const answers = await parallel(["a", "b", "c", "d"].map((w) => () => agent("bash 300 " + w, { label: w, model: "faux/faux-1" })));
const steady = await agent("flaky " + args.word, { label: "flaky", retries: 1, model: "faux/faux-1" });
return { answers, steady };`;

/** The setup file a worker loads: an SDK whose spans go to a JSON-lines file, or over OTLP/HTTP. */
function setupFile(dir: string, name: string, to: "file" | "otlp"): string {
	const module = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, "node_modules", path)).href);
	const path = join(dir, `otel-${name}.mjs`);
	const processor =
		to === "file"
			? `new SimpleSpanProcessor({
	export(batch, done) {
		for (const s of batch) appendFileSync(process.env.SPANS_OUT, JSON.stringify({ name: s.name, traceId: s.spanContext().traceId, spanId: s.spanContext().spanId, parentId: s.parentSpanContext?.spanId, kind: s.kind, attributes: s.attributes }) + "\\n");
		done({ code: 0 });
	},
	shutdown: async () => {},
})`
			: "new SimpleSpanProcessor(new OTLPTraceExporter())";
	// A context manager over AsyncLocalStorage, as the SDK's Node packages register one: what the child's provider
	// emits through the active context joins the trace.
	writeFileSync(
		path,
		`import { appendFileSync } from "node:fs";
import { AsyncLocalStorage } from "node:async_hooks";
import { context, ROOT_CONTEXT, trace } from ${module("@opentelemetry/api/build/src/index.js")};
import { BasicTracerProvider, SimpleSpanProcessor } from ${module("@opentelemetry/sdk-trace-base/build/src/index-shim.js")};
import { OTLPTraceExporter } from ${module("@opentelemetry/exporter-trace-otlp-http/build/src/index.js")};
const store = new AsyncLocalStorage();
context.setGlobalContextManager({
	active: () => store.getStore() ?? ROOT_CONTEXT,
	with: (active, fn, thisArg, ...args) => store.run(active, () => fn.call(thisArg, ...args)),
	bind: (_active, target) => target,
	enable() { return this; },
	disable() { store.disable(); return this; },
});
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [${processor}] }));
`,
	);
	return path;
}

/** An OTLP/HTTP receiver: the spans of every JSON export POSTed to /v1/traces. */
function startReceiver(): Promise<{ server: Server; url: string; spans: SeenSpan[] }> {
	const spans: SeenSpan[] = [];
	const server = createServer((request, response) => {
		let body = "";
		request.on("data", (chunk) => {
			body += chunk;
		});
		request.on("end", () => {
			if (request.url === "/v1/traces") {
				const sent = JSON.parse(body) as {
					resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
				};
				for (const resource of sent.resourceSpans) {
					for (const scope of resource.scopeSpans) for (const span of scope.spans) spans.push(fromOtlp(span));
				}
			}
			response.writeHead(200, { "content-type": "application/json" });
			response.end("{}");
		});
	});
	return new Promise((resolve) => {
		server.listen(0, "127.0.0.1", () => {
			const address = server.address() as { port: number };
			resolve({ server, url: `http://127.0.0.1:${address.port}`, spans });
		});
	});
}

interface OtlpSpan {
	name: string;
	traceId: string;
	spanId: string;
	parentSpanId?: string;
	kind: number;
	attributes: { key: string; value: Record<string, unknown> }[];
}

/** OTLP's JSON (ids in hex, kinds counted from 1 for INTERNAL) as the API's shape. */
function fromOtlp(span: OtlpSpan): SeenSpan {
	const attributes: Record<string, unknown> = {};
	for (const { key, value } of span.attributes) attributes[key] = Object.values(value)[0];
	return {
		name: span.name,
		traceId: span.traceId,
		spanId: span.spanId,
		...(span.parentSpanId ? { parentId: span.parentSpanId } : {}),
		kind: span.kind - 1,
		attributes,
		where: "otlp",
	};
}

function fromSdk(span: ReadableSpan): SeenSpan {
	return {
		name: span.name,
		traceId: span.spanContext().traceId,
		spanId: span.spanContext().spanId,
		...(span.parentSpanContext ? { parentId: span.parentSpanContext.spanId } : {}),
		kind: span.kind,
		attributes: span.attributes as Record<string, unknown>,
		where: "host",
	};
}

describe.skipIf(!hasBinary("redis-server"))("a queued run's trace", () => {
	let redis: TestRedis;
	let project: string;
	let host: QueueHost;
	let receiver: Awaited<ReturnType<typeof startReceiver>>;
	let fileSpans: string;
	let log: string;
	const workers: CliProcess[] = [];

	const workerSpans = (): SeenSpan[] => [
		...(existsSync(fileSpans)
			? readFileSync(fileSpans, "utf8")
					.split("\n")
					.filter(Boolean)
					.map((line) => ({ ...(JSON.parse(line) as SeenSpan), where: "file" }))
			: []),
		...receiver.spans,
	];

	beforeAll(async () => {
		redis = await startRedis();
		receiver = await startReceiver();
		project = mkdtempSync(join(tmpdir(), "pwf-traces-"));
		const agentDir = join(project, ".agent");
		mkdirSync(agentDir);
		fileSpans = join(project, "spans.jsonl");
		log = join(project, "children.log");
		const env = {
			PI_CODING_AGENT_DIR: agentDir,
			PWF_QUEUE_LOG: log,
			PWF_PROVIDER_SPANS: "1",
		};
		const started = await Promise.all([
			startWorker({
				redis: redis.url,
				name: "w-file",
				cwd: project,
				concurrency: 2,
				env: { ...env, SPANS_OUT: fileSpans, NODE_OPTIONS: `--import ${setupFile(project, "file", "file")}` },
			}),
			startWorker({
				redis: redis.url,
				name: "w-otlp",
				cwd: project,
				concurrency: 2,
				env: {
					...env,
					OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
					NODE_OPTIONS: `--import ${setupFile(project, "otlp", "otlp")}`,
				},
			}),
		]);
		workers.push(...started);
		host = createQueueHost({ redis: redis.url, pollMs: 500 });
	}, 60_000);

	afterEach(() => {
		trace.disable();
	});

	afterAll(async () => {
		await host?.close();
		await killAll(workers);
		await redis?.stop();
		await new Promise((resolve) => receiver?.server.close(resolve));
		rmSync(project, { recursive: true, force: true });
	});

	const run = (runId: string, word: string, script = FAN) =>
		runWorkflowScript(script, {
			agentRunner: host.runner({
				runId,
				cwd: project,
				prepare: queuePlanner({
					agentTypes: new Map([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]),
					defaultModel: "faux/faux-1",
				}),
			}),
			runId,
			cwd: project,
			args: { word },
		});

	it("every span shares the run's trace id: run → call → attempt → the worker's job → its child's tools", async () => {
		const exporter = registerMemorySdk();
		const result = await run("wf-20261204-231500-trace1", "one");
		expect(result.status, JSON.stringify(result.error)).toBe("completed");
		const hostSpans = exporter.getFinishedSpans();
		const [root] = hostSpans.filter((span) => span.name === "invoke_workflow traced-fan");
		if (!root) throw new Error(`no run span among ${hostSpans.map((span) => span.name).join(", ")}`);
		const traceId = root.spanContext().traceId;
		// Each attempt has its job's span on a worker, and each job's child ran one tool (the flaky one's first failed).
		const attempts = hostSpans.filter((span) => span.name.startsWith("attempt "));
		expect(attempts).toHaveLength(6);
		await waitFor(
			() =>
				workerSpans().filter((span) => span.name === "execute_tool bash").length >= 4 &&
				workerSpans().filter((span) => span.name === "process pi-workflows").length >= 6,
			"the workers' spans",
		);
		const spans = [...hostSpans.map(fromSdk), ...workerSpans()];
		expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
		const byId = new Map(spans.map((span) => [span.spanId, span]));
		const parentOf = (span: SeenSpan) => (span.parentId ? byId.get(span.parentId) : undefined);

		const calls = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");
		expect(calls).toHaveLength(5);
		for (const call of calls) expect(parentOf(call)?.name).toBe("invoke_workflow traced-fan");
		for (const call of hostSpans.filter((span) => span.name.startsWith("invoke_agent"))) {
			checkConvention(call, "invoke_agent_client");
		}
		const jobs = spans.filter((span) => span.name === "process pi-workflows");
		expect(jobs).toHaveLength(6);
		for (const job of jobs) {
			expect(parentOf(job)?.name).toMatch(/^attempt [12]$/);
			expect(parentOf(parentOf(job) as SeenSpan)?.name).toBe("invoke_agent general-purpose");
		}
		// Both workers took jobs, and each sent its spans its own way.
		expect(new Set(jobs.map((job) => job.where))).toEqual(new Set(["file", "otlp"]));
		expect(new Set(jobs.map((job) => job.attributes["workflow.worker"]))).toEqual(new Set(["w-file", "w-otlp"]));
		const tools = spans.filter((span) => span.name === "execute_tool bash");
		expect(tools).toHaveLength(4);
		for (const tool of tools) expect(parentOf(tool)?.name).toBe("process pi-workflows");
		// What the child's provider emitted on the worker (one span per model request) is under the job's span too.
		const chats = spans.filter((span) => span.name === "chat faux-1");
		expect(chats.length).toBeGreaterThanOrEqual(jobs.length);
		for (const chat of chats) expect(parentOf(chat)?.name).toBe("process pi-workflows");

		// The flaky call's two attempts, each with its job, in the same trace.
		const flaky = calls.find((call) => call.attributes["workflow.call.label"] === "flaky") as SeenSpan;
		const flakyAttempts = spans.filter((span) => span.parentId === flaky.spanId);
		expect(flakyAttempts.map((span) => span.attributes["workflow.attempt.outcome"]).sort()).toEqual([
			"completed",
			"retried",
		]);
		expect(jobs.filter((job) => flakyAttempts.some((attempt) => attempt.spanId === job.parentId))).toHaveLength(2);

		// The workers spend nothing of their own in the trace: tokens are the calls', once.
		const sum = (key: string) => spans.reduce((total, span) => total + Number(span.attributes[key] ?? 0), 0);
		expect(sum("gen_ai.usage.input_tokens") + sum("gen_ai.usage.output_tokens")).toBe(result.usage.total);
		expect(sum("workflow.cost.usd")).toBeCloseTo(result.cost.usd, 10);
	}, 120_000);

	it("a run the host does not sample: no spans on the workers either", async () => {
		trace.setGlobalTracerProvider(new BasicTracerProvider({ sampler: new AlwaysOffSampler() }));
		const before = workerSpans().length;
		const result = await run("wf-20261204-231500-trace2", "two");
		expect(result.status).toBe("completed");
		// The workers ran its jobs and exported nothing for them (the file worker writes a span as it ends, before its
		// job's result reaches the host).
		expect(workerSpans().length).toBe(before);
	}, 120_000);

	// Last: it kills a worker.
	it("a job whose worker dies runs again on the other worker, under the same attempt span", async () => {
		const exporter = registerMemorySdk();
		const running = run(
			"wf-20261204-231500-trace3",
			"three",
			`export const meta = { name: "moved", description: "one child whose worker dies" };
return await agent("sleep 1500 moved", { label: "moved", model: "faux/faux-1" });`,
		);
		const started = () => childStarts(log).filter(([, task]) => task === "sleep 1500 moved");
		await waitFor(() => started().length > 0, "the child to start");
		const dying = workers.find((worker) => worker.pid === started()[0]?.[0]);
		if (!dying) throw new Error("the child started on no worker of this test");
		dying.child.kill("SIGKILL");
		await dying.exited;
		const result = await running;
		expect(result.status).toBe("completed");
		expect(started()).toHaveLength(2);
		const attempts = exporter.getFinishedSpans().filter((span) => span.name.startsWith("attempt "));
		expect(attempts).toHaveLength(1);
		const attempt = attempts[0] as ReadableSpan;
		const survivor = workers.find((worker) => worker !== dying);
		await waitFor(
			() => workerSpans().some((span) => span.parentId === attempt.spanContext().spanId),
			"the moved job's span",
		);
		// The dead worker's span never ended, so never left it: the one there is is the survivor's, in the same trace.
		const jobs = workerSpans().filter((span) => span.parentId === attempt.spanContext().spanId);
		expect(jobs.map((job) => [job.name, job.traceId])).toEqual([
			["process pi-workflows", attempt.spanContext().traceId],
		]);
		expect(jobs[0]?.attributes["workflow.worker"]).toBe(survivor === workers[0] ? "w-file" : "w-otlp");
	}, 120_000);
});
