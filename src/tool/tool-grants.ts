/**
 * A saved workflow's `tool()` calls in pi, under its grants (src/host/grants.ts): a tool granted to this version of
 * the script runs as the session's own (its hooks still apply); any other is asked about once per run through the
 * session's UI, with the diff when an earlier version was granted, and a yes is kept as a grant. With no one to ask
 * (print or JSON mode) it is refused, saying how to grant it. Inline scripts never come here: they keep the session's
 * tools as they are.
 */
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { toolRefusedError } from "../errors.ts";
import type { WorkflowGrants } from "../host/grants.ts";
import type { WorkflowTool } from "../runtime/core/types.ts";

/** The session's side of asking: whether a person is there, and the dialog. */
export interface GrantAsker {
	hasUI: boolean;
	ui: Pick<ExtensionUIContext, "confirm">;
}

/** `tools` as `grants` allow them; the same map for a script with no grants (inline). */
export function grantedScriptTools(
	tools: Record<string, WorkflowTool>,
	grants: WorkflowGrants | undefined,
	session: GrantAsker,
): Record<string, WorkflowTool> {
	if (!grants) return tools;
	// One question per tool and run: calls made while it is open wait for the same answer.
	const answers = new Map<string, Promise<boolean>>();
	const decide = (name: string, signal: AbortSignal | undefined): Promise<boolean> => {
		if (grants.allows(name)) return Promise.resolve(true);
		let answer = answers.get(name);
		if (!answer) {
			answer = ask(name, grants, session, signal);
			answers.set(name, answer);
		}
		return answer;
	};
	const granted: Record<string, WorkflowTool> = {};
	for (const [name, tool] of Object.entries(tools)) {
		granted[name] = async (params, signal) => {
			if (!(await decide(name, signal))) throw refusal(name, grants, session.hasUI);
			return tool(params, signal);
		};
	}
	return granted;
}

async function ask(
	name: string,
	grants: WorkflowGrants,
	session: GrantAsker,
	signal: AbortSignal | undefined,
): Promise<boolean> {
	if (!session.hasUI) return false;
	const { title, message } = grants.question(name);
	const yes = await session.ui.confirm(title, message, signal ? { signal } : undefined);
	if (yes) grants.grant([name]);
	return yes;
}

function refusal(name: string, grants: WorkflowGrants, asked: boolean) {
	const flag = `\`pi-workflows run ${grants.target} --allow-tools ${name}\``;
	const changed = grants.changedSince();
	const since = changed ? ` (it changed since sha256 ${changed.sha256.slice(0, 12)} was granted)` : "";
	return asked
		? toolRefusedError(
				`the person did not grant it to ${grants.describe()}`,
				`Run the workflow again to be asked again, or grant it from the command line with ${flag}`,
			)
		: toolRefusedError(
				`no grant covers it for ${grants.describe()}${since}, and this session has no one to ask`,
				`Run the workflow once in an interactive pi session and answer yes, or once with ${flag}: either grants this version`,
			);
}
