/** What every row gets: the size of the run and a place to say what it is doing. */

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

/** Samples to take: `full` normally, `quick` under `--quick`. */
export function samples(context: BenchContext, full: number, quick: number): number {
	return context.quick ? quick : full;
}
