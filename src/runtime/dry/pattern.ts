/**
 * A string that matches a schema's `pattern`, made without search: a small generator for what models and scripts
 * write (literals, classes, `.`, alternations, groups, bounded and open repeats, anchors, `\d \w \s` and their
 * negations), each candidate checked with RE2 (the engine the schema checks run), so a match is a match. Patterns
 * it cannot read (lookarounds, back-references) or meet within the lengths asked give undefined: the caller says so.
 */
import { loadRe2 } from "../schema/lazy-deps.ts";

type Node =
	| { kind: "text"; char: string }
	| { kind: "set"; ranges: [number, number][]; negated: boolean; outside?: string }
	| { kind: "seq"; items: Node[] }
	| { kind: "alt"; options: Node[] }
	| { kind: "repeat"; node: Node; min: number; max: number }
	| { kind: "empty" };

/** How long a pattern may be for the generator to read it; longer ones are left to the caller's message. */
const MAX_PATTERN_LENGTH = 2000;
/** The longest text made for a pattern: some thirty are made and checked for one string. */
const MAX_PATTERN_TEXT = 4096;
/** The most rounds one open repeat (`*`, `+`, `{n,}`) adds to reach a `minLength`. */
const MAX_STRETCH = MAX_PATTERN_TEXT;

const DIGIT: [number, number][] = [[0x30, 0x39]];
const WORD: [number, number][] = [
	[0x61, 0x7a],
	[0x41, 0x5a],
	[0x30, 0x39],
	[0x5f, 0x5f],
];
const SPACE: [number, number][] = [
	[0x20, 0x20],
	[0x09, 0x0d],
];
/** Characters tried, in order, for a negated class or a `.`: plain ones first. */
const PLAIN = "xa0_-.Z9 ";

/**
 * Strings that match one pattern, for the items of one sample: the pattern read and compiled once, and the stretch
 * that met a length kept, so a thousand items of one schema cost about one search.
 */
export class PatternSampler {
	readonly #node: Node;
	readonly #test: (text: string) => boolean;
	/** The stretch that met a `minLength` last time, tried first. */
	readonly #stretches = new Map<string, number>();
	/** Characters made so far, kept or not: what meeting this pattern has cost the sample. */
	work = 0;

	private constructor(node: Node, test: (text: string) => boolean) {
		this.#node = node;
		this.#test = test;
	}

	/** The sampler of `pattern`; undefined for one this generator cannot read or RE2 cannot compile. */
	static of(pattern: string): PatternSampler | undefined {
		if (pattern.length > MAX_PATTERN_LENGTH) return undefined;
		try {
			const RE2JS = loadRe2();
			const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
			return new PatternSampler(new Parser(pattern).parse(), (text) => compiled.test(text));
		} catch {
			return undefined;
		}
	}

	/**
	 * A string of `minLength`…`maxLength` characters that matches, varied by `index` where the pattern allows a choice
	 * (its alternations, its classes): `preferred` (a format's sample) when it matches, else one made for the pattern;
	 * undefined when none was found.
	 */
	sample(index: number, minLength: number, maxLength: number, preferred?: string): string | undefined {
		if (minLength > MAX_PATTERN_TEXT) return undefined;
		const test = (text: string) => text.length >= minLength && text.length <= maxLength && this.#test(text);
		if (preferred !== undefined && test(preferred)) return preferred;
		// By `minLength` alone: the `maxLength` callers pass shrinks as the sample fills, the stretch does not.
		const key = String(minLength);
		const longest = Math.min(maxLength, MAX_PATTERN_TEXT);
		for (const variant of index === 0 ? [0] : [index, 0]) {
			const hint = this.#stretches.get(key);
			const found = stretched(this.#node, variant, minLength, longest, test, hint, (made) => {
				this.work += made;
			});
			if (found === undefined) continue;
			this.#stretches.set(key, found.stretch);
			return found.text;
		}
		return undefined;
	}
}

/**
 * The text of `node` whose repeats are stretched just enough for `minLength`: doubling the stretch until the text is
 * long enough, then halving back between the last too short and the first too long. Its length only grows with
 * the stretch, so this tries some twenty texts at most.
 */
function stretched(
	node: Node,
	variant: number,
	minLength: number,
	maxLength: number,
	test: (text: string) => boolean,
	hint: number | undefined,
	made: (chars: number) => void,
): { text: string; stretch: number } | undefined {
	/** The text at `stretch`; undefined when it is longer than `maxLength`. */
	const at = (stretch: number): string | undefined => {
		const budget = { left: maxLength };
		try {
			return generate(node, { variant, stretch, budget });
		} catch {
			return undefined;
		} finally {
			made(maxLength - Math.max(0, budget.left));
		}
	};
	if (hint !== undefined) {
		const text = at(hint);
		if (text !== undefined && test(text)) return { text, stretch: hint };
	}
	let short = -1;
	let stretch = 0;
	let text = at(0);
	while (text !== undefined && text.length < minLength && stretch < MAX_STRETCH) {
		short = stretch;
		stretch = stretch === 0 ? 1 : stretch * 2;
		text = at(stretch);
	}
	// `text` is undefined only when too long (over `maxLength`): look between the last too short and it.
	let long = stretch;
	while (text === undefined && long - short > 1) {
		const middle = Math.floor((short + long) / 2);
		const candidate = at(middle);
		if (candidate === undefined) long = middle;
		else if (candidate.length < minLength) short = middle;
		else {
			long = middle;
			text = candidate;
		}
	}
	return text !== undefined && test(text) ? { text, stretch: long } : undefined;
}

interface Choice {
	/** Picks among alternatives and class members. */
	variant: number;
	/** Extra rounds each repeat takes beyond its minimum, up to its maximum. */
	stretch: number;
	/** Characters still allowed: generation stops (throws) past it, so `(a{1000}){1000}` costs no more than this. */
	budget: { left: number };
}

function generate(node: Node, choice: Choice): string {
	const out: string[] = [];
	emit(node, choice.variant, choice, out);
	return out.join("");
}

/** Appends `node`'s text to `out`, one character at a time, within the budget. */
function emit(node: Node, variant: number, choice: Choice, out: string[]): void {
	switch (node.kind) {
		case "text":
		case "set":
			if (--choice.budget.left < 0) throw new Error("too long");
			out.push(node.kind === "text" ? node.char : setMember(node, variant));
			return;
		case "empty":
			return;
		case "seq":
			for (const item of node.items) emit(item, variant, choice, out);
			return;
		case "alt":
			emit(node.options[variant % node.options.length] as Node, variant, choice, out);
			return;
		case "repeat": {
			const count = Math.min(node.max, node.min + choice.stretch);
			for (let i = 0; i < count; i++) emit(node.node, variant + i, choice, out);
			return;
		}
	}
}

/** A member of the set, varied by `variant`; for a negated set, the first plain character it leaves out. */
function setMember(node: Extract<Node, { kind: "set" }>, variant: number): string {
	if (node.negated) {
		node.outside ??=
			[...PLAIN].find(
				(char) => !node.ranges.some(([low, high]) => char.charCodeAt(0) >= low && char.charCodeAt(0) <= high),
			) ?? "\u00e9";
		return node.outside;
	}
	const [low, high] = node.ranges[variant % node.ranges.length] ?? [0x78, 0x78];
	return String.fromCodePoint(low + (variant % (high - low + 1)));
}

/** A recursive-descent reader of the pattern syntax above; throws on anything else. */
class Parser {
	readonly #source: string;
	#at = 0;

	constructor(source: string) {
		this.#source = source;
	}

	parse(): Node {
		const node = this.#alternation();
		if (this.#at < this.#source.length) throw new Error(`unexpected ${this.#source[this.#at]}`);
		return node;
	}

	#alternation(): Node {
		const options = [this.#sequence()];
		while (this.#peek() === "|") {
			this.#at++;
			options.push(this.#sequence());
		}
		return options.length === 1 ? (options[0] as Node) : { kind: "alt", options };
	}

	#sequence(): Node {
		const items: Node[] = [];
		while (this.#at < this.#source.length && this.#peek() !== "|" && this.#peek() !== ")") {
			items.push(this.#quantified(this.#atom()));
		}
		return { kind: "seq", items };
	}

	#atom(): Node {
		const char = this.#source[this.#at++] as string;
		switch (char) {
			case "^":
			case "$":
				return { kind: "empty" };
			case ".":
				return { kind: "set", ranges: [[0x0a, 0x0a]], negated: true };
			case "[":
				return this.#set();
			case "(":
				return this.#group();
			case "\\":
				return this.#escape(false);
			case "*":
			case "+":
			case "?":
				throw new Error(`nothing to repeat at ${this.#at}`);
			default:
				return { kind: "text", char };
		}
	}

	#group(): Node {
		if (this.#source.startsWith("?:", this.#at)) this.#at += 2;
		else if (this.#source.startsWith("?<", this.#at) && !/^\?<[=!]/.test(this.#source.slice(this.#at))) {
			const end = this.#source.indexOf(">", this.#at);
			if (end < 0) throw new Error("unclosed group name");
			this.#at = end + 1;
		} else if (this.#peek() === "?") throw new Error("lookaround");
		const node = this.#alternation();
		if (this.#source[this.#at++] !== ")") throw new Error("unclosed group");
		return node;
	}

	#set(): Node {
		const negated = this.#peek() === "^";
		if (negated) this.#at++;
		const ranges: [number, number][] = [];
		let first = true;
		while (this.#at < this.#source.length && (this.#peek() !== "]" || first)) {
			first = false;
			const low = this.#setChar();
			if (Array.isArray(low)) {
				ranges.push(...low);
				continue;
			}
			if (this.#peek() === "-" && this.#source[this.#at + 1] !== "]" && this.#at + 1 < this.#source.length) {
				this.#at++;
				const high = this.#setChar();
				if (Array.isArray(high) || high < low) throw new Error("bad range");
				ranges.push([low, high]);
			} else ranges.push([low, low]);
		}
		if (this.#source[this.#at++] !== "]") throw new Error("unclosed class");
		return { kind: "set", ranges, negated };
	}

	/** One member of a class: a code point, or the ranges of a class escape (`\d` inside `[…]`). */
	#setChar(): number | [number, number][] {
		const char = this.#source[this.#at++] as string;
		if (char !== "\\") return char.codePointAt(0) as number;
		const escaped = this.#escape(true);
		if (escaped.kind === "text") return escaped.char.codePointAt(0) as number;
		if (escaped.kind === "set" && !escaped.negated) return escaped.ranges;
		throw new Error("negated class escape inside a class");
	}

	#escape(inSet: boolean): Node {
		const char = this.#source[this.#at++];
		if (char === undefined) throw new Error("trailing backslash");
		const set = (ranges: [number, number][], negated: boolean): Node => ({ kind: "set", ranges, negated });
		switch (char) {
			case "d":
				return set(DIGIT, false);
			case "D":
				return set(DIGIT, true);
			case "w":
				return set(WORD, false);
			case "W":
				return set(WORD, true);
			case "s":
				return set(SPACE, false);
			case "S":
				return set(SPACE, true);
			case "n":
				return { kind: "text", char: "\n" };
			case "t":
				return { kind: "text", char: "\t" };
			case "r":
				return { kind: "text", char: "\r" };
			case "f":
				return { kind: "text", char: "\f" };
			case "v":
				return { kind: "text", char: "\v" };
			case "b":
			case "B":
				if (inSet) throw new Error("\\b in a class");
				return { kind: "empty" };
			case "x":
				return { kind: "text", char: this.#hex(2) };
			case "u":
				return { kind: "text", char: this.#hex(4) };
			default:
				if (/[0-9a-zA-Z]/.test(char)) throw new Error(`unsupported escape \\${char}`);
				return { kind: "text", char };
		}
	}

	#hex(digits: number): string {
		const text = this.#source.slice(this.#at, this.#at + digits);
		if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(text)) throw new Error("bad hex escape");
		this.#at += digits;
		return String.fromCharCode(Number.parseInt(text, 16));
	}

	#quantified(node: Node): Node {
		let result = node;
		for (;;) {
			const char = this.#peek();
			let bounds: [number, number] | undefined;
			if (char === "*") bounds = [0, Number.POSITIVE_INFINITY];
			else if (char === "+") bounds = [1, Number.POSITIVE_INFINITY];
			else if (char === "?") bounds = [0, 1];
			else if (char === "{") bounds = this.#braces();
			if (!bounds) return result;
			if (char !== "{") this.#at++;
			// A lazy or possessive marker changes which match is found, not which strings match.
			if (this.#peek() === "?" || this.#peek() === "+") this.#at++;
			result = { kind: "repeat", node: result, min: bounds[0], max: bounds[1] };
		}
	}

	/** `{n}`, `{n,}`, `{n,m}` at the cursor (consumed), else undefined and a literal `{`. */
	#braces(): [number, number] | undefined {
		const match = /^\{(\d+)(,(\d*))?\}/.exec(this.#source.slice(this.#at));
		if (!match) return undefined;
		this.#at += match[0].length;
		const min = Number(match[1]);
		const max = match[2] === undefined ? min : match[3] === "" ? Number.POSITIVE_INFINITY : Number(match[3]);
		if (max < min) throw new Error("bad repeat bounds");
		return [min, max];
	}

	#peek(): string | undefined {
		return this.#source[this.#at];
	}
}
