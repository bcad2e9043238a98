/**
 * `agent()` calls whose arguments are literals and cannot be right: the prompt in an options object
 * (`agent({ prompt })`), an agent name where the options go (`agent(p, "reviewer")`), misspelled or foreign option
 * names, wrong option values, an agent type nobody defined, and schemas that cannot be right. The option rules are
 * the runtime's own (passed in as `CallRules`), so the static pass and the run say the same thing.
 */
import {
	isWorkflowError,
	namespacedAgentType,
	stripLocation,
	unknownAgentTypeError,
	type WorkflowError,
	type WorkflowErrorCode,
} from "../errors.ts";
import { constInit, literalValue, NOT_LITERAL, propertyKey } from "./literals.ts";
import { closestName } from "./names.ts";
import { schemaMistakes } from "./schema-mistakes.ts";
import type { AnyNode, CallSite, ScopeAnalysis } from "./scope.ts";

/** The runtime's checks of `agent()` arguments; each throws a `WorkflowError` saying what is wrong. */
export interface CallRules {
	checkPrompt(prompt: unknown): void;
	/** Checks an options object; a `null` value stands for one the pass cannot know (only its name is checked). */
	checkOptions(options: Record<string, unknown>): void;
	checkSchema(schema: unknown): void;
	/** Checks `phase()` options; a `null` value stands for one the pass cannot know. Default: not checked. */
	checkPhaseOptions?(options: unknown): void;
	/** The agent types the run will have; undefined when unknown (no check). */
	agentTypes?: readonly string[];
	/** Said after an unknown agent type's fix: what the host did not read and how to change that. */
	agentTypesNote?: string;
	/** Checks `ask(question, options)`; a `null` option value stands for one the pass cannot know. Default: no check. */
	checkAsk?(question: unknown, options: Record<string, unknown> | null): void;
	/** Checks `tool(name, params, options)`'s options; a `null` value stands for one the pass cannot know. Default: no check. */
	checkTool?(name: unknown, options: Record<string, unknown> | null): void;
}

export interface CallFinding {
	code: WorkflowErrorCode;
	offset: number;
	message: string;
	fix: string;
}

/**
 * Each finding is at the call's `(`, where the run reports the same mistake when the arguments are not literals,
 * so a script gets the same position from either tier.
 */
export function findCallMistakes(analysis: ScopeAnalysis, rules: CallRules, source: string): CallFinding[] {
	const findings: CallFinding[] = [];
	const schemas: SchemaChecks = new Map();
	const { calls } = analysis;
	// Indexed: a loop run once per script runs mostly unoptimized, where `for…of` makes an object per step.
	for (let index = 0; index < calls.length; index++) {
		const { node, global: callee } = calls[index] as CallSite;
		if (callee === "ask") {
			checkAskCall(openParen(node, source), node, analysis, rules, findings);
			continue;
		}
		if (callee === "tool") {
			checkToolCall(openParen(node, source), node, analysis, rules, findings);
			continue;
		}
		if (callee !== "agent") continue;
		const at = openParen(node, source);
		const [prompt, options] = node.arguments as (AnyNode | undefined)[];
		checkPromptArgument(at, prompt, analysis, rules, findings);
		if (options) checkOptionsArgument(at, options, analysis, rules, findings, schemas, source);
	}
	return findings;
}

/** `ask(question, { choices, default, details, timeoutMs })` with literal arguments: option typos and values that cannot be right. */
function checkAskCall(
	at: number,
	call: AnyNode,
	analysis: ScopeAnalysis,
	rules: CallRules,
	findings: CallFinding[],
): void {
	if (!rules.checkAsk) return;
	const [question, options] = call.arguments as (AnyNode | undefined)[];
	if (question?.type === "SpreadElement" || options?.type === "SpreadElement") return;
	const asked = question ? literalValue(question, analysis) : undefined;
	// A question the pass cannot know stands in as one that is fine, so its options are still checked.
	const text = asked === NOT_LITERAL ? "?" : asked;
	const whole = options ? knownOptions(options, analysis) : null;
	if (whole === undefined) return;
	ruled(() => rules.checkAsk?.(text, whole), at, findings);
}

/** `tool(name, params, { timeoutMs, label, phase, replay })` with literal options: typos and values that cannot be right. */
function checkToolCall(
	at: number,
	call: AnyNode,
	analysis: ScopeAnalysis,
	rules: CallRules,
	findings: CallFinding[],
): void {
	if (!rules.checkTool) return;
	const [name, params, options] = call.arguments as (AnyNode | undefined)[];
	if ([name, params, options].some((arg) => arg?.type === "SpreadElement")) return;
	const named = name ? literalValue(name, analysis) : undefined;
	const whole = options ? knownOptions(options, analysis) : null;
	if (whole === undefined) return;
	ruled(() => rules.checkTool?.(named === NOT_LITERAL ? "?" : named, whole), at, findings);
}

/**
 * An options argument as far as the pass can know it: each key, with `null` for a value it cannot know; undefined
 * when the keys themselves are not all known (a spread, a computed key, a value from elsewhere).
 */
function knownOptions(options: AnyNode, analysis: ScopeAnalysis): Record<string, unknown> | undefined {
	const object = (options.type === "Identifier" ? constInit(options, analysis) : undefined) ?? options;
	if (object.type === "ObjectExpression") {
		const whole: Record<string, unknown> = {};
		for (const property of object.properties as AnyNode[]) {
			const key = propertyKey(property);
			if (key === undefined) return undefined;
			const value = literalValue(property.value, analysis);
			whole[key] = value === NOT_LITERAL ? null : value;
		}
		return whole;
	}
	const value = literalValue(object, analysis);
	return value === NOT_LITERAL ? undefined : (value as Record<string, unknown>);
}

/** A schema's findings by the text it is written as: one schema used or repeated by many calls is checked once. */
type SchemaChecks = Map<string, Omit<CallFinding, "offset">[]>;

/** Where a call's `(` is: the position the run gives its errors. */
export function openParen(call: AnyNode, source: string): number {
	const at = source.indexOf("(", call.callee.end);
	return at < 0 || at > call.end ? call.start : at;
}

function checkPromptArgument(
	at: number,
	prompt: AnyNode | undefined,
	analysis: ScopeAnalysis,
	rules: CallRules,
	findings: CallFinding[],
): void {
	if (prompt?.type === "ObjectExpression") {
		const hasPrompt = prompt.properties.some((property: AnyNode) => propertyKey(property) === "prompt");
		findings.push({
			code: "agent_options_invalid",
			offset: at,
			message: "`agent()` takes the prompt string as its first argument and the options object second",
			fix: hasPrompt
				? "Write `agent(prompt, { agent, schema, … })`: move `prompt` out of the object"
				: 'Write `agent("what to do", { … })`',
		});
		return;
	}
	const value = prompt ? literalValue(prompt, analysis) : undefined;
	if (value === NOT_LITERAL || prompt?.type === "SpreadElement") return;
	ruled(() => rules.checkPrompt(value), at, findings);
}

function checkOptionsArgument(
	at: number,
	options: AnyNode,
	analysis: ScopeAnalysis,
	rules: CallRules,
	findings: CallFinding[],
	schemas: SchemaChecks,
	source: string,
): void {
	if (options.type === "Literal" && typeof options.value === "string") {
		findings.push({
			code: "agent_options_invalid",
			offset: at,
			message: `\`agent()\` takes an options object as its second argument, got the string ${JSON.stringify(options.value)}`,
			fix: `To pick the agent type, write \`agent(prompt, { agent: ${JSON.stringify(options.value)} })\``,
		});
		return;
	}
	// `const OPTS = {…}; agent(p, OPTS)`: checked too.
	const viaConst = options.type === "Identifier" ? constInit(options, analysis) : undefined;
	const object = viaConst ?? options;
	if (object.type !== "ObjectExpression") {
		const value = literalValue(object, analysis);
		if (value !== NOT_LITERAL) ruled(() => rules.checkOptions(value as Record<string, unknown>), at, findings);
		return;
	}
	const entries: { property: AnyNode; key: string; value: unknown }[] = [];
	const whole: Record<string, unknown> = {};
	for (const property of object.properties as AnyNode[]) {
		const key = propertyKey(property);
		if (key === undefined) continue;
		const value = literalValue(property.value, analysis);
		entries.push({ property, key, value });
		whole[key] = value === NOT_LITERAL ? null : value;
	}
	// Most calls are right: one check of the whole object, and one per option only to name each mistake.
	let optionsOk = true;
	const before = findings.length;
	let wholeError: WorkflowError | undefined;
	try {
		rules.checkOptions(whole);
	} catch (error) {
		if (!isWorkflowError(error)) throw error;
		optionsOk = false;
		wholeError = error;
	}
	for (const { property, key, value } of entries) {
		const known = value === NOT_LITERAL ? null : value;
		if (!optionsOk && !ruled(() => rules.checkOptions({ [key]: known }), at, findings)) continue;
		if (value === NOT_LITERAL) continue;
		if (key === "schema") {
			const node = (property.value.type === "Identifier" && constInit(property.value, analysis)) || property.value;
			const written = source.slice(node.start, node.end);
			let found = schemas.get(written);
			if (!found) {
				found = checkSchemaValue(value, rules);
				schemas.set(written, found);
			}
			for (const finding of found) findings.push({ ...finding, offset: at });
		}
		if ((key === "agent" || key === "agentType") && typeof value === "string" && rules.agentTypes) {
			// `plugin:reviewer` (Claude Code) runs as `reviewer` where that type exists, at run time too.
			const known = rules.agentTypes.includes(value) || namespacedAgentType(value, rules.agentTypes) !== undefined;
			if (!known) findings.push(unknownType(value, rules.agentTypes, at, rules.agentTypesNote));
		}
	}
	// Wrong only together (`agent` and `agentType` naming two types): the whole object's error.
	if (wholeError && findings.length === before) {
		findings.push({ code: wholeError.code, offset: at, ...splitMessage(stripLocation(wholeError.message)) });
	}
}

function checkSchemaValue(value: unknown, rules: CallRules): Omit<CallFinding, "offset">[] {
	// The mistakes first: a shorthand also lacks `type: "object"`, but saying so would not name the fix.
	const mistakes = schemaMistakes(value, "schema").map((mistake) => ({ code: "schema_invalid" as const, ...mistake }));
	if (mistakes.length > 0) return mistakes;
	const found: CallFinding[] = [];
	ruled(() => rules.checkSchema(value), 0, found);
	return found.map(({ offset: _offset, ...finding }) => finding);
}

function unknownType(type: string, available: readonly string[], offset: number, note?: string): CallFinding {
	if (type.includes(":")) {
		return {
			code: "agent_type_unknown",
			offset,
			...splitMessage(unknownAgentTypeError(type, available, note).message),
		};
	}
	const meant = closestName(type, available);
	const list = available.length > 0 ? available.join(", ") : "(none)";
	return {
		code: "agent_type_unknown",
		offset,
		message: `Unknown agent type \`${type}\``,
		fix: `${meant ? `Did you mean \`${meant}\`? ` : ""}Available: ${list}${note ? ` ${note}` : ""}`,
	};
}

/** Runs one of the runtime's checks; a `WorkflowError` it throws becomes a finding. False when it threw. */
export function ruled(check: () => void, offset: number, findings: CallFinding[]): boolean {
	try {
		check();
		return true;
	} catch (error) {
		if (!isWorkflowError(error)) throw error;
		findings.push({ code: error.code, offset, ...splitMessage(stripLocation(error.message)) });
		return false;
	}
}

/** A runtime message is "What is wrong. What to do": split at the first sentence's end. */
export function splitMessage(text: string): { message: string; fix: string } {
	const end = /[.?!] (?=[A-Z`(])/.exec(text);
	if (!end) return { message: text, fix: "" };
	return { message: text.slice(0, end.index), fix: text.slice(end.index + 2) };
}
