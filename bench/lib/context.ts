/** What every row gets: the size of the run and a place to say what it is doing. */
import { ENGINES, type EngineName } from "./engines.ts";

/** The bench's settings for one `npm run bench`. */
export interface BenchContext {
	/** `--quick`: fewer samples, for a fast check. */
	quick: boolean;
	/** The repository root. */
	root: URL;
	/** A progress line on stderr (the table goes to stdout). */
	log(message: string): void;
	/** Directory of a built copy of the package (rows 4 and 5 measure it too), or why there is none. */
	built: { dir: string } | { error: string };
}

/**
 * The engines a row compares: `--quick` leaves out node:vm (the peers' design, shown beside the baseline; the ratios
 * are to plain JavaScript, which every run keeps).
 */
export function enginesFor(context: BenchContext): readonly EngineName[] {
	return context.quick ? ENGINES.filter((engine) => engine !== "node:vm") : ENGINES;
}

/** Samples to take: `full` normally, `quick` under `--quick`. */
export function samples(context: BenchContext, full: number, quick: number): number {
	return context.quick ? quick : full;
}
