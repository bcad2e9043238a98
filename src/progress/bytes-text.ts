/** Sizes for people: `512 B`, `12 KiB`, `3.4 MiB`, `1.2 GiB` (powers of 1024, as `du -h` counts). */

const UNITS = ["KiB", "MiB", "GiB", "TiB"];

/** `bytes` as a short size; a number that is not a size reads as `0 B`. */
export function formatBytes(bytes: number): string {
	if (!Number.isFinite(bytes) || bytes < 1024)
		return `${Number.isFinite(bytes) && bytes > 0 ? Math.round(bytes) : 0} B`;
	let value = bytes;
	let unit = "B";
	for (const next of UNITS) {
		if (value < 1024) break;
		value /= 1024;
		unit = next;
	}
	return `${value < 10 ? value.toFixed(1).replace(/\.0$/, "") : Math.round(value)} ${unit}`;
}
