/** Branch and folder names for isolated children: `workflows/<runId>/<label-slug>`, path-safe and ref-safe. */

const MAX_SLUG = 48;

/** The branch prefix of a run's children. */
export function branchPrefix(runId: string): string {
	return `workflows/${runId}/`;
}

/** "Fix: parse() drops the last line" → "fix-parse-drops-the-last-line"; "agent" when nothing is left. */
export function labelSlug(label: string): string {
	const slug = label
		.normalize("NFKD")
		// Accents come apart from their letters under NFKD; dropping the marks keeps "é" as "e".
		.replace(/\p{M}+/gu, "")
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, MAX_SLUG)
		.replace(/-+$/g, "");
	return slug || "agent";
}

/** `slug`, else `slug-2`, `slug-3`… : the first that `taken` does not refuse. */
export async function firstFree(slug: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
	for (let n = 1; ; n++) {
		const candidate = n === 1 ? slug : `${slug}-${n}`;
		if (!(await taken(candidate))) return candidate;
	}
}
