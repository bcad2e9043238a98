/**
 * A string that matches a schema's `pattern`, made without search: a small generator for what models and scripts
 * write (literals, classes, `.`, alternations, groups, bounded and open repeats, anchors, `\d \w \s` and their
 * negations), each candidate checked with RE2 (the engine the schema checks run), so a match is a match. Patterns
 * it cannot read (lookarounds, back-references) or meet within the lengths asked give undefined: the caller says so.
 */
import { loadRe2 } from "../schema/lazy-deps.ts";

type Node =
	| { kind: "text"; char: string }
	| { kind: "set"; ranges: [number, number][]; negated: boolean }
	| { kind: "seq"; items: Node[] }
	| { kind: "alt"; options: Node[] }
	| { kind: "repeat"; node: Node; min: number; max: number }
	| { kind: "empty" };

/** How long a pattern may be for the generator to read it; longer ones are left to the caller's message. */
const MAX_PATTERN_LENGTH = 2000;
/** The most characters one open repeat (`*`, `+`, `{n,}`) adds to reach a `minLength`. */
const MAX_STRETCH = 4096;
/** The longest text made for a pattern: some twenty are made and checked, so this bounds the time it takes. */
export const MAX_PATTERN_TEXT = 64 * 1024;

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
 * A string of `minLength`…`maxLength` characters that `pattern` matches, varied by `index` where the pattern allows
 * a choice (its alternations, its classes): `preferred` (a format's sample) when it matches, else one made for the
 * pattern; undefined when none was found.
 */
export function patternSample(
	pattern: string,
	index: number,
	minLength: number,
	maxLength: number,
	preferred?: string,
): string | undefined {
	if (pattern.length > MAX_PATTERN_LENGTH || minLength > MAX_PATTERN_TEXT) return undefined;
	const longest = Math.min(maxLength, MAX_PATTERN_TEXT);
	let test: (text: string) => boolean;
	try {
		const RE2JS = loadRe2();
		const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
		test = (text) => text.length >= minLength && text.length <= maxLength && compiled.test(text);
	} catch {
		return undefined;
	}
	if (preferred !== undefined && test(preferred)) return preferred;
	let node: Node;
	try {
		node = new Parser(pattern).parse();
	} catch {
		return undefined;
	}
	for (const variant of index === 0 ? [0] : [index, 0]) {
		const found = stretched(node, variant, minLength, longest, test);
		if (found !== undefined) return found;
	}
	return undefined;
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
): string | undefined {
	/** The text at `stretch`; undefined when it is longer than `maxLength`. */
	const at = (stretch: number): string | undefined => {
		try {
			return generate(node, { variant, stretch, budget: { left: maxLength } });
		} catch {
			return undefined;
		}
	};
	let short = -1;
	let stretch = 0;
	let text = at(0);
	while (text !== undefined && text.length < minLength && stretch < MAX_STRETCH) {
		short = stretch;
		stretch = stretch === 0 ? 1 : stretch * 2;
		text = at(stretch);
	}
	let long = stretch;
	while ((text === undefined || text.length > maxLength) && long - short > 1) {
		const middle = Math.floor((short + long) / 2);
		const candidate = at(middle);
		if (candidate !== undefined && candidate.length >= minLength) {
			long = middle;
			text = candidate;
		} else short = middle;
	}
	return text !== undefined && test(text) ? text : undefined;
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
	switch (node.kind) {
		case "text":
			if (--choice.budget.left < 0) throw new Error("too long");
			return node.char;
		case "empty":
			return "";
		case "seq":
			return node.items.map((item) => generate(item, choice)).join("");
		case "alt":
			return generate(node.options[choice.variant % node.options.length] as Node, choice);
		case "set":
			if (--choice.budget.left < 0) throw new Error("too long");
			return setMember(node, choice.variant);
		case "repeat": {
			const count = Math.min(node.max, node.min + choice.stretch);
			let text = "";
			for (let i = 0; i < count; i++) text += generate(node.node, { ...choice, variant: choice.variant + i });
			return text;
		}
	}
}

function setMember(node: Extract<Node, { kind: "set" }>, variant: number): string {
	const inSet = (code: number) => node.ranges.some(([low, high]) => code >= low && code <= high);
	if (node.negated) {
		const plain = [...PLAIN].find((char) => !inSet(char.charCodeAt(0)));
		return plain ?? "\u00e9";
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
