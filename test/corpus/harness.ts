/**
 * The corpus of public workflow scripts (test/corpus/manifest.json): each script through the static check the CLI's
 * `pi-workflows check` runs and through a real run (the QuickJS sandbox, a faking runner that answers plausibly),
 * summarised so the test can compare it with the manifest's expected outcome and a person can read the table.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { runCli } from "../../src/cli/cli.ts";
import { runWorkflowScript, type WorkflowCheckReport, type WorkflowRunResult } from "../../src/runtime/index.ts";
import { createFakeRunner } from "../helpers/fake-runner.ts";
import { plausibleAnswer } from "./plausible.ts";

/** The folder of the corpus. */
export const CORPUS_DIR = dirname(fileURLToPath(import.meta.url));

/** What a user would accept from a script: it completes, fails for a reason its own code gives, or is refused for a construct with no equivalent here. */
export type ExpectedOutcome =
	| { outcome: "completes" }
	| { outcome: "fails"; reason: string; message: string }
	| { outcome: "refused"; construct: string; message: string };

/** One corpus script, as the manifest lists it. */
export interface CorpusEntry {
	file: string;
	origin: "claude-code" | "pi-peer";
	source: { repo: string; path: string; commit?: string; url: string };
	licence: string;
	form: "verbatim" | "equivalent";
	/** The constructs of the original the script keeps. */
	constructs: string[];
	/** The `args` the run gets (what a user would pass). */
	args?: unknown;
	/** The run's budget, for a script written to run under one. Default: none. */
	runBudget?: { tokens?: number; costUsd?: number };
	/** The run is made from a pi session with this much conversation (what `contextMode: "fork"` copies). Default: none. */
	session?: { messages: number; tokens: number };
	/** Why the entry is run as it is. */
	note?: string;
	/** What the check's warnings say, one text each (every warning must match one, and each text one warning). */
	warnings?: string[];
	expected: ExpectedOutcome;
}

/** The manifest's entries. */
export function corpusEntries(): CorpusEntry[] {
	return JSON.parse(readFileSync(join(CORPUS_DIR, "manifest.json"), "utf8")).scripts as CorpusEntry[];
}

/** What one script did: `pi-workflows check`'s exit code, errors and warnings, and its run. */
export interface CorpusOutcome {
	checkCode: number;
	checkErrors: string[];
	checkWarnings: string[];
	run: WorkflowRunResult;
	calls: number;
}

/** Checks and runs one script with a runner that answers every call plausibly. */
export async function runCorpusEntry(entry: CorpusEntry): Promise<CorpusOutcome> {
	const filename = join(CORPUS_DIR, "scripts", entry.file);
	const source = readFileSync(filename, "utf8");
	const { code: checkCode, report } = await cliCheck(filename);
	const line = (d: WorkflowCheckReport["diagnostics"][number]) =>
		`${d.line}:${d.column} ${d.code}: ${d.message}${d.fix ? ` (fix: ${d.fix})` : ""}`;
	const fake = createFakeRunner(plausibleAnswer);
	const run = await runWorkflowScript(source, {
		agentRunner: fake.runner,
		args: entry.args,
		...(entry.runBudget ? { budget: entry.runBudget } : {}),
		// The faking runner never reads the entries: only that there is a conversation, and its size.
		...(entry.session ? { parentConversation: { entries: [], ...entry.session } } : {}),
		cwd: CORPUS_DIR,
		filename,
		concurrency: 4,
		fanOutThreshold: 0,
		limits: { maxAgentCalls: 200, memoryBytes: 64 * 1024 * 1024, syncSliceMs: 2000 },
	});
	return {
		checkCode,
		checkErrors: report.diagnostics.filter((d) => d.severity === "error").map(line),
		checkWarnings: report.diagnostics.filter((d) => d.severity !== "error").map(line),
		run,
		calls: fake.requests.length,
	};
}

/** `pi-workflows check <file> --json` in this process: its exit code and report. */
async function cliCheck(filename: string): Promise<{ code: number; report: WorkflowCheckReport }> {
	let out = "";
	let err = "";
	const sink = (append: (text: string) => void) =>
		new Writable({
			write(chunk, _encoding, done) {
				append(String(chunk));
				done();
			},
		});
	const code = await runCli(["check", filename, "--json"], {
		cwd: CORPUS_DIR,
		env: {},
		agentDir: join(CORPUS_DIR, "no-agent-dir"),
		stdout: sink((text) => {
			out += text;
		}),
		stderr: sink((text) => {
			err += text;
		}),
	});
	if (out === "") throw new Error(`pi-workflows check ${filename} printed no report (exit ${code}): ${err}`);
	return { code, report: JSON.parse(out) as WorkflowCheckReport };
}

/** One line of the table: `file  check ok|N errors  run completed|failed: message`. */
export function outcomeLine(entry: CorpusEntry, outcome: CorpusOutcome): string {
	const check = outcome.checkErrors.length === 0 ? "check ok" : `check: ${outcome.checkErrors[0]}`;
	const run =
		outcome.run.status === "completed"
			? `completed (${outcome.calls} calls)`
			: `${outcome.run.status}: ${outcome.run.error?.code}: ${firstLine(outcome.run.error?.message ?? "")}`;
	return `${entry.file}\n    ${check}\n    run ${run}`;
}

function firstLine(text: string): string {
	return text.split("\n")[0] ?? "";
}
