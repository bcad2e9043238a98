/** What a call's key is made of, as a journal line keeps it (a leaf of the runtime's types: it imports nothing). */

/** The parts of a call's identity as a journal line keeps them: hashes of the long ones, the short ones as they are. */
export interface WorkflowCallIdentity {
	/** Hash of the prompt (16 hex digits of its sha256). */
	prompt: string;
	/** The prompt's first characters (`IDENTITY_PROMPT_CHARS` in replay-miss.ts), to say where an edited prompt differs. */
	promptHead: string;
	/** The prompt's length in characters. */
	promptChars: number;
	agentType: string;
	/** Hash of the schema, when the call had one. */
	schema?: string;
	/** Its top-level properties (name → hash of its schema) and `required`, to say how an edited schema differs. */
	schemaOutline?: { properties: Record<string, string>; required: string[] };
	model?: string;
	thinking?: string;
	/** Hash of the tool list, when the call named tools. */
	tools?: string;
	isolation?: string;
	/** `context` (`fresh`, `fork`, `fork-or-fresh`), when the call gave it. */
	context?: string;
	/** The call's index in the run that recorded it. */
	index: number;
}
