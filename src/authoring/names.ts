/** "Did you mean …?": the nearest known name by case and edit distance. */

/** The candidate `name` most likely meant, or undefined when none is close enough to suggest. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
	const lower = name.toLowerCase();
	let best: string | undefined;
	let bestDistance = Number.POSITIVE_INFINITY;
	// One edit per three letters, at least one from three letters on: `agnet` → `agent`, `a` → nothing.
	const allowed = name.length < 3 ? 0 : Math.max(1, Math.floor(name.length / 3));
	for (const candidate of candidates) {
		if (candidate === name) continue;
		if (candidate.toLowerCase() === lower) return candidate;
		if (Math.abs(candidate.length - name.length) > allowed) continue;
		const distance = editDistance(lower, candidate.toLowerCase(), allowed);
		if (distance < bestDistance) {
			best = candidate;
			bestDistance = distance;
		}
	}
	return bestDistance <= allowed ? best : undefined;
}

/** Optimal-string-alignment distance (a swap of neighbours counts one), given up past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
	let before: number[] = [];
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const row = [i];
		let rowMin = i;
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let value = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
				value = Math.min(value, (before[j - 2] ?? 0) + 1);
			}
			row.push(value);
			rowMin = Math.min(rowMin, value);
		}
		if (rowMin > limit) return rowMin;
		before = previous;
		previous = row;
	}
	return previous[b.length] ?? 0;
}
