/**
 * `agent(prompt, { gate: "npm test" })` (pi peers' spelling): after each answer the command runs as a `tool("bash")`
 * step; a non-zero exit asks the agent again with the command's output appended, at most `GATE_ATTEMPTS` times in
 * all. Each attempt is an ordinary `agent()` call and each check an ordinary tool step, so both are journaled and a
 * resumed run replays them in the same order.
 */
import { WorkflowError } from "../../errors.ts";
import { runAgentCall } from "../agent/call.ts";
import { checkAgentOptions, checkPrompt } from "../agent/options.ts";
import { GATE_OPTION } from "../agent/peer-options.ts";
import type { AgentScope } from "../agent/scope.ts";
import { emitLog } from "../core/run-context.ts";
import type { JsonValue } from "../core/types.ts";
import { runToolCall } from "./call.ts";

/** Agent attempts a gated call gets in all (the first answer and two more). */
export const GATE_ATTEMPTS = 3;
/** The end of a failing check's output the next attempt is shown, in characters: the failures are usually last. */
const GATE_OUTPUT_CHARS = 8000;

/** Whether the raw options ask for a gate (checked for real by `checkAgentOptions`). */
export function isGated(raw: JsonValue): raw is { [key: string]: JsonValue } {
	if (raw === null || typeof raw !== "object" || Array.isArray(raw) || !Object.hasOwn(raw, GATE_OPTION)) return false;
	return raw[GATE_OPTION] !== null && raw[GATE_OPTION] !== undefined;
}

/**
 * Runs the gated call: the answer once the command exits 0; null (with a warning and a census note) when it still
 * fails after the last attempt, as for a child that failed; null at once when the agent itself gave null.
 */
export async function runGatedCall(
	scope: AgentScope,
	rawPrompt: JsonValue,
	rawOptions: { [key: string]: JsonValue },
	stack: string,
): Promise<JsonValue> {
	const { run } = scope;
	let prompt: string;
	let gate: string;
	let label: string | undefined;
	try {
		prompt = checkPrompt(rawPrompt);
		const options = checkAgentOptions(rawOptions);
		gate = options.gate as string;
		label = options.label;
		const bash = run.host.tools && Object.hasOwn(run.host.tools, "bash") ? run.host.tools.bash : undefined;
		if (typeof bash !== "function") {
			throw new WorkflowError(
				"agent_options_invalid",
				`\`agent()\` option \`gate\` runs \`${gate}\` with the \`bash\` tool after the answer, and this run lends no \`bash\` tool. In pi, run the workflow with the \`workflow\` tool (it lends the session's tools); on the command line, add \`--allow-tools bash\`; or drop \`gate\` and call \`tool("bash", { command })\` yourself`,
				{ details: { option: GATE_OPTION, command: gate } },
			);
		}
	} catch (error) {
		// Counted like any refused call, so the census adds up.
		run.census.call();
		run.census.refused();
		throw error;
	}
	const { [GATE_OPTION]: _gate, ...ungated } = rawOptions;
	const phase = typeof ungated.phase === "string" ? ungated.phase : undefined;
	let asked = prompt;
	let last = "";
	for (let attempt = 1; attempt <= GATE_ATTEMPTS; attempt++) {
		const answer = await runAgentCall(scope, asked, ungated, stack);
		if (answer === null) return null;
		const check = await runToolCall(
			scope,
			"bash",
			{ command: gate },
			{ label: `gate: ${gate}`, ...(phase ? { phase } : {}) },
			stack,
		);
		if (!check.isError) return answer;
		last = tail(check.output);
		asked = `${prompt}\n\nYour previous answer did not pass the check \`${gate}\` (attempt ${attempt} of ${GATE_ATTEMPTS}). Its output:\n\n${last}\n\nFix what it reports, then answer again.`;
	}
	const what = `agent \`${label ?? prompt.slice(0, 60)}\``;
	const cause = `the gate \`${gate}\` still failed after ${GATE_ATTEMPTS} attempts`;
	emitLog(run, { level: "warn", message: `${what}: ${cause}; agent() gives null`, ...(phase ? { phase } : {}) });
	run.census.note("null", { what, filename: scope.filename, cause });
	return null;
}

function tail(output: string): string {
	return output.length <= GATE_OUTPUT_CHARS ? output : `[…]\n${output.slice(output.length - GATE_OUTPUT_CHARS)}`;
}
