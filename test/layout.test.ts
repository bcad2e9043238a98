/**
 * The map of `src/` (DEVELOPERS.md, "Layout"): which room may import which, no import cycles between files, and rooms
 * and files small enough to find one's way in. A new room gets a row here and a line in DEVELOPERS.md.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * Each room and the rooms it may import values from (`types` adds rooms it may take types from only). A room is a
 * folder of `src/` or of `src/pi/` or `src/runtime/`; a top-level file is its own room. Packages are not checked
 * here: the per-folder tests and the entry tests do that.
 */
const ROOMS: Record<string, { values: string[]; types?: string[] }> = {
	"errors.ts": { values: [] },
	sandbox: { values: ["errors.ts"] },
	authoring: { values: ["errors.ts"], types: ["runtime"] },
	"runtime/schema": { values: ["errors.ts", "sandbox", "runtime"] },
	"runtime/meta": { values: ["errors.ts", "authoring", "runtime/schema"], types: ["runtime"] },
	"runtime/agent": { values: ["errors.ts", "authoring", "runtime", "runtime/schema", "runtime/spend"] },
	"runtime/spend": { values: ["errors.ts", "authoring", "runtime"] },
	"runtime/tool": { values: ["errors.ts", "authoring", "runtime", "runtime/agent"] },
	runtime: {
		values: [
			"errors.ts",
			"sandbox",
			"authoring",
			"runtime/schema",
			"runtime/meta",
			"runtime/agent",
			"runtime/spend",
			"runtime/tool",
			"telemetry",
		],
	},
	telemetry: { values: [], types: ["runtime"] },
	progress: { values: [], types: ["errors.ts", "runtime"] },
	runs: { values: ["errors.ts"], types: ["runtime"] },
	worktree: { values: ["errors.ts"] },
	report: { values: ["errors.ts", "runs", "progress", "runtime/agent"], types: ["runtime"] },
	"pi/agents": { values: ["errors.ts"] },
	"pi/children": {
		values: ["errors.ts", "runs", "worktree", "runtime/schema", "runtime/spend", "pi/agents"],
		types: ["runtime", "progress"],
	},
	queue: {
		values: ["errors.ts", "worktree", "pi/agents", "pi/children"],
		types: ["runtime"],
	},
	"pi/runs": { values: ["errors.ts", "runtime", "progress", "report"], types: ["runs", "pi/children"] },
	"pi/tool": {
		values: [
			"errors.ts",
			"authoring",
			"runtime",
			"runtime/agent",
			"runtime/meta",
			"progress",
			"runs",
			"pi/agents",
			"pi/children",
			"pi/runs",
		],
	},
	pi: { values: ["runtime", "sandbox", "runs", "pi/agents", "pi/children", "pi/runs", "pi/tool", "queue"] },
	cli: {
		values: [
			"errors.ts",
			"runtime",
			"runtime/agent",
			"runtime/meta",
			"progress",
			"runs",
			"report",
			"pi/runs",
			"pi/tool",
			"pi.ts",
			"telemetry",
			"queue",
		],
	},
	"index.ts": { values: ["errors.ts", "sandbox", "runtime", "progress", "runs", "report"], types: ["authoring"] },
	"pi.ts": { values: ["pi", "progress"] },
};

/** Types-only cycles kept on purpose: `types.ts` is the runtime's public vocabulary and names the event union in `onProgress`; `events.ts` builds that union from its types. */
const KEPT_TYPE_CYCLES = [["runtime/events.ts", "runtime/types.ts"]];

/** Source files a folder may hold directly, and lines a file may have. */
const MAX_FILES_PER_FOLDER = 20;
const MAX_LINES_PER_FILE = 500;

interface Edge {
	to: string;
	typeOnly: boolean;
}

function sourceFiles(dir = SRC, out: string[] = []): string[] {
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) sourceFiles(path, out);
		else if (/\.(ts|js)$/.test(name)) out.push(relative(SRC, path));
	}
	return out;
}

const FILES = sourceFiles();
const TS_FILES = FILES.filter((file) => file.endsWith(".ts"));

function edgesOf(file: string): Edge[] {
	const source = readFileSync(join(SRC, file), "utf8");
	return [...source.matchAll(/^(?:import|export)\s(type\s)?([^;]*?)from\s+"(\.[^"]+)";/gms)].map((match) => {
		const names = /^\{([^}]*)\}\s*$/s.exec((match[2] ?? "").trim())?.[1];
		const everyNameIsType =
			names
				?.split(",")
				.map((name) => name.trim())
				.filter(Boolean)
				.every((name) => name.startsWith("type ")) === true;
		return {
			to: relative(SRC, resolve(dirname(join(SRC, file)), match[3] ?? "")),
			typeOnly: match[1] !== undefined || everyNameIsType,
		};
	});
}

function roomOf(file: string): string {
	const parts = file.split("/");
	if ((parts[0] === "pi" || parts[0] === "runtime") && parts.length > 2) return `${parts[0]}/${parts[1]}`;
	return parts.length > 1 ? (parts[0] ?? file) : file;
}

describe("src/ layout", () => {
	it("every file is in a room of the map", () => {
		const unmapped = [...new Set(TS_FILES.map(roomOf))].filter((room) => !(room in ROOMS));
		expect(unmapped, "add the room to ROOMS here and to DEVELOPERS.md").toEqual([]);
	});

	it.each(TS_FILES)("%s imports only the rooms its room may", (file) => {
		const room = roomOf(file);
		const rule = ROOMS[room] ?? { values: [] };
		for (const edge of edgesOf(file)) {
			const target = roomOf(edge.to);
			if (target === room) continue;
			if (rule.values.includes(target)) continue;
			if (edge.typeOnly && rule.types?.includes(target)) continue;
			expect.fail(`${file} imports ${edge.typeOnly ? "types" : "values"} from ${edge.to} (room ${target})`);
		}
	});

	it("no import cycle between files, but the types-only ones kept on purpose", () => {
		const graph = new Map(TS_FILES.map((file) => [file, edgesOf(file).map((edge) => edge.to)]));
		const cycles = stronglyConnected(graph).map((files) => files.sort());
		expect(cycles).toEqual(KEPT_TYPE_CYCLES);
		for (const cycle of KEPT_TYPE_CYCLES) {
			for (const file of cycle) {
				const inCycle = edgesOf(file).filter((edge) => cycle.includes(edge.to));
				expect(
					inCycle.every((edge) => edge.typeOnly),
					`${file} imports values inside a kept cycle`,
				).toBe(true);
			}
		}
	});

	it(`no folder holds more than ${MAX_FILES_PER_FOLDER} source files directly`, () => {
		const counts = new Map<string, number>();
		for (const file of FILES) counts.set(dirname(file), (counts.get(dirname(file)) ?? 0) + 1);
		const crowded = [...counts].filter(([, count]) => count > MAX_FILES_PER_FOLDER);
		expect(crowded).toEqual([]);
	});

	it(`no file is longer than ${MAX_LINES_PER_FILE} lines`, () => {
		const long = FILES.map(
			(file) => [file, readFileSync(join(SRC, file), "utf8").split("\n").length] as const,
		).filter(([, lines]) => lines > MAX_LINES_PER_FILE);
		expect(long).toEqual([]);
	});
});

/** Tarjan's strongly connected components of more than one file. */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
	let next = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const visit = (node: string) => {
		index.set(node, next);
		low.set(node, next++);
		stack.push(node);
		onStack.add(node);
		for (const to of graph.get(node) ?? []) {
			if (!graph.has(to)) continue;
			if (!index.has(to)) {
				visit(to);
				low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
			} else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
		}
		if (low.get(node) !== index.get(node)) return;
		const component: string[] = [];
		for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
			onStack.delete(member);
			component.push(member);
			if (member === node) break;
		}
		if (component.length > 1) found.push(component);
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return found;
}
