/**
 * The pages people and models read (the README, docs/, the shipped skills) and what the doc tests take from them:
 * fenced code blocks with their info string and line, headings as GitHub makes their anchors, and relative links.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/** Every page, as a path relative to the repository. */
export function docPages(): string[] {
	const docs = readdirSync(join(ROOT, "docs"))
		.filter((name) => name.endsWith(".md"))
		.map((name) => `docs/${name}`);
	const skills = readdirSync(join(ROOT, "skills"), { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith("SKILL.md"))
		.map((name) => relative(ROOT, join(ROOT, "skills", name)));
	return ["README.md", ...docs.sort(), ...skills.sort()];
}

export function readPage(page: string): string {
	return readFileSync(join(ROOT, page), "utf8");
}

export interface CodeBlock {
	/** The info string after the fence: `js`, `js fragment`, `sh`… */
	info: string;
	code: string;
	/** The line of the opening fence, from 1. */
	line: number;
}

/** The fenced code blocks of a page (``` fences, not indented). */
export function codeBlocks(text: string): CodeBlock[] {
	const blocks: CodeBlock[] = [];
	const lines = text.split("\n");
	let open: CodeBlock | undefined;
	for (const [i, line] of lines.entries()) {
		if (!line.startsWith("```")) {
			if (open) open.code += `${line}\n`;
			continue;
		}
		if (open) {
			blocks.push(open);
			open = undefined;
		} else open = { info: line.slice(3).trim(), code: "", line: i + 1 };
	}
	return blocks;
}

/** The lines of a page outside its code blocks, with their numbers. */
export function proseLines(text: string): { line: number; text: string }[] {
	let fenced = false;
	const out: { line: number; text: string }[] = [];
	for (const [i, line] of text.split("\n").entries()) {
		if (line.startsWith("```")) fenced = !fenced;
		else if (!fenced) out.push({ line: i + 1, text: line });
	}
	return out;
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as `-`. */
export function headingAnchor(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
		.replace(/\s/g, "-");
}

/** Every anchor a page has: its headings' (a repeated one gets `-1`, `-2`…) and explicit `<a id>` ones. */
export function pageAnchors(text: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const { text: line } of proseLines(text)) {
		const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
		if (heading !== undefined) {
			const base = headingAnchor(heading);
			const count = seen.get(base) ?? 0;
			seen.set(base, count + 1);
			anchors.add(count === 0 ? base : `${base}-${count}`);
		}
		for (const id of line.matchAll(/<a id="([^"]+)"/g)) if (id[1]) anchors.add(id[1]);
	}
	return anchors;
}

export interface Link {
	target: string;
	line: number;
}

/** The relative links of a page (`[text](target)` and images), outside code blocks and inline code. */
export function relativeLinks(text: string): Link[] {
	const links: Link[] = [];
	for (const { line, text: prose } of proseLines(text)) {
		const withoutCode = prose.replace(/`[^`]*`/g, "");
		for (const match of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
			const target = match[1] ?? "";
			if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, line });
		}
	}
	return links;
}
