/**
 * The cost fields of a journal, read streaming and bounded: what an estimate needs of each finished call (its key,
 * kind, label, agent type, model, phase, usage and cost), never its answer. A line is read in chunks; only its first
 * `HEAD_BYTES` and last `TAIL_BYTES` are kept, so a 7 MiB answer costs a pass over its bytes and no memory; the
 * fields after the answer are read from the kept tail. Reading stops once the caller's byte budget is spent; a file
 * that is not a regular file (a FIFO, a device) is not read.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** What a journal line says of a call's cost. */
export interface CostLine {
	key: string;
	kind?: string;
	label?: string;
	agentType?: string;
	model?: string;
	phase?: string;
	usage?: unknown;
	cost?: unknown;
}

/** Bytes of journal a reader may still read; shared by every journal of one history, decremented as they are read. */
export interface ByteBudget {
	left: number;
}

/** A line's first bytes kept: its key and kind come first. */
const HEAD_BYTES = 4 * 1024;
/** A line's last bytes kept: every field after the answer (usage, cost, model, labels, identity) fits. */
const TAIL_BYTES = 64 * 1024;
/** Bytes read at a time. */
const CHUNK_BYTES = 64 * 1024;
/** Fields a journal line writes after `value`, in the order the journal writes them. */
const AFTER_VALUE = /,"(usage|cost|model|agentId|label|agentType|phase|identity|transcripts)":/g;
/** Candidate starts tried in a long line's tail before it is given up. */
const TAIL_TRIES = 16;

/**
 * The cost lines of the journal at `path` (the last line of a key wins, as a resume loads it), and whether it was read
 * to its end (false: the budget ran out first). A missing file has none; a line that cannot be read is left out.
 */
export async function readCostLines(
	path: string,
	budget: ByteBudget,
): Promise<{ lines: Map<string, CostLine>; complete: boolean }> {
	const lines = new Map<string, CostLine>();
	// O_NONBLOCK: a FIFO in a run's folder does not wait for a writer; anything but a regular file is passed over.
	const file = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => undefined);
	if (!file) return { lines, complete: true };
	if (!(await file.stat()).isFile()) {
		await file.close();
		return { lines, complete: false };
	}
	const line = new LineParts();
	const take = () => {
		const parsed = line.parse();
		if (parsed) {
			lines.delete(parsed.key);
			lines.set(parsed.key, parsed);
		}
		line.reset();
	};
	try {
		const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
		for (;;) {
			if (budget.left <= 0) return { lines, complete: false };
			const { bytesRead } = await file.read(chunk, 0, Math.min(CHUNK_BYTES, budget.left), null);
			if (bytesRead === 0) break;
			budget.left -= bytesRead;
			let start = 0;
			for (let at = chunk.indexOf(10, start); at >= 0 && at < bytesRead; at = chunk.indexOf(10, start)) {
				line.add(chunk.subarray(start, at));
				take();
				start = at + 1;
			}
			line.add(chunk.subarray(start, bytesRead));
		}
		// A last line without its newline: read like the others (a torn one does not parse and is left out).
		if (line.length > 0) take();
		return { lines, complete: true };
	} finally {
		await file.close();
	}
}

/** One line as it streams by: its length, its head and its tail. */
class LineParts {
	length = 0;
	#head: Buffer[] = [];
	#headBytes = 0;
	#tail: Buffer = Buffer.alloc(0);

	add(bytes: Buffer): void {
		if (bytes.length === 0) return;
		this.length += bytes.length;
		if (this.#headBytes < HEAD_BYTES) {
			const part = Buffer.from(bytes.subarray(0, HEAD_BYTES - this.#headBytes));
			this.#head.push(part);
			this.#headBytes += part.length;
		}
		const joined = Buffer.concat([this.#tail, bytes]);
		this.#tail = Buffer.from(joined.subarray(Math.max(0, joined.length - TAIL_BYTES)));
	}

	reset(): void {
		this.length = 0;
		this.#head = [];
		this.#headBytes = 0;
		this.#tail = Buffer.alloc(0);
	}

	/** The line's cost fields, or undefined when it holds none that can be read. */
	parse(): CostLine | undefined {
		if (this.length <= TAIL_BYTES) return costFields(parseObject(this.#tail.toString("utf8")));
		// A long line: its key and kind from the head, the rest from the tail (its answer is what made it long).
		const head = /^\{"key":("(?:[^"\\]|\\.)*")(?:,"kind":("(?:[^"\\]|\\.)*"))?/.exec(
			Buffer.concat(this.#head).toString("utf8"),
		);
		const key = head?.[1] ? parseObject(`{"k":${head[1]}}`)?.k : undefined;
		if (typeof key !== "string") return undefined;
		if (head?.[2]) return { key, kind: String(parseObject(`{"k":${head[2]}}`)?.k) };
		const tail = this.#tail.toString("utf8");
		let tries = 0;
		// The leftmost field after the answer that starts a whole object to the line's end; a field of the same name
		// inside the answer does not close where the line does, so it does not parse.
		for (const match of tail.matchAll(AFTER_VALUE)) {
			if (tries++ >= TAIL_TRIES) break;
			const rest = parseObject(`{${tail.slice(match.index + 1)}`);
			if (rest) return costFields({ ...rest, key });
		}
		return { key };
	}
}

function parseObject(text: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return typeof value === "object" && value !== null && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

function costFields(entry: Record<string, unknown> | undefined): CostLine | undefined {
	if (!entry || typeof entry.key !== "string" || entry.key === "") return undefined;
	const text = (name: string) => (typeof entry[name] === "string" ? { [name]: entry[name] as string } : {});
	return {
		key: entry.key,
		...text("kind"),
		...text("label"),
		...text("agentType"),
		...text("model"),
		...text("phase"),
		...(entry.usage !== undefined ? { usage: entry.usage } : {}),
		...(entry.cost !== undefined ? { cost: entry.cost } : {}),
	};
}
