/**
 * A small unified diff of two script texts, for a resume that ran an edited script: lines kept, removed and added
 * from a longest common subsequence of the lines between the common head and tail, in hunks with three lines of
 * context. Scripts are small; past `MAX_CELLS` the middle is shown as all removed, then all added.
 */

/** Lines of context around a change. */
const CONTEXT = 3;
/** The table of the longest common subsequence is bounded: beyond this the middle is replaced whole. */
const MAX_CELLS = 4_000_000;

type Op = { kind: " " | "-" | "+"; text: string; a: number; b: number };

/** `--- before` / `+++ after` and its hunks; "" when the texts are the same. */
export function unifiedDiff(before: string, after: string): string {
	if (before === after) return "";
	const ops = lineOps(before.split("\n"), after.split("\n"));
	const hunks: string[] = [];
	let i = 0;
	while (i < ops.length) {
		if ((ops[i] as Op).kind === " ") {
			i++;
			continue;
		}
		const start = Math.max(0, i - CONTEXT);
		let end = i;
		// A hunk runs on while the next change is within twice the context.
		while (end < ops.length) {
			let next = end;
			while (next < ops.length && (ops[next] as Op).kind === " ") next++;
			if (next >= ops.length || next - end > 2 * CONTEXT) break;
			while (next < ops.length && (ops[next] as Op).kind !== " ") next++;
			end = next;
		}
		const stop = Math.min(ops.length, end + CONTEXT);
		hunks.push(hunk(ops.slice(start, stop)));
		i = stop;
	}
	return ["--- before", "+++ after", ...hunks].join("\n");
}

function hunk(ops: Op[]): string {
	const first = ops[0] as Op;
	const aCount = ops.filter((op) => op.kind !== "+").length;
	const bCount = ops.filter((op) => op.kind !== "-").length;
	const header = `@@ -${first.a + 1},${aCount} +${first.b + 1},${bCount} @@`;
	return [header, ...ops.map((op) => `${op.kind}${op.text}`)].join("\n");
}

/** The edit script from `a` to `b`: common head, the middle by LCS, common tail. */
function lineOps(a: string[], b: string[]): Op[] {
	let head = 0;
	while (head < a.length && head < b.length && a[head] === b[head]) head++;
	let tail = 0;
	while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
	const ops: Op[] = [];
	for (let k = 0; k < head; k++) ops.push({ kind: " ", text: a[k] as string, a: k, b: k });
	ops.push(...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail), head));
	for (let k = tail; k > 0; k--) {
		const ai = a.length - k;
		ops.push({ kind: " ", text: a[ai] as string, a: ai, b: b.length - k });
	}
	return ops;
}

function middleOps(a: string[], b: string[], offset: number): Op[] {
	const n = a.length;
	const m = b.length;
	const removed = (i: number, j: number): Op => ({ kind: "-", text: a[i] as string, a: offset + i, b: offset + j });
	const added = (i: number, j: number): Op => ({ kind: "+", text: b[j] as string, a: offset + i, b: offset + j });
	if (n * m > MAX_CELLS) return [...a.map((_, i) => removed(i, 0)), ...b.map((_, j) => added(n, j))];
	// lcs[i][j]: the longest common subsequence of a[i..] and b[j..], in one flat table.
	const lcs = new Uint32Array((n + 1) * (m + 1));
	for (let i = n - 1; i >= 0; i--) {
		for (let j = m - 1; j >= 0; j--) {
			lcs[i * (m + 1) + j] =
				a[i] === b[j]
					? (lcs[(i + 1) * (m + 1) + j + 1] as number) + 1
					: Math.max(lcs[(i + 1) * (m + 1) + j] as number, lcs[i * (m + 1) + j + 1] as number);
		}
	}
	const ops: Op[] = [];
	let i = 0;
	let j = 0;
	while (i < n || j < m) {
		if (i < n && j < m && a[i] === b[j]) {
			ops.push({ kind: " ", text: a[i] as string, a: offset + i, b: offset + j });
			i++;
			j++;
		} else if (i < n && (j >= m || (lcs[(i + 1) * (m + 1) + j] as number) >= (lcs[i * (m + 1) + j + 1] as number))) {
			ops.push(removed(i, j));
			i++;
		} else {
			ops.push(added(i, j));
			j++;
		}
	}
	return ops;
}
