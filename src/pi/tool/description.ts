/**
 * What the model reads about the `workflow` tool: the description (a sample script that runs as written, the
 * globals, the rules that catch most mistakes, and the agent types this session has) and the prompt guidelines.
 * Bounded, because it is in every request: the agent-type list is cut to a count and a line length.
 */
import type { AgentTypeConfig } from "../agents/agent-fields.ts";

/** The sample script of the description, as the model should write one (tests run it as written). */
export const SAMPLE_SCRIPT = `export const meta = { name: "review", description: "Review files", args: { type: "object" } };
const schema = { type: "object", properties: { issues: { type: "array", items: { type: "string" } } }, required: ["issues"] };
phase("review");
const found = await parallel(args.files.map((f) => () => agent(\`Review \${f}; list its issues\`, { label: f, schema })));
return found.filter((r) => r !== null).flatMap((r) => r.issues);`;

const INTRO = `Run a JavaScript workflow script that orchestrates child agents, and wait for its result.
The script starts with a literal header, then plain JavaScript (not TypeScript) with top-level await and return:`;

const BODY = `Globals: agent(prompt, { agent, label, phase, schema, model, thinking, tools, timeoutMs, retries, isolation,
stallMs }) → text, or the validated object with a schema (root type "object"); parallel([() => …]) → array in order
(pass functions, not promises); pipeline(items, ...stages) with stage(previous, original, index), no barrier between
stages; phase(name, fn?); log(message, data?); workflow(nameOrPath, args) (one level); args; cwd; budget; sleep(ms);
ask(question, { choices, default, timeoutMs }) → the person's answer (text): give a default, or pass it in args.
tool(name, params, { timeoutMs, label, phase, replay }) runs one of this session's tools (bash, read, …) without an
agent, through its permission hooks → { output, isError, details? }; replay: false runs it again on resume (a gate).
isolation: "worktree" gives a child its own git worktree of HEAD; what it changes is committed on a branch
(workflows/<run id>/<label>) that its prompt names and the result lists: use it for agents that edit in parallel.
Await every agent()/parallel()/pipeline()/workflow()/ask()/tool() before using its result or returning: a script that returns
while its calls still run fails. A failed child gives null (in parallel/pipeline: a null slot): check for null.
Without a schema an answer is text: give a schema to read fields. Return plain JSON data (no Map, Set, class).
Date.now(), new Date() and Math.random() are unavailable: pass timestamps in args. No imports, files or network.
Every run has an id; workflow({ resume: id }) re-runs a failed or stopped run, replaying each agent call that
already finished (add script/path/name to resume with a fixed script).`;

/** Agent types listed with their line; the rest are named on one line. */
export const MAX_LISTED_TYPES = 12;
/** Longest line of the agent-type list. */
export const MAX_TYPE_LINE = 110;

/** The tool description for a session with `agentTypes` (disabled ones are left out). */
export function workflowToolDescription(agentTypes: Iterable<AgentTypeConfig>): string {
	const sample = SAMPLE_SCRIPT.split("\n").map((line) => `  ${line}`);
	return [INTRO, ...sample, BODY, ...agentTypeLines(agentTypes)].join("\n");
}

/** "Agent types (…):" then one line per type, bounded in count and length, with "+N more" when cut. */
export function agentTypeLines(agentTypes: Iterable<AgentTypeConfig>): string[] {
	const enabled = [...agentTypes].filter((type) => type.enabled);
	if (enabled.length === 0) return [];
	const lines = ["Agent types in this session (the `agent` option; default general-purpose):"];
	for (const type of enabled.slice(0, MAX_LISTED_TYPES)) {
		const about = type.description.replace(/\s+/g, " ").trim();
		lines.push(clip(`  ${type.name}${about ? `: ${about}` : ""}`));
	}
	const rest = enabled.slice(MAX_LISTED_TYPES);
	if (rest.length > 0) lines.push(clip(`  +${rest.length} more: ${rest.map((type) => type.name).join(", ")}`));
	return lines;
}

function clip(line: string): string {
	return line.length <= MAX_TYPE_LINE ? line : `${line.slice(0, MAX_TYPE_LINE - 1)}…`;
}

/** Bullets pi appends to the system prompt's rules while the tool is active; each names the tool. */
export const WORKFLOW_GUIDELINES = [
	"Use the workflow tool when a task splits into many independent agent jobs (review many files, research angles, migrate items); do small tasks directly.",
	"In workflow scripts, give agent() a `schema` whenever the script reads fields of the answer, and treat every agent() result as possibly null.",
	"In workflow scripts, pass functions to parallel() (`() => agent(…)`), never promises, and await every call before using its result.",
];
