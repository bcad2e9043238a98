/**
 * The map of `src/` (DEVELOPERS.md, "Layout"): which room may import which, no import cycles between files, and rooms
 * and files small enough to find one's way in. A new room gets a row here and a line in DEVELOPERS.md.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "acorn";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * Each room and the rooms it may import values from (`types` adds rooms it may take types from only). A room is a
 * folder of `src/` or of `src/pi/` or `src/runtime/`; a top-level file is its own room. `tool` is the `workflow`
 * tool (the design card's `src/tool`): pi's side like `pi/`, registered by `pi/extension.ts`. The runtime has a floor
 * (`runtime/core`: the contracts every part uses) and a ceiling (`runtime/run`: what composes a run); its other
 * rooms import the floor and leaves beside them, never the ceiling.
 */
const ROOMS: Record<string, { values: string[]; types?: string[] }> = {
	"errors.ts": { values: [] },
	sandbox: { values: ["errors.ts"] },
	authoring: { values: ["errors.ts"], types: ["runtime/core"] },
	"runtime/core": { values: ["errors.ts", "sandbox"] },
	"runtime/schema": { values: ["errors.ts", "sandbox", "runtime/core"] },
	"runtime/meta": { values: ["errors.ts", "authoring", "runtime/core", "runtime/schema"] },
	"runtime/spend": { values: ["errors.ts", "authoring", "runtime/core"] },
	"runtime/agent": { values: ["errors.ts", "authoring", "runtime/core", "runtime/schema", "runtime/spend"] },
	"runtime/step": { values: ["errors.ts", "authoring", "runtime/core", "runtime/agent"] },
	"runtime/ask": { values: ["errors.ts", "authoring", "runtime/core", "runtime/agent"] },
	"runtime/dry": { values: ["errors.ts", "runtime/core", "runtime/schema"] },
	"runtime/run": {
		values: [
			"errors.ts",
			"sandbox",
			"authoring",
			"runtime/core",
			"runtime/schema",
			"runtime/meta",
			"runtime/agent",
			"runtime/step",
			"runtime/ask",
			"runtime/spend",
			"runtime/dry",
			"telemetry",
		],
	},
	runtime: {
		values: [
			"runtime/core",
			"runtime/schema",
			"runtime/meta",
			"runtime/agent",
			"runtime/step",
			"runtime/ask",
			"runtime/spend",
			"runtime/dry",
			"runtime/run",
		],
	},
	telemetry: { values: [], types: ["runtime/core"] },
	progress: { values: [], types: ["errors.ts", "runtime/core"] },
	runs: { values: ["errors.ts"], types: ["runtime/core"] },
	worktree: { values: ["errors.ts"] },
	report: { values: ["errors.ts", "runs", "progress", "runtime/agent"], types: ["runtime/core"] },
	agents: { values: ["errors.ts"] },
	children: {
		values: [
			"errors.ts",
			"runs",
			"worktree",
			"runtime/core",
			"runtime/schema",
			"runtime/spend",
			"agents",
			"progress",
			"telemetry",
		],
	},
	host: {
		values: [
			"errors.ts",
			"runs",
			"progress",
			"report",
			"runtime",
			"runtime/core",
			"runtime/meta",
			"runtime/run",
			"agents",
		],
		types: ["children"],
	},
	queue: { values: ["errors.ts", "worktree", "runtime/core", "agents", "children", "host", "telemetry"] },
	/** Evaluation and blame (issues 44 and 45): above the host layer, below the CLI and the pi side; pi-free. */
	eval: { values: ["errors.ts", "runs", "progress", "report", "runtime", "runtime/core", "host"] },
	"pi/runs": {
		values: [
			"errors.ts",
			"runtime",
			"runtime/core",
			"runtime/ask",
			"runtime/run",
			"progress",
			"report",
			"runs",
			"host",
			"children",
		],
	},
	tool: {
		values: [
			"errors.ts",
			"authoring",
			"runtime",
			"runtime/core",
			"runtime/agent",
			"runtime/meta",
			"progress",
			"runs",
			"host",
			"agents",
			"children",
			"pi/runs",
		],
	},
	"pi/commands": {
		values: [
			"errors.ts",
			"authoring",
			"runtime",
			"runtime/meta",
			"runtime/core",
			"progress",
			"runs",
			"report",
			"host",
			"agents",
			"children",
			"pi/runs",
			"tool",
			"eval",
		],
	},
	pi: {
		values: [
			"runtime",
			"runtime/core",
			"sandbox",
			"runs",
			"host",
			"agents",
			"children",
			"pi/runs",
			"tool",
			"pi/commands",
			"queue",
		],
	},
	cli: {
		values: [
			"errors.ts",
			"runtime",
			"runtime/core",
			"runtime/agent",
			"runtime/ask",
			"runtime/meta",
			"runtime/run",
			"progress",
			"runs",
			"report",
			"host",
			"pi.ts",
			"telemetry",
			"queue",
			"eval",
		],
	},
	"index.ts": {
		values: ["errors.ts", "sandbox", "runtime", "runtime/core", "progress", "runs", "report", "host", "eval"],
		types: ["authoring"],
	},
	"pi.ts": { values: ["pi", "progress", "agents", "children", "eval"] },
};

/** Types-only cycles kept on purpose: `types.ts` is the runtime's public vocabulary and names the event union in `onProgress`; `events.ts` builds that union from its types. */
const KEPT_TYPE_CYCLES = [["runtime/core/events.ts", "runtime/core/types.ts"]];

/**
 * Tripwires for accidents, not the design rule: a file's rooms follow its concepts ("does this file have a second
 * reason to change?", DEVELOPERS.md). A function past MAX_FUNCTION_LINES hides a concept; ~80 lines is the one to
 * look at in review.
 */
const MAX_FILES_PER_FOLDER = 25;
const MAX_LINES_PER_FILE = 800;
const MAX_FUNCTION_LINES = 120;

/** Guest-side code, sent to QuickJS as one function's text (`bootGuest.toString()`): it cannot call out to helpers. */
const LONG_FUNCTIONS_KEPT = ["sandbox/guest.ts:bootGuest"];

/** Rooms that run where pi is not installed: no pi package or typebox, not even for types. */
const PI_FREE_ROOMS = [
	"errors.ts",
	"sandbox",
	"authoring",
	"runtime",
	"runs",
	"worktree",
	"report",
	"telemetry",
	"host",
	"eval",
];
const PI_PACKAGES = /^(@earendil-works\/|typebox(\/|$))/;

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

	it("no two rooms import each other, types included", () => {
		const pairs = new Set<string>();
		for (const file of TS_FILES) {
			for (const edge of edgesOf(file)) {
				const [from, to] = [roomOf(file), roomOf(edge.to)];
				if (from !== to) pairs.add(`${from} -> ${to}`);
			}
		}
		const mutual = [...pairs].filter((pair) => {
			const [from, to] = pair.split(" -> ");
			return pairs.has(`${to} -> ${from}`);
		});
		expect(mutual).toEqual([]);
	});

	it("the host, runtime, sandbox, runs and report rooms (and the others below them) import no pi package", () => {
		const offenders = TS_FILES.filter((file) => PI_FREE_ROOMS.includes(roomOf(file).split("/")[0] ?? "")).flatMap(
			(file) =>
				[...readFileSync(join(SRC, file), "utf8").matchAll(/\bfrom\s+"([^".][^"]*)"/g)]
					.map((match) => match[1] ?? "")
					.filter((from) => PI_PACKAGES.test(from))
					.map((from) => `${file} imports ${from}`),
		);
		expect(offenders).toEqual([]);
	});

	it("src/cli and src/queue import nothing from src/pi or src/tool", () => {
		const offenders = TS_FILES.filter((file) => file.startsWith("cli/") || file.startsWith("queue/")).flatMap(
			(file) =>
				edgesOf(file)
					.filter((edge) => edge.to.startsWith("pi/") || edge.to.startsWith("tool/"))
					.map((edge) => `${file} imports ${edge.to}`),
		);
		expect(offenders).toEqual([]);
	});

	it(`no function is longer than ${MAX_FUNCTION_LINES} lines, but the guest-side code named here`, () => {
		const long = TS_FILES.flatMap((file) =>
			longFunctions(file).filter((name) => !LONG_FUNCTIONS_KEPT.includes(name.replace(/ \(\d+ lines\)$/, ""))),
		);
		expect(long).toEqual([]);
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

/** `file:name (N lines)` of each function in `file` longer than MAX_FUNCTION_LINES. */
function longFunctions(file: string): string[] {
	const source = stripTypeScriptTypes(readFileSync(join(SRC, file), "utf8"), { mode: "strip" });
	const found: string[] = [];
	const walk = (node: unknown, name: string | undefined): void => {
		if (!node || typeof node !== "object") return;
		const record = node as Record<string, unknown> & {
			type?: string;
			loc?: { start: { line: number }; end: { line: number } };
		};
		if (typeof record.type === "string" && record.type.includes("Function") && record.loc) {
			const lines = record.loc.end.line - record.loc.start.line + 1;
			const own = (record.id as { name?: string } | null | undefined)?.name ?? name ?? "(anonymous)";
			if (lines > MAX_FUNCTION_LINES) found.push(`${file}:${own} (${lines} lines)`);
		}
		for (const [key, value] of Object.entries(record)) {
			if (key === "loc") continue;
			const keyName = (record.key as { name?: string } | undefined)?.name;
			const next =
				record.type === "VariableDeclarator" && key === "init"
					? (record.id as { name?: string }).name
					: key === "value" && keyName
						? keyName
						: name;
			if (Array.isArray(value)) for (const child of value) walk(child, next);
			else walk(value, next);
		}
	};
	walk(parse(source, { ecmaVersion: "latest", sourceType: "module", locations: true }), undefined);
	return found;
}

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
