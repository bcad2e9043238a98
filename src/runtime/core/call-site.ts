/** Where in the author's file a host call was made, read from the guest stack the prelude sends with it. */
import type { SourceLocation } from "../../errors.ts";

/** The first frame of `stack` that is in `filename`, as a 1-based position. */
export function firstFrameIn(stack: string, filename: string): SourceLocation | undefined {
	for (const line of stack.split("\n")) {
		const at = line.lastIndexOf(`${filename}:`);
		if (at < 0) continue;
		const match = /^(\d+):(\d+)/.exec(line.slice(at + filename.length + 1));
		if (match) return { line: Number(match[1]), column: Number(match[2]) };
	}
	return undefined;
}
