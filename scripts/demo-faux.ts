/**
 * Scripted answers for the offline demo: pi-ai's faux provider plays the parent model and every child of the
 * review-and-fix example, using real tools (read, edit) on a small throwaway project. No network, no credentials.
 */
import {
	contentText,
	type FauxResponseFactory,
	fauxAssistantMessage,
	fauxProvider,
	fauxToolCall,
	type Message,
} from "@earendil-works/pi-ai";

/** The throwaway project the demo reviews: one file with two real problems. */
export const DEMO_FILES: Record<string, string> = {
	"src/math.ts": [
		"export function average(values: number[]): number {",
		"\treturn values.reduce((sum, v) => sum + v, 0) / values.length;",
		"}",
		"",
		"export function clamp(value: number, min: number, max: number): number {",
		"\treturn Math.min(Math.max(value, min), max);",
		"}",
		"",
	].join("\n"),
};

const FINDING_EMPTY = {
	file: "src/math.ts",
	line: 2,
	severity: "high",
	title: "average() divides by zero for an empty array",
	detail: "values.length is 0 for [], so average([]) returns NaN instead of failing clearly or returning 0.",
};

type Turn = (last: Message | undefined) => ReturnType<typeof fauxAssistantMessage>;

const submit = (value: Parameters<typeof fauxToolCall>[1]) =>
	fauxAssistantMessage([fauxToolCall("submit_result", value)], { stopReason: "toolUse" });
const read = (path: string) => fauxAssistantMessage([fauxToolCall("read", { path })], { stopReason: "toolUse" });
const done = fauxAssistantMessage("Submitted.");

/** Each child's turns, chosen by a phrase of its task. */
function childTurns(task: string, parentCall: Parameters<typeof fauxToolCall>[1]): Turn[] {
	if (task.includes("for correctness problems")) {
		return [() => read("src/math.ts"), () => submit({ findings: [FINDING_EMPTY] }), () => done];
	}
	if (task.includes("for security problems")) return [() => submit({ findings: [] }), () => done];
	if (task.includes("for tests problems")) {
		return [
			() => read("src/math.ts"),
			() =>
				submit({
					findings: [
						{ ...FINDING_EMPTY, line: 1, severity: "medium", title: "average() divides by zero on empty input" },
						{
							file: "src/math.ts",
							line: 5,
							severity: "medium",
							title: "clamp() gives max when min > max",
							detail: "clamp(5, 10, 0) returns 0; swapped bounds are not rejected.",
						},
					],
				}),
			() => done,
		];
	}
	if (task.includes("average() divides by zero")) {
		return [
			() =>
				fauxAssistantMessage(
					[
						fauxToolCall("edit", {
							path: "src/math.ts",
							edits: [
								{
									oldText: "\treturn values.reduce((sum, v) => sum + v, 0) / values.length;",
									newText:
										"\tif (values.length === 0) return 0;\n\treturn values.reduce((sum, v) => sum + v, 0) / values.length;",
								},
							],
						}),
					],
					{ stopReason: "toolUse" },
				),
			() => submit({ status: "fixed", summary: "average([]) now returns 0 instead of NaN" }),
			() => done,
		];
	}
	if (task.includes("clamp() gives max")) {
		return [() => submit({ status: "not-a-bug", summary: "callers always pass min <= max; documented" }), () => done];
	}
	if (task.includes("Verify the fixes")) {
		return [() => read("src/math.ts"), () => submit({ ok: true, problems: [] }), () => done];
	}
	// The parent: call the workflow tool, then report what it returned.
	return [
		() => fauxAssistantMessage([fauxToolCall("workflow", parentCall)], { stopReason: "toolUse" }),
		(last) => {
			const text = last ? contentText((last as { content: Parameters<typeof contentText>[0] }).content) : "";
			return fauxAssistantMessage(`The workflow tool returned: ${text.split("\n")[0]}`);
		},
	];
}

/** A faux provider whose replies follow the scripts above; `parentCall` is the workflow tool's arguments. */
export function createDemoProvider(parentCall: Parameters<typeof fauxToolCall>[1]) {
	const faux = fauxProvider({ provider: "faux-demo", models: [{ id: "scripted" }] });
	const step: FauxResponseFactory = (context) => {
		faux.appendResponses([step]);
		const messages = context.messages as Message[];
		const task = contentText(messages.find((m) => m.role === "user")?.content ?? "");
		const turn = messages.filter((m) => m.role === "assistant").length;
		const turns = childTurns(task, parentCall);
		const next = turns[Math.min(turn, turns.length - 1)] as Turn;
		return next(messages.at(-1));
	};
	faux.setResponses([step]);
	return faux;
}
