/**
 * A file a person names on a command line for its data (`--args @file`, `--answers @file`): read as the agent files
 * are, a regular file only and bounded, because a committed link to `/dev/zero` or a FIFO would otherwise fill memory
 * or hang the command (in CI too). The bound is the sandbox's largest value: args bigger could never reach a script.
 */
import { type RegularFileRead, readRegularFile } from "../agents/regular-file.ts";

/** The most bytes an input file may hold: 8 MiB, the largest value that crosses into the sandbox. */
export const INPUT_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** The text of `path` when it is a regular file (links followed) of at most `INPUT_FILE_MAX_BYTES`; never blocks. */
export function readInputFile(path: string): RegularFileRead {
	return readRegularFile(path, INPUT_FILE_MAX_BYTES);
}
