/**
 * The structured-output tool of a schema call: a pi tool whose parameters are the call's JSON Schema (the copy
 * pi can check cheaply). What the child submits is checked with ajv (the schema worker's, or its copy on the host when
 * the check's work is bounded before it starts: runtime/schema/host-check.ts); an invalid submission
 * goes back to the child as a tool error listing what to fix, a valid one is kept and ends the child's run.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { JsonSchema } from "../runtime/core/types.ts";
import { type CompiledSchema, SchemaSession } from "../runtime/schema/session.ts";
import { piParameters } from "./pi-parameters.ts";

/** The name the child calls. */
export const STRUCTURED_OUTPUT_TOOL_NAME = "submit_result";

/** The tool plus what the child has submitted through it so far. */
export interface StructuredOutputCapture {
	/** Pass to `createAgentSession({ customTools })` and name it in the tool allowlist. */
	readonly tool: ToolDefinition;
	/** Whether a valid submission arrived. */
	readonly submitted: boolean;
	/** The first valid submission; undefined until one arrives. */
	readonly value: unknown;
	/** Submissions ajv rejected. */
	readonly rejected: number;
	/** Releases the compiled schema; call when the child's session ends. Harmless twice. */
	dispose(): void;
}

/** Builds the tool for one child. Rejects with `schema_invalid` (before any child starts) when the schema does not compile. */
export async function createStructuredOutputTool(schema: JsonSchema): Promise<StructuredOutputCapture> {
	const session = new SchemaSession();
	let compiled: CompiledSchema;
	try {
		compiled = await session.compileAgent(schema);
	} catch (error) {
		session.dispose();
		throw error;
	}
	let submitted = false;
	let value: unknown;
	let rejected = 0;
	const tool: ToolDefinition = {
		name: STRUCTURED_OUTPUT_TOOL_NAME,
		label: "Submit result",
		description:
			"Submit your final answer as structured data. Call this once, when you have the answer; the arguments " +
			"must match the parameter schema. If it reports errors, fix them and call it again.",
		// pi declares this schema to the model and checks calls against it, on the host's thread, before `execute`.
		parameters: piParameters(compiled.schema),
		executionMode: "sequential",
		async execute(_toolCallId, params) {
			if (submitted) {
				return textResult("A result was already recorded; this one is ignored. Stop now.", true);
			}
			// Rejects when the check was stopped (too slow): pi reports that to the child like any tool error.
			const checked = await compiled.validate(params, { root: "result" });
			if (!checked.ok) {
				rejected++;
				// A thrown error is how a pi tool reports failure; the model sees the message and can retry.
				throw new Error(
					`The result does not match the schema: ${checked.errors}. Fix these and call ${STRUCTURED_OUTPUT_TOOL_NAME} again.`,
				);
			}
			submitted = true;
			value = checked.value;
			return textResult("Result recorded. You are done: stop here, no further reply is needed.", true);
		},
	};
	return {
		tool,
		get submitted() {
			return submitted;
		},
		get value() {
			return value;
		},
		get rejected() {
			return rejected;
		},
		dispose: () => session.dispose(),
	};
}

/** Options of `structuredOutputPrompt`. */
export interface StructuredOutputPromptOptions {
	/** Validation errors of the previous attempt, so the child knows what to fix. */
	schemaFeedback?: string;
}

/** The task as the child sees it in a schema call: the prompt, how to submit, and what went wrong last time. */
export function structuredOutputPrompt(prompt: string, options: StructuredOutputPromptOptions = {}): string {
	const parts = [
		prompt,
		`When you have the answer, call the \`${STRUCTURED_OUTPUT_TOOL_NAME}\` tool once with it: its parameters are ` +
			"the JSON Schema your answer must match. Only what you submit there is used; your text reply is not.",
	];
	if (options.schemaFeedback) {
		parts.push(
			`A previous attempt at this task gave an answer that did not match the schema: ${options.schemaFeedback}. ` +
				"Make sure this answer does.",
		);
	}
	return parts.join("\n\n");
}

function textResult(text: string, terminate: boolean) {
	// `terminate` ends the run after this tool batch: the answer is in, another model turn would only cost tokens.
	return { content: [{ type: "text" as const, text }], details: undefined, terminate };
}
