/**
 * Checks the arguments of `agent(prompt, opts)`: unknown option names are refused by name, aliases are folded
 * (`agentType` → `agent`, `effort` and `thinkingLevel` → `thinking`), other runtimes' options we have no meaning for
 * are refused with what to write here (peer-options.ts), and each value must have the right type.
 */
import { closestName } from "../../authoring/index.ts";
import { WorkflowError } from "../../errors.ts";
import { labelProblem, MAX_LABELS, type WorkflowPlacement } from "../core/placement.ts";
import type { JsonSchema, JsonValue } from "../core/types.ts";
import { checkReadOnly, checkTier, GATE_OPTION, peerOptionError } from "./peer-options.ts";

/** `agent()` options after checking. */
export interface AgentCallOptions {
	agentType: string;
	label?: string;
	phase?: string;
	schema?: JsonSchema;
	model?: string;
	/** Models to move to, in order, when the model meets a provider limit before the child did any tool work. */
	fallbackModels?: string[];
	thinking?: string;
	tools?: string[];
	timeoutMs?: number;
	/** No progress for this long stops the child and retries it once; 0 turns the watchdog off. */
	stallMs?: number;
	retries: number;
	isolation?: "worktree";
	/** A model tier (`small`, `medium`, `big`, or one the user named) the runner maps to a model; `model` wins. */
	tier?: string;
	/** A shell command run with the `bash` tool after each answer; a non-zero exit retries the agent with its output. */
	gate?: string;
	/** The child gets no tool that changes files or runs commands (`edit`, `write`, `bash`). Default: false. */
	readOnly?: boolean;
	/**
	 * What the child's conversation starts from (`context`, or pi-dynamic-workflows' `contextMode`): `fresh`, `fork`
	 * (a copy of the session's conversation up to the `workflow` call; an error where there is none) or
	 * `fork-or-fresh` (fresh where there is none). Default: unset, which is the agent file's `context:`, else fresh.
	 */
	context?: ChildContext;
	/** The label of an earlier call whose conversation this child continues (continuation.ts). Default: a fresh child. */
	resume?: string;
	/**
	 * False: an attempt after an interruption (a resume, a stall retry, a provider wait) starts afresh rather than going
	 * on from the earlier attempt's finished turns. Not part of the call's identity. Default: true.
	 */
	continueInterrupted?: false;
	/** What the child needs of the machine it runs on: the queue places it (src/queue). Not part of its identity. */
	placement?: WorkflowPlacement;
}

/** What a child's conversation starts from; see `AgentCallOptions.context`. */
export type ChildContext = "fresh" | "fork" | "fork-or-fresh";

const CHILD_CONTEXTS: readonly ChildContext[] = ["fresh", "fork", "fork-or-fresh"];

export const AGENT_OPTION_NAMES = [
	"agent",
	"agentType",
	"label",
	"phase",
	"schema",
	"model",
	"fallbackModels",
	"thinking",
	"effort",
	"thinkingLevel",
	"tier",
	"tools",
	"readOnly",
	GATE_OPTION,
	"timeoutMs",
	"stallMs",
	"retries",
	"isolation",
	"context",
	"contextMode",
	"resume",
	"continueInterrupted",
	"placement",
] as const;

/** Option names other agent tools use, and ours for the same thing. */
const FOREIGN: Readonly<Record<string, string>> = {
	subagent_type: "agent",
	subagentType: "agent",
	agent_type: "agent",
	type: "agent",
	name: "label",
	timeout: "timeoutMs",
	timeout_ms: "timeoutMs",
	model_name: "model",
	modelName: "model",
	fallback_models: "fallbackModels",
	fallbackModel: "fallbackModels",
	fallbacks: "fallbackModels",
	reasoning: "thinking",
	reasoning_effort: "thinking",
	reasoningEffort: "thinking",
	output_schema: "schema",
	outputSchema: "schema",
	json_schema: "schema",
	responseSchema: "schema",
	max_retries: "retries",
	maxRetries: "retries",
	allowed_tools: "tools",
	allowedTools: "tools",
};

const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh"];
/** Claude Code's `effort` goes one level past pi's highest: `effort: "max"` runs as `xhigh`, the most pi has. */
const EFFORT_LEVELS: Readonly<Record<string, string>> = { max: "xhigh" };
export const DEFAULT_AGENT_TYPE = "general-purpose";
export const MAX_RETRIES = 10;
/** Fallback models one call may name. */
export const MAX_FALLBACK_MODELS = 8;
/** Longest timeout Node's timers take (2^31 − 1 ms, about 24.8 days); a longer one fires after 1 ms instead. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function invalid(message: string, details?: Record<string, unknown>): WorkflowError {
	return new WorkflowError("agent_options_invalid", message, details ? { details } : {});
}

function optionalString(opts: Record<string, JsonValue>, name: string): string | undefined {
	const value = opts[name];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string" || value.trim() === "") {
		throw invalid(`\`agent()\` option \`${name}\` must be a non-empty string, got ${JSON.stringify(value)}`);
	}
	return value;
}

function alias(opts: Record<string, JsonValue>, name: string, other: string): string | undefined {
	const a = optionalString(opts, name);
	const b = optionalString(opts, other);
	if (a !== undefined && b !== undefined && a !== b) {
		throw invalid(`\`agent()\` options \`${name}\` and \`${other}\` are the same option; give one`);
	}
	return a ?? b;
}

/** What a Promise becomes in a template literal or a string concatenation. */
const PROMISE_TEXT = "[object Promise]";

/** The prompt must be a non-empty string, with no Promise turned into text in it. */
export function checkPrompt(prompt: JsonValue): string {
	if (typeof prompt !== "string" || prompt.trim() === "") {
		const got = typeof prompt === "string" ? "an empty string" : JSON.stringify(prompt);
		throw invalid(`\`agent()\` takes a prompt string as its first argument, got ${got}`);
	}
	refusePromiseText("prompt", prompt);
	return prompt;
}

/**
 * `[object Promise]` in a prompt or label is almost always a Promise put into a template without `await` (one that
 * agent() & co. return is caught where it is turned into text; this catches the script's own async functions).
 */
function refusePromiseText(what: string, text: string): void {
	if (!text.includes(PROMISE_TEXT)) return;
	throw new WorkflowError(
		"not_awaited",
		`\`agent()\` ${what} contains \`${PROMISE_TEXT}\`: a Promise was put into the text without \`await\`. Write \`await\` before the call that made it and use its result (if the text is meant, write it another way, such as \`[object Promise ]\`)`,
		{ details: { option: what } },
	);
}

/** Checks `opts` (null when omitted) and returns them with defaults and aliases applied. */
export function checkAgentOptions(raw: JsonValue): AgentCallOptions {
	if (raw === null) return { agentType: DEFAULT_AGENT_TYPE, retries: 0 };
	if (typeof raw !== "object" || Array.isArray(raw)) {
		throw invalid(
			`\`agent()\` options must be an object, got ${Array.isArray(raw) ? "an array" : JSON.stringify(raw)}`,
		);
	}
	for (const name of Object.keys(raw)) {
		if (!(AGENT_OPTION_NAMES as readonly string[]).includes(name)) {
			const peer = peerOptionError(name);
			if (peer) throw invalid(peer, { option: name });
			const meant = Object.hasOwn(FOREIGN, name) ? FOREIGN[name] : closestName(name, AGENT_OPTION_NAMES);
			const hint = meant ? ` Did you mean \`${meant}\`?` : "";
			throw invalid(
				`Unknown \`agent()\` option \`${name}\`.${hint} Known options: ${AGENT_OPTION_NAMES.join(", ")}`,
				{
					option: name,
				},
			);
		}
	}
	const options: AgentCallOptions = {
		agentType: alias(raw, "agent", "agentType") ?? DEFAULT_AGENT_TYPE,
		retries: 0,
	};
	const label = optionalString(raw, "label");
	if (label !== undefined) {
		refusePromiseText("label", label);
		options.label = label;
	}
	const phase = optionalString(raw, "phase");
	if (phase !== undefined) options.phase = phase;
	const model = optionalString(raw, "model");
	if (model !== undefined) options.model = model;
	const fallbackModels = checkFallbackModels(raw.fallbackModels);
	if (fallbackModels) options.fallbackModels = fallbackModels;
	const given = thinkingOption(raw);
	const thinking =
		given !== undefined && raw.effort === given && Object.hasOwn(EFFORT_LEVELS, given) ? EFFORT_LEVELS[given] : given;
	if (thinking !== undefined) {
		if (!THINKING.includes(thinking)) {
			throw invalid(`\`agent()\` option \`thinking\` must be one of ${THINKING.join(", ")}, got "${thinking}"`);
		}
		options.thinking = thinking;
	}
	if (raw.schema !== undefined && raw.schema !== null) {
		if (typeof raw.schema !== "object" || Array.isArray(raw.schema)) {
			throw new WorkflowError("schema_invalid", "`agent()` option `schema` must be a JSON Schema object");
		}
		options.schema = raw.schema;
	}
	if (raw.tools !== undefined && raw.tools !== null) {
		if (!Array.isArray(raw.tools) || raw.tools.some((t) => typeof t !== "string")) {
			throw invalid("`agent()` option `tools` must be an array of tool names");
		}
		options.tools = raw.tools as string[];
	}
	checkBounds(raw, options);
	if (raw.isolation !== undefined && raw.isolation !== null) {
		if (raw.isolation !== "worktree") {
			throw invalid(`\`agent()\` option \`isolation\` must be "worktree", got ${JSON.stringify(raw.isolation)}`);
		}
		options.isolation = "worktree";
	}
	const tier = checkTier(raw.tier);
	if (tier !== undefined) options.tier = tier;
	const gate = optionalString(raw, GATE_OPTION);
	if (gate !== undefined) options.gate = gate;
	if (checkReadOnly(raw.readOnly, options.tools)) options.readOnly = true;
	checkConversation(raw, options);
	const going = raw.continueInterrupted;
	if (going !== undefined && going !== null && going !== true) {
		if (going !== false) {
			throw invalid(
				`\`agent()\` option \`continueInterrupted\` must be true or false (false: an attempt after an interruption starts afresh rather than going on from the earlier attempt's finished turns), got ${JSON.stringify(going)}`,
				{ option: "continueInterrupted" },
			);
		}
		options.continueInterrupted = false;
	}
	const placement = checkPlacement(raw.placement);
	if (placement) options.placement = placement;
	return options;
}

const PLACEMENT_KEYS = ["labels", "prefer", "waitMs"];

/** `placement: { labels, prefer, waitMs }`: label lists by the one label rule, and a wait a timer can hold. */
function checkPlacement(raw: JsonValue | undefined): WorkflowPlacement | undefined {
	if (raw === undefined || raw === null) return undefined;
	if (typeof raw !== "object" || Array.isArray(raw)) {
		throw invalid(
			`\`agent()\` option \`placement\` must be an object such as { labels: ["gpu"], prefer: ["region=eu"] }, got ${JSON.stringify(raw)}`,
			{ option: "placement" },
		);
	}
	const unknown = Object.keys(raw).find((key) => !PLACEMENT_KEYS.includes(key));
	if (unknown !== undefined) {
		throw invalid(
			`\`agent()\` option \`placement\` takes \`labels\`, \`prefer\` and \`waitMs\`, not \`${unknown}\``,
			{ option: "placement" },
		);
	}
	const placement: WorkflowPlacement = {};
	for (const name of ["labels", "prefer"] as const) {
		const list = labelList(raw[name], name);
		if (list) placement[name] = list;
	}
	const wait = raw.waitMs;
	if (wait !== undefined && wait !== null) {
		if (typeof wait !== "number" || !(wait >= 0) || wait > MAX_TIMEOUT_MS) {
			throw invalid(
				`\`agent()\` option \`placement.waitMs\` must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(wait)}`,
				{ option: "placement" },
			);
		}
		placement.waitMs = wait;
	}
	return Object.keys(placement).length > 0 ? placement : undefined;
}

function labelList(list: JsonValue | undefined, name: "labels" | "prefer"): string[] | undefined {
	if (list === undefined || list === null) return undefined;
	const problem = !Array.isArray(list)
		? `got ${JSON.stringify(list)}`
		: list.length > MAX_LABELS
			? `got ${list.length}, more than ${MAX_LABELS}`
			: list.map(labelProblem).find((found) => found !== undefined);
	if (problem !== undefined) {
		throw invalid(`\`agent()\` option \`placement.${name}\` must be a list of labels: ${problem}`, {
			option: "placement",
		});
	}
	return (list as string[]).length > 0 ? (list as string[]) : undefined;
}

/** `fallbackModels`: at most a few non-empty model names; undefined when absent or empty. */
function checkFallbackModels(list: JsonValue | undefined): string[] | undefined {
	if (list === undefined || list === null) return undefined;
	if (
		!Array.isArray(list) ||
		list.length > MAX_FALLBACK_MODELS ||
		list.some((item) => typeof item !== "string" || item.trim() === "")
	) {
		throw invalid(
			`\`agent()\` option \`fallbackModels\` must be a list of at most ${MAX_FALLBACK_MODELS} model names (\`provider/id\`), got ${JSON.stringify(list)}`,
			{ option: "fallbackModels", max: MAX_FALLBACK_MODELS },
		);
	}
	return list.length > 0 ? (list as string[]) : undefined;
}

/** The numbers that bound a child: `timeoutMs`, `stallMs` and `retries`. */
function checkBounds(raw: Record<string, JsonValue>, options: AgentCallOptions): void {
	if (raw.timeoutMs !== undefined && raw.timeoutMs !== null) {
		const t = raw.timeoutMs;
		if (typeof t !== "number" || !(t > 0) || t > MAX_TIMEOUT_MS) {
			throw invalid(
				`\`agent()\` option \`timeoutMs\` must be a number of milliseconds above 0 and at most ${MAX_TIMEOUT_MS} (about 24.8 days), got ${JSON.stringify(t)}`,
				{ option: "timeoutMs", max: MAX_TIMEOUT_MS },
			);
		}
		options.timeoutMs = t;
	}
	if (raw.stallMs !== undefined && raw.stallMs !== null) {
		const t = raw.stallMs;
		if (typeof t !== "number" || !(t >= 0) || t > MAX_TIMEOUT_MS) {
			throw invalid(
				`\`agent()\` option \`stallMs\` must be a number of milliseconds from 0 (no watchdog) to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(t)}`,
				{ option: "stallMs", max: MAX_TIMEOUT_MS },
			);
		}
		options.stallMs = t;
	}
	if (raw.retries !== undefined && raw.retries !== null) {
		const r = raw.retries;
		if (typeof r !== "number" || !Number.isInteger(r) || r < 0 || r > MAX_RETRIES) {
			throw invalid(
				`\`agent()\` option \`retries\` must be an integer from 0 to ${MAX_RETRIES}, got ${JSON.stringify(r)}`,
			);
		}
		options.retries = r;
	}
}

/** What the child's conversation starts from: `context` (alias `contextMode`), or `resume` (an earlier call's). */
function checkConversation(raw: Record<string, JsonValue>, options: AgentCallOptions): void {
	const context = alias(raw, "context", "contextMode");
	// The spelling the script wrote, for the messages.
	const name = raw.context !== undefined && raw.context !== null ? "context" : "contextMode";
	if (context !== undefined) {
		if (!(CHILD_CONTEXTS as readonly string[]).includes(context)) {
			throw invalid(
				`\`agent()\` option \`${name}\` must be one of ${CHILD_CONTEXTS.map((c) => `"${c}"`).join(", ")}, got ${JSON.stringify(context)}`,
				{ option: name },
			);
		}
		options.context = context as ChildContext;
	}
	const resume = optionalString(raw, "resume");
	if (resume !== undefined) {
		refusePromiseText("resume", resume);
		// A conversation has one beginning: the earlier child's, or the session's (or none).
		if (options.context !== undefined) {
			throw invalid(
				`\`agent()\` option \`resume\` continues an earlier child's conversation, and \`${name}: ${JSON.stringify(options.context)}\` says where a new one starts: give one of them`,
				{ option: name },
			);
		}
		options.resume = resume;
	}
}

/** `thinking`, `effort` (Claude Code) and `thinkingLevel` (pi peers) are one option: at most one value. */
function thinkingOption(raw: Record<string, JsonValue>): string | undefined {
	// The first given, and whether another differs from it: no list is made for a call that gives none (most).
	let first: string | undefined;
	let differs = false;
	for (const name of THINKING_NAMES) {
		const value = optionalString(raw, name);
		if (value === undefined) continue;
		if (first === undefined) first = value;
		else if (value !== first) differs = true;
	}
	if (differs) {
		const given = THINKING_NAMES.filter((name) => optionalString(raw, name) !== undefined);
		throw invalid(
			`\`agent()\` options ${given.map((name) => `\`${name}\``).join(" and ")} are the same option; give one`,
		);
	}
	return first;
}

const THINKING_NAMES = ["thinking", "effort", "thinkingLevel"] as const;
