/**
 * The CLI with an OpenTelemetry SDK loaded by `node --import` (as docs/host-api.md says to): a real run, children as pi
 * sessions on the faux provider, from `src/cli/main.ts`; the SDK's batch processor would hold the spans past the
 * process's end, so they reach its exporter only because the CLI flushes before it exits. The run span carries the
 * record's id.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/package.ts";
import { runCommand } from "../helpers/spawn.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An SDK setup file: a batch processor that exports only when flushed, to a JSON file. */
function setupFile(dir: string): string {
	const api = pathToFileURL(join(ROOT, "node_modules/@opentelemetry/api/build/src/index.js")).href;
	const sdk = pathToFileURL(join(ROOT, "node_modules/@opentelemetry/sdk-trace-base/build/src/index-shim.js")).href;
	const path = join(dir, "otel.mjs");
	writeFileSync(
		path,
		`import { writeFileSync } from "node:fs";
import { trace } from ${JSON.stringify(api)};
import { BasicTracerProvider, BatchSpanProcessor } from ${JSON.stringify(sdk)};
const spans = [];
const exporter = {
	export(batch, done) {
		for (const s of batch) spans.push({ name: s.name, attributes: s.attributes, status: s.status, id: s.spanContext().spanId, parent: s.parentSpanContext?.spanId });
		writeFileSync(process.env.SPANS_OUT, JSON.stringify(spans));
		done({ code: 0 });
	},
	shutdown: async () => {},
};
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 600000 })] }));
`,
	);
	return path;
}

describe("pi-workflows run with an OpenTelemetry SDK (node --import)", () => {
	it("exports the run's spans before it exits, the run span named after the workflow and carrying the run id", async () => {
		const base = mkdtempSync(join(tmpdir(), "wf-cli-spans-"));
		dirs.push(base);
		const project = join(base, "project");
		mkdirSync(project);
		mkdirSync(join(base, "agent"));
		writeFileSync(
			join(project, "w.js"),
			`export const meta = { name: "traced", description: "d" };\nphase("one");\nreturn await agent("hello", { label: "greeter" });\n`,
		);
		const out = join(base, "spans.json");
		const result = await runCommand(
			process.execPath,
			[
				"--import",
				setupFile(base),
				join(ROOT, "src", "cli", "main.ts"),
				"run",
				"w.js",
				"-e",
				join(ROOT, "test", "fixtures", "faux-provider-extension.ts"),
				"--model",
				"faux/faux-1",
				"--json",
			],
			{
				cwd: project,
				env: { ...process.env, PI_CODING_AGENT_DIR: join(base, "agent"), SPANS_OUT: out },
				timeoutMs: 90_000,
			},
		);
		expect(result.code, result.stderr).toBe(0);
		const { runId } = JSON.parse(result.stdout) as { runId: string };
		const spans = JSON.parse(readFileSync(out, "utf8")) as {
			name: string;
			attributes: Record<string, unknown>;
			id: string;
			parent?: string;
		}[];
		const run = spans.find((span) => span.name === "invoke_workflow traced");
		const call = spans.find((span) => span.name === "invoke_agent general-purpose");
		const attempt = spans.find((span) => span.name === "attempt 1");
		expect(run?.attributes).toMatchObject({ "workflow.run.id": runId, "workflow.status": "completed" });
		expect(call?.parent).toBe(run?.id);
		expect(call?.attributes).toMatchObject({
			"workflow.call.label": "greeter",
			"workflow.phase": "one",
			"gen_ai.provider.name": "faux",
			"gen_ai.request.model": "faux-1",
			"workflow.call.outcome": "completed",
		});
		expect(call?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
		expect(attempt?.parent).toBe(call?.id);
		// What the attempt's child (a pi session) reported last.
		expect(attempt?.attributes).toMatchObject({
			"workflow.attempt.outcome": "completed",
			"gen_ai.response.model": "faux-1",
			"gen_ai.agent.id": expect.any(String),
		});
	}, 120_000);
});
