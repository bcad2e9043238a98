/**
 * Who a run started from pi speaks for (children/frame.ts): the script the `workflow` call names, and the person's
 * request behind it — the session's newest user message for a tool call, the command line for a `/name` command.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { PersonProvenance, RunProvenance, ScriptProvenance } from "../children/frame.ts";

/** How a tool call's request reached the run, as the frame says it. */
const VIA_TOOL = "the person's message that led the model to call the workflow tool";

/** The newest user message on the session's branch: the request the model called `workflow` for. */
export function sessionRequest(ctx: Pick<ExtensionContext, "sessionManager">): PersonProvenance {
	// A host's stand-in context (an SDK caller's, a test's) may have no session: then there is no message to relay.
	const manager = ctx.sessionManager as Partial<ExtensionContext["sessionManager"]> | undefined;
	const branch = manager?.getBranch?.() ?? [];
	for (let index = branch.length - 1; index >= 0; index--) {
		const entry = branch[index];
		if (entry?.type !== "message" || entry.message.role !== "user") continue;
		const { content } = entry.message;
		const text =
			typeof content === "string"
				? content
				: content
						.map((part) => (part.type === "text" ? part.text : "[image]"))
						.join("\n")
						.trim();
		return { kind: "request", text, via: VIA_TOOL };
	}
	return { kind: "absent", why: "the session holds no message from a person before this workflow call" };
}

/** The request of a `/name …` command: its command line, as typed. */
export function commandRequest(name: string, args: string): PersonProvenance {
	const line = `/${name}${args.trim() ? ` ${args.trim()}` : ""}`;
	return { kind: "request", text: line, via: `the /${name} command the person typed` };
}

/** What the call runs: an inline script, a file, a saved workflow, or a resumed run's own script. */
export function scriptProvenance(
	params: { script?: string; path?: string; name?: string; resume?: string },
	filename: string,
): ScriptProvenance {
	if (params.script) return { kind: "inline" };
	if (params.path) return { kind: "file", path: filename };
	if (params.name) return { kind: "saved", name: params.name, file: filename };
	if (params.resume !== undefined) return { kind: "resumed", runId: params.resume, file: filename };
	return { kind: "inline" };
}

/** The run's provenance for its runner, or undefined when the person turned the frame off. */
export function runProvenance(
	frame: boolean | undefined,
	script: ScriptProvenance,
	person: PersonProvenance,
): RunProvenance | undefined {
	return frame === false ? undefined : { script, person };
}
