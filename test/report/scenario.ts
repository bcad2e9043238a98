/**
 * A real run to report on: children are pi sessions on the faux provider (priced, so costs are pi-ai's), the
 * sandbox is the real QuickJS, the record is the run store's. Two phases; four notes in parallel, one of which
 * fails, one of which stalls and is retried by the watchdog; a summary whose use throws, so the run fails; then a
 * resume with that one prompt edited (and the script fixed): three notes replay, the failed one and the summary
 * run again. Labels, prompts, answers, errors and a log entry carry markup. Used by the report tests and by
 * scripts/report-screenshot.ts.
 */
import { join } from "node:path";
import { loadAgentTypes } from "../../src/agents/agent-types.ts";
import { createPiAgentRunner } from "../../src/children/agent-runner.ts";
import {
	createRunStore,
	type EventLogEvent,
	type EventLogWriter,
	type RunRecord,
	type RunStore,
} from "../../src/runs/index.ts";
import { runWorkflowScript, type WorkflowAgentRunner } from "../../src/runtime/index.ts";
import { agentFile, createAgentDirs } from "../agents/agent-files.ts";
import { createFauxHarness, fauxAssistantMessage, untilAborted } from "../helpers/faux.ts";

/** Markup that must stay text: an element made from it would set `window.__pwned`. */
export const MARKUP = `<img src=x onerror="window.__pwned=1">`;

const META = { name: "release-notes", description: "Notes on each change, then a summary" };

export const FIRST_SCRIPT = `export const meta = { name: "release-notes", description: "Notes on each change, then a summary", phases: [{ title: "gather" }, { title: "write" }] };
phase("gather");
const notes = await parallel([
	() => agent("Note on the parser change", { label: "note parser" }),
	() => agent("Note on the widget ${MARKUP.replace(/"/g, '\\"')} change", { label: ${JSON.stringify(`${MARKUP} widget`)} }),
	() => agent("Note on the flaky build", { label: "note build", agentType: "watched" }),
	() => agent("Note on the crash report", { label: "note crash" }),
]);
log(${JSON.stringify(`${MARKUP} gathered notes`)});
phase("write");
const summary = await agent("Summarize the three notes for the release: " + notes.filter(Boolean).join(" | "), { label: "summarize" });
return summary.x.y;
`;

/** The resume's script: the summary's prompt rewritten, and its use fixed. */
export const EDITED_SCRIPT = FIRST_SCRIPT.replace("Summarize the three notes", "Summarise the 3 notes").replace(
	"return summary.x.y;",
	"return summary;",
);

/** What the scenario leaves: the store, the run's record, and how to clean up. */
export interface ReportScenario {
	store: RunStore;
	record: RunRecord;
	cwd: string;
	agentDir: string;
	dispose(): void;
}

/** Runs the scenario: the first run (fails), then the resume with the edited prompt (completes). */
export async function runReportScenario(): Promise<ReportScenario> {
	const logs: SessionLog = {};
	const faux = await createFauxHarness();
	const dirs = createAgentDirs();
	dirs.write(".pi/agents/watched.md", agentFile("stall_ms: 1500"));
	faux.route("Note on the parser", [fauxAssistantMessage(`<i>parser</i> is faster ${MARKUP}`)]);
	faux.route("Note on the widget", [fauxAssistantMessage("The widget has a new look.")]);
	faux.route("Note on the flaky build", [untilAborted(), fauxAssistantMessage("The build is steady again.")]);
	const crash = () =>
		fauxAssistantMessage([], { stopReason: "error", errorMessage: `400 invalid request: ${MARKUP} not allowed` });
	faux.route("Note on the crash", [crash(), crash()]);
	faux.route("Summarize the three notes", [fauxAssistantMessage("Summary, first draft.")]);
	faux.route("Summarise the 3 notes", [fauxAssistantMessage("Summary: faster parser, new widget, steady build.")]);
	const store = createRunStore({ cwd: dirs.cwd, root: join(dirs.agentDir, "workflow-runs") });
	const record = await store.create({ script: FIRST_SCRIPT, filename: "release-notes.js", meta: META });
	// As the workflow tool wires it: children's conversations in the run's folder, the runner's lines in its log.
	const runner: WorkflowAgentRunner = createPiAgentRunner({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		modelRuntime: faux.modelRuntime,
		defaultModel: faux.pricedModel,
		agentTypes: loadAgentTypes({ cwd: dirs.cwd, agentDir: dirs.agentDir }).types,
		runFolder: async () => record.dir,
		record: (event) => logs.current?.append(event),
	});
	await runSession(record, FIRST_SCRIPT, runner, 1, dirs.cwd, logs);
	await record.revise({ script: EDITED_SCRIPT, filename: "release-notes.js" });
	await runSession(record, EDITED_SCRIPT, runner, 2, dirs.cwd, logs);
	return {
		store,
		record,
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		dispose() {
			faux.dispose();
			dirs.dispose();
		},
	};
}

/** The session's event log, for the runner's own lines. */
interface SessionLog {
	current?: EventLogWriter;
}

/** One session of the run under its lock, as a host runs it: journal, the store's event log, snapshot. */
async function runSession(
	record: RunRecord,
	script: string,
	runner: WorkflowAgentRunner,
	session: number,
	cwd: string,
	logs: SessionLog,
): Promise<void> {
	const lock = await record.acquire();
	try {
		await record.clearSnapshot();
		const journal = await record.journal();
		const log = await record.eventLog({ resumed: session > 1 });
		logs.current = log;
		const result = await runWorkflowScript(script, {
			agentRunner: runner,
			journal,
			cwd,
			filename: "release-notes.js",
			onProgress: (event) => log.append(event as unknown as EventLogEvent),
		});
		logs.current = undefined;
		await log.close();
		await journal.close();
		await record.writeSnapshot(result);
	} finally {
		await lock.release();
	}
}
