/**
 * What a child needs of the machine it runs on (`agent()` option `placement`, an agent file's `placement:`):
 * labels a worker must have, labels it should rather have, and how long the child may wait for such a worker.
 * Only the queue reads it; a local run has one machine and ignores it. Pi-free and room-free, so the runtime's
 * option check, the agent files' reader and the queue share the one label rule.
 */

/** A call's placement, as the script or the agent file gave it. */
export interface WorkflowPlacement {
	/** Labels the worker must have, every one (`gpu`, `region=eu`). Default: none. */
	labels?: string[];
	/** Labels that rank the able workers: one with more of them is preferred. Default: none. */
	prefer?: string[];
	/** How long the child waits while no live worker has every required label, in ms. Default: the host's (60 s). */
	waitMs?: number;
}

/** Longest label, in characters. */
export const MAX_LABEL_LENGTH = 64;
/** Most labels in one list. */
export const MAX_LABELS = 16;

/** `name` or `name=value`: letters, digits and `._/-`, starting with a letter or digit; no `,` `+` `:` or spaces. */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._/-]*(=[A-Za-z0-9._/-]+)?$/;

/** What is wrong with a label, or undefined when it is one. */
export function labelProblem(label: unknown): string | undefined {
	if (typeof label !== "string") return `${JSON.stringify(label)} is not a string`;
	if (label.length > MAX_LABEL_LENGTH) return `"${label.slice(0, 20)}…" is longer than ${MAX_LABEL_LENGTH} characters`;
	if (!LABEL.test(label))
		return `${JSON.stringify(label)} is not a label (\`name\` or \`name=value\`: letters, digits and . _ / -)`;
	return undefined;
}

/** A label list in one canonical order without repeats: the same set is the same queue on every host. */
export function canonicalLabels(labels: readonly string[]): string[] {
	return [...new Set(labels)].sort();
}
