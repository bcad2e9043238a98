/**
 * What the model reads about the `workflow` tool: the description (a sample script that runs as written, the
 * globals, the rules that catch most mistakes, the saved workflows it can run by name, and the agent types this
 * session has) and the prompt guidelines. Bounded, because it is in every request: both lists are cut to a count
 * and a line length, and together to what fits in `MAX_DESCRIPTION_LINES`.
 */
import { fileURLToPath } from "node:url";
import type { AgentTypeConfig } from "../agents/agent-fields.ts";
import { commandArgs } from "../host/command-args.ts";
import type { SavedWorkflow } from "../host/script-source.ts";

/** The sample script of the description, as the model should write one (tests run it as written). */
export const SAMPLE_SCRIPT = `export const meta = { name: "review", description: "Review files", args: { type: "object" } };
const schema = { type: "object", properties: { issues: { type: "array", items: { type: "string" } } }, required: ["issues"] };
phase("review");
const found = await parallel(args.files.map((f) => () => agent(\`Review \${f}; list its issues\`, { label: f, schema })));
return found.filter((r) => r !== null).flatMap((r) => r.issues);`;

const INTRO = `Run a JavaScript workflow script that orchestrates child agents, and wait for its result.
The script starts with a literal header, then plain JavaScript (not TypeScript) with top-level await and return:`;

/**
 * The authoring skill this package ships (`pi.skills` of package.json), by its path on this machine: the same from
 * src/ and dist/, and readable whether pi loaded the package's skills or only the extension (`pi -e`).
 */
export const AUTHORING_SKILL = fileURLToPath(new URL("../../skills/writing-workflows/SKILL.md", import.meta.url));

const BODY = `Globals: agent(prompt, { agent, label, phase, schema, model, fallbackModels, thinking, tools, timeoutMs,
retries, isolation, stallMs, context, resume: "<earlier call's label>" to continue its conversation }) → text, or the validated object with a schema (root type "object"); parallel([() => …]) → array in order
(pass functions, not promises); pipeline(items, ...stages) with stage(previous, original, index), no barrier between
stages; phase(name, { budget }?, fn?); log(message, data?); workflow(nameOrPath, args) (one level); args; cwd;
sleep(ms); ask(question, { choices, default, details, timeoutMs }) → the person's answer (text), details holding the material (a plan); give a default, or pass it
in args. budget: agentCalls, tokens, cost { limit, spent(), remaining() } in US dollars; past a phase's budget
{ agentCalls, tokens, costUsd } or the run's tokens agent() throws budget_exhausted; the run's dollar cap parks the run.
tool(name, params, { timeoutMs, label, phase, replay }) runs one of this session's tools (bash, read, …) without an
agent, through its permission hooks → { output, isError, details? }; replay: false runs it again on resume (a gate).
isolation: "worktree" gives a child its own git worktree of HEAD; what it changes is committed on a branch
(workflows/<run id>/<label>) that its prompt names and the result lists: use it for agents that edit in parallel. context: "fork" starts a child from this conversation up to this call (each fork reads all of it: fork few).
Await every agent()/parallel()/pipeline()/workflow()/ask()/tool() before using its result or returning: a script that returns
while its calls still run fails. A failed child gives null (in parallel/pipeline: a null slot): check for null.
Without a schema an answer is text: give a schema to read fields. Return plain JSON data (no Map, Set, class).
Date.now(), new Date() and Math.random() are unavailable: pass timestamps in args. No imports, files or network.
Every run has an id; workflow({ resume: id }) re-runs a failed or stopped run, replaying each agent call that
already finished. To fix it first, edit the run's script file (workflow_runs status names it; change only what is
wrong: a call replays only if its prompt and options are unchanged) and resume with path: that file.
Before writing a script, read the writing-workflows skill (dialect, common mistakes, patterns): ${AUTHORING_SKILL}`;

/** Agent types listed with their line; the rest are named on one line. */
export const MAX_LISTED_TYPES = 12;
/** Longest line of the agent-type list. */
export const MAX_TYPE_LINE = 110;
/** Saved workflows listed with their line; the rest are named on one line. */
export const MAX_LISTED_WORKFLOWS = 12;
/** Longest line of the saved-workflow list. */
export const MAX_WORKFLOW_LINE = 180;
/** Lines the whole description may have: the lists give up lines (the longer one first) to stay within it. */
export const MAX_DESCRIPTION_LINES = 40;

/** Which saved workflows come first when the list is cut: the project's, global ones, installed, then bundled ones. */
const SCOPE_ORDER: Record<SavedWorkflow["scope"], number> = {
	project: 0,
	global: 1,
	"claude-project": 2,
	"claude-global": 3,
	installed: 4,
	bundled: 5,
};

/**
 * The tool description for a session with `agentTypes` (disabled ones are left out) and `saved` workflows (the
 * ones `name` runs).
 */
export function workflowToolDescription(
	agentTypes: Iterable<AgentTypeConfig>,
	saved: Iterable<SavedWorkflow> = [],
): string {
	const sample = SAMPLE_SCRIPT.split("\n").map((line) => `  ${line}`);
	const head = [INTRO, ...sample, BODY].join("\n").split("\n");
	const types = [...agentTypes].filter((type) => type.enabled);
	const workflows = [...saved].sort(
		(a, b) => SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope] || a.name.localeCompare(b.name),
	);
	let listedTypes = Math.min(MAX_LISTED_TYPES, types.length);
	let listedWorkflows = Math.min(MAX_LISTED_WORKFLOWS, workflows.length);
	const section = (count: number, listed: number) => (count === 0 ? 0 : 1 + listed + (count > listed ? 1 : 0));
	const room = MAX_DESCRIPTION_LINES - head.length;
	while (section(types.length, listedTypes) + section(workflows.length, listedWorkflows) > room) {
		if (listedTypes === 0 && listedWorkflows === 0) break;
		if (listedTypes >= listedWorkflows) listedTypes--;
		else listedWorkflows--;
	}
	return [...head, ...savedWorkflowLines(workflows, listedWorkflows), ...agentTypeLines(types, listedTypes)].join(
		"\n",
	);
}

/**
 * Where an installed workflow came from, and its digest: ` [from tools@1.2.0, sha256 0123456789ab]`; one whose file no
 * longer matches its lock says so, so the model does not pick a workflow that will be refused.
 */
export function installedFrom(saved: SavedWorkflow): string {
	const from = saved.installed;
	if (!from) return "";
	const refused = from.sha256 !== from.locked ? ", changed since installed: does not run" : "";
	return ` [from ${from.shown}, sha256 ${from.sha256.slice(0, 12)}${refused}]`;
}

/** "Saved workflows (…):" then one line each (name, description, when to use, arguments), with "+N more" when cut. */
export function savedWorkflowLines(workflows: readonly SavedWorkflow[], listed = MAX_LISTED_WORKFLOWS): string[] {
	if (workflows.length === 0) return [];
	const lines = ["Saved workflows (run one with `name` and `args` rather than writing a script that does the same):"];
	for (const saved of workflows.slice(0, listed)) {
		const args = commandArgs(saved.meta.args).map((arg) => `${arg.name}${arg.required ? "*" : ""}: ${arg.type}`);
		const parts = [
			oneLine(saved.meta.description),
			saved.meta.whenToUse ? `Use when: ${oneLine(saved.meta.whenToUse)}` : undefined,
			args.length > 0 ? `args (* required): ${args.join(", ")}` : undefined,
		].filter((part) => part !== undefined);
		lines.push(clip(`  ${saved.name}${installedFrom(saved)}: ${parts.join(". ")}`, MAX_WORKFLOW_LINE));
	}
	const rest = workflows.slice(listed);
	if (rest.length > 0) {
		lines.push(clip(`  +${rest.length} more: ${rest.map((saved) => saved.name).join(", ")}`, MAX_WORKFLOW_LINE));
	}
	return lines;
}

/** "Agent types (…):" then one line per type, bounded in count and length, with "+N more" when cut. */
export function agentTypeLines(agentTypes: Iterable<AgentTypeConfig>, listed = MAX_LISTED_TYPES): string[] {
	const enabled = [...agentTypes].filter((type) => type.enabled);
	if (enabled.length === 0) return [];
	const lines = ["Agent types in this session (the `agent` option; default general-purpose):"];
	for (const type of enabled.slice(0, listed)) {
		const about = type.description.replace(/\s+/g, " ").trim();
		const aliases = type.aliases?.length ? ` (or ${type.aliases.join(", ")})` : "";
		lines.push(clip(`  ${type.name}${aliases}${about ? `: ${about}` : ""}`, MAX_TYPE_LINE));
	}
	const rest = enabled.slice(listed);
	if (rest.length > 0) {
		lines.push(clip(`  +${rest.length} more: ${rest.map((type) => type.name).join(", ")}`, MAX_TYPE_LINE));
	}
	return lines;
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim().replace(/\.$/, "");
}

function clip(line: string, max: number): string {
	return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** Bullets pi appends to the system prompt's rules while the tool is active; each names the tool. */
export const WORKFLOW_GUIDELINES = [
	"Use the workflow tool when a task splits into many independent agent jobs (review many files, research angles, migrate items); do small tasks directly.",
	"In workflow scripts, give agent() a `schema` whenever the script reads fields of the answer, and treat every agent() result as possibly null.",
	"In workflow scripts, pass functions to parallel() (`() => agent(…)`), never promises, and await every call before using its result.",
];
