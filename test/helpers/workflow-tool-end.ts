/** The `workflow` tool's end as a parent session saw it: its text, its details and whether pi marked it an error. */
import type { ParentSession } from "../../scripts/parent-session.ts";
import type { WorkflowProgressDetails } from "../../src/progress/index.ts";

export interface WorkflowToolEnd {
	isError: boolean;
	text: string;
	details: WorkflowProgressDetails;
}

/** The first `workflow` tool call that finished in `parent`; throws when none did. */
export function workflowToolEnd(parent: ParentSession): WorkflowToolEnd {
	const end = parent.toolEvents.find((event) => event.type === "tool_execution_end") as
		| { isError: boolean; result: { content: Array<{ text?: string }>; details: WorkflowProgressDetails } }
		| undefined;
	if (!end) throw new Error("the workflow tool did not finish");
	return {
		isError: end.isError,
		text: end.result.content.map((part) => part.text ?? "").join("\n"),
		details: end.result.details,
	};
}
