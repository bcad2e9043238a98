/** The saved workflow the grant tests run: one `tool("bash")` step that echoes a word, so a one-word edit changes its digest. */
import { createHash } from "node:crypto";

export const gateWorkflow = (word: string): string =>
	`export const meta = { name: "gate", description: "runs the gate" };\nconst r = await tool("bash", { command: "echo ${word}" });\nreturn r.output.trim();\n`;

export const sha256Of = (text: string): string => createHash("sha256").update(text).digest("hex");
