/**
 * `agent()` options other workflow runtimes take. Where we have the meaning the spelling is accepted and checked
 * here (`tier`, `gate`, `readOnly`; `thinkingLevel` is folded into `thinking` by options.ts); where we do not, the
 * error names the runtime the option comes from and what to write here instead. (`contextMode` is `context`'s other
 * spelling, in options.ts.)
 */
import { WorkflowError } from "../../errors.ts";
import type { JsonValue } from "../core/types.ts";

/** The option that runs a shell command after the answer (pi peers' `gate`). */
export const GATE_OPTION = "gate";

/** Tools `readOnly: true` takes away: the built-ins that change files or run commands. */
export const WRITING_TOOLS: readonly string[] = ["edit", "write", "bash"];

/** Where the context options come from, and what stands for them here. */
const CONTEXT_RUNTIME = "pi-dynamic-workflows (its context-inheritance modes)";
const CONTEXT_INSTEAD =
	'Leave it out (a child here gets its agent type\'s prompt, context files and skills), or name an agent file with `agent: "name"` whose `prompt_mode`, `inherit_project_context` and `inherit_skills` fields say what the child gets';

/** Options with no meaning here: which runtime uses them, and what to write instead. */
const REFUSED: Readonly<Record<string, { from: string; instead: string }>> = {
	inheritMainRules: { from: CONTEXT_RUNTIME, instead: CONTEXT_INSTEAD },
	inheritProjectContext: { from: CONTEXT_RUNTIME, instead: CONTEXT_INSTEAD },
	inheritSkills: { from: CONTEXT_RUNTIME, instead: CONTEXT_INSTEAD },
	systemPromptMode: { from: CONTEXT_RUNTIME, instead: CONTEXT_INSTEAD },
	disallowedTools: {
		from: "pi-dynamic-workflows (a per-call tool denylist)",
		instead:
			'List the tools the child may use with `tools: ["read", "grep"]`, write `readOnly: true` to take away edit, write and bash, or put `disallowed_tools` in an agent file',
	},
	maxContextTokens: {
		from: "pi-dynamic-workflows (a per-call context-window cap)",
		instead: "Bound what a run spends with the run's `budget` (tokens or dollars), or a phase's `{ budget }`",
	},
	contextReserveTokens: {
		from: "pi-dynamic-workflows (context-window warnings)",
		instead: "Leave it out: pi compacts a child's context itself",
	},
};

/** The message for an option another runtime takes that we have no meaning for; undefined for any other name. */
export function peerOptionError(name: string): string | undefined {
	const refused = Object.hasOwn(REFUSED, name) ? REFUSED[name] : undefined;
	if (!refused) return undefined;
	return `\`agent()\` option \`${name}\` comes from ${refused.from}, and this runtime has no equivalent. ${refused.instead}`;
}

/** `tier`: a non-empty name; which model it means is the host's (a tier the user never set is the runner's error). */
export function checkTier(value: JsonValue | undefined): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string" || !/^[A-Za-z0-9_.-]+$/.test(value)) {
		throw new WorkflowError(
			"agent_options_invalid",
			`\`agent()\` option \`tier\` must be the name of a model tier such as "small", "medium" or "big", got ${JSON.stringify(value)}`,
			{ details: { option: "tier" } },
		);
	}
	return value;
}

/**
 * `readOnly`: true or false. True with a `tools` list that names a writing tool cannot both hold: said, not guessed.
 * Returns whether the child is read-only.
 */
export function checkReadOnly(value: JsonValue | undefined, tools: readonly string[] | undefined): boolean {
	if (value === undefined || value === null || value === false) return false;
	if (value !== true) {
		throw new WorkflowError(
			"agent_options_invalid",
			`\`agent()\` option \`readOnly\` must be true or false, got ${JSON.stringify(value)}`,
			{ details: { option: "readOnly" } },
		);
	}
	const writing = (tools ?? []).filter((tool) => WRITING_TOOLS.includes(tool));
	if (writing.length > 0) {
		throw new WorkflowError(
			"agent_options_invalid",
			`\`agent()\` options \`readOnly: true\` and \`tools\` disagree: \`tools\` names ${writing.map((t) => `\`${t}\``).join(", ")}, which a read-only child does not get. Drop \`readOnly\`, or take ${writing.length > 1 ? "them" : "it"} out of \`tools\``,
			{ details: { option: "readOnly", tools: writing } },
		);
	}
	return true;
}
