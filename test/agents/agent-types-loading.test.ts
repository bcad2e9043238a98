import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	BUILTIN_TOOL_NAMES,
	listAvailableAgentTypes,
	loadAgentTypes,
	MAX_AGENT_FILE_BYTES,
	resolveAgentType,
} from "../../src/agents/agent-types.ts";
import { WorkflowError } from "../../src/errors.ts";
import { type AgentDirs, agentFile, createAgentDirs } from "./agent-files.ts";

let dirs: AgentDirs;
beforeEach(() => {
	dirs = createAgentDirs();
});
afterEach(() => {
	dirs.dispose();
});

const load = () => loadAgentTypes({ cwd: dirs.cwd, agentDir: dirs.agentDir });

describe("loadAgentTypes", () => {
	it("with no agent files: has only the built-in general-purpose type and no warnings", () => {
		const { types, warnings } = load();
		expect([...types.keys()]).toEqual(["general-purpose"]);
		expect(types.get("general-purpose")).toMatchObject({ source: "builtin", enabled: true, promptMode: "append" });
		expect(types.get("general-purpose")?.tools).toEqual([...BUILTIN_TOOL_NAMES]);
		expect(warnings).toEqual([]);
	});

	it("project .pi/agents wins over workspace .agents/agents, which wins over global agents", () => {
		dirs.write("~/agents/reviewer.md", agentFile("description: global", "global prompt"));
		dirs.write(".agents/agents/reviewer.md", agentFile("description: workspace", "workspace prompt"));
		dirs.write(".pi/agents/reviewer.md", agentFile("description: project", "project prompt"));
		dirs.write("~/agents/scout.md", agentFile("description: global scout"));
		dirs.write(".agents/agents/scout.md", agentFile("description: workspace scout"));
		dirs.write("~/agents/planner.md", agentFile("description: global planner"));

		const { types } = load();
		expect(types.get("reviewer")).toMatchObject({
			description: "project",
			systemPrompt: "project prompt",
			source: "project",
		});
		expect(types.get("scout")).toMatchObject({ description: "workspace scout", source: "workspace" });
		expect(types.get("planner")).toMatchObject({ description: "global planner", source: "global" });
	});

	it("a file named general-purpose overrides the built-in", () => {
		dirs.write(".pi/agents/general-purpose.md", agentFile("tools: read", "custom general prompt"));
		const type = load().types.get("general-purpose");
		expect(type).toMatchObject({ source: "project", systemPrompt: "custom general prompt", promptMode: "replace" });
		expect(type?.tools).toEqual(["read"]);
	});

	it("frontmatter `name:` is the type; the file name is only the fallback", () => {
		dirs.write(".pi/agents/file-a.md", agentFile("name: code-reviewer"));
		dirs.write(".pi/agents/file-b.md", agentFile("description: no name here"));
		dirs.write(".pi/agents/file-c.md", agentFile('name: "  "'));
		dirs.write(".pi/agents/file-d.md", agentFile("name: Code Reviewer"));
		const { types } = load();
		expect([...types.keys()].sort()).toEqual([
			"Code Reviewer",
			"code-reviewer",
			"file-b",
			"file-c",
			"general-purpose",
		]);
		expect(types.get("code-reviewer")?.path).toMatch(/file-a\.md$/);
	});

	it("a declared name overrides a lower-precedence file with that name", () => {
		dirs.write("~/agents/reviewer.md", agentFile("description: global"));
		dirs.write(".pi/agents/my-review-file.md", agentFile("name: reviewer\ndescription: project"));
		expect(load().types.get("reviewer")?.description).toBe("project");
	});

	it("refuses a name containing `:` with a warning naming the file, and registers nothing for it", () => {
		const path = dirs.write(".pi/agents/plug.md", agentFile("name: my-plugin:reviewer"));
		const { types, warnings } = load();
		expect([...types.keys()]).toEqual(["general-purpose"]);
		expect(warnings).toEqual([
			`Skipping agent file ${path}: its name \`my-plugin:reviewer\` contains \`:\`, which is reserved for plugin-scoped names. Rename it, or put the label in \`display_name:\``,
		]);
	});

	it("one unparseable file is skipped with a warning naming it; the other files still load", () => {
		const bad = dirs.write(".pi/agents/broken.md", "---\nname: broken\ntools: [read, \n---\nbody\n");
		dirs.write(".pi/agents/good.md", agentFile("description: fine"));
		const { types, warnings } = load();
		expect(types.has("good")).toBe(true);
		expect(types.has("broken")).toBe(false);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(new RegExp(`^Skipping agent file ${escapeRegExp(bad)}: `));
	});

	it("reads only regular files up to 256 KiB: /dev/zero, a FIFO and a huge file are skipped with a warning each", () => {
		const agents = join(dirs.cwd, ".pi", "agents");
		const good = dirs.write(".pi/agents/good.md", agentFile("description: fine"));
		const huge = dirs.write(".pi/agents/huge.md", agentFile("description: long", "x".repeat(MAX_AGENT_FILE_BYTES)));
		mkdirSync(join(dirs.cwd, ".claude", "agents"), { recursive: true });
		const zero = join(dirs.cwd, ".claude", "agents", "zero.md");
		symlinkSync("/dev/zero", zero);
		execFileSync("mkfifo", [join(agents, "pipe.md")]);
		// A symlink to a regular file is followed: an agent shared from another folder.
		symlinkSync(dirs.write("~/shared/linked.md", agentFile("description: shared")), join(agents, "linked.md"));
		const { types, warnings } = loadAgentTypes({
			cwd: dirs.cwd,
			agentDir: dirs.agentDir,
			claude: { cwd: dirs.cwd, home: join(dirs.agentDir, "no-claude-home") },
		});
		expect([...types.keys()].sort()).toEqual(["general-purpose", "good", "linked"]);
		expect(types.get("good")?.path).toBe(good);
		const size = Buffer.byteLength(agentFile("description: long", "x".repeat(MAX_AGENT_FILE_BYTES)));
		expect(warnings).toEqual([
			`Skipping agent file ${zero}: it is a character device, not a regular file. Only regular .md files are read as agent files: remove it, or put an agent file in its place`,
			`Skipping agent file ${huge}: it is ${size} bytes, over the limit of 262144 bytes. An agent file may be at most 256 KiB: shorten its prompt`,
			`Skipping agent file ${join(agents, "pipe.md")}: it is a named pipe (FIFO), not a regular file. Only regular .md files are read as agent files: remove it, or put an agent file in its place`,
		]);
	});

	it("a file whose frontmatter is not a mapping is skipped with a warning", () => {
		const path = dirs.write(".pi/agents/scalar.md", "---\njust a string\n---\nbody\n");
		const { types, warnings } = load();
		expect(types.has("scalar")).toBe(false);
		expect(warnings).toEqual([`Skipping agent file ${path}: the frontmatter must be a YAML mapping of fields`]);
	});

	it("a skipped file that would have overridden a type warns which file the type now loads from", () => {
		const global = dirs.write("~/agents/reviewer.md", agentFile("description: global"));
		dirs.write(".pi/agents/reviewer.md", "---\nname: [unclosed\n---\n");
		const { types, warnings } = load();
		expect(types.get("reviewer")?.path).toBe(global);
		expect(warnings[1]).toBe(`Agent type \`reviewer\` now loads from ${global} instead`);
	});

	it("a file without frontmatter loads under its file name with the whole file as prompt", () => {
		dirs.write(".pi/agents/plain.md", "Just a prompt.\n");
		expect(load().types.get("plain")).toMatchObject({ systemPrompt: "Just a prompt.", description: "plain" });
	});

	it("two files in one directory claiming one name: the later file (by name) wins, with a warning", () => {
		const first = dirs.write(".pi/agents/a.md", agentFile("name: dup\ndescription: first"));
		const second = dirs.write(".pi/agents/b.md", agentFile("name: dup\ndescription: second"));
		const { types, warnings } = load();
		expect(types.get("dup")?.description).toBe("second");
		expect(warnings).toEqual([`Agent type \`dup\` is defined by both ${first} and ${second}; using ${second}`]);
	});

	it("ignores files that are not .md", () => {
		dirs.write(".pi/agents/notes.txt", agentFile("name: notes"));
		expect(load().types.has("notes")).toBe(false);
	});
});

describe("listAvailableAgentTypes", () => {
	it("lists enabled types sorted, leaving out `enabled: false` ones", () => {
		dirs.write(".pi/agents/zeta.md", agentFile("description: z"));
		dirs.write(".pi/agents/alpha.md", agentFile("description: a"));
		dirs.write(".pi/agents/off.md", agentFile("enabled: false"));
		expect(listAvailableAgentTypes(load().types)).toEqual(["alpha", "general-purpose", "zeta"]);
	});

	it("a disabled project file disables the global type of the same name", () => {
		dirs.write("~/agents/reviewer.md", agentFile("description: global"));
		dirs.write(".pi/agents/reviewer.md", agentFile("enabled: false"));
		const { types } = load();
		expect(types.get("reviewer")?.enabled).toBe(false);
		expect(listAvailableAgentTypes(types)).toEqual(["general-purpose"]);
	});
});

describe("resolveAgentType", () => {
	it("returns an enabled type", () => {
		dirs.write(".pi/agents/scout.md", agentFile("description: s"));
		expect(resolveAgentType(load().types, "scout").description).toBe("s");
	});

	it("on an unknown type: throws agent_type_unknown and lists the available types", () => {
		dirs.write(".pi/agents/scout.md", agentFile("description: s"));
		const error = catchError(() => resolveAgentType(load().types, "reviwer"));
		expect(error.code).toBe("agent_type_unknown");
		expect(error.message).toBe("Unknown agent type `reviwer`. Available: general-purpose, scout");
		expect(error.details).toEqual({ agentType: "reviwer", available: ["general-purpose", "scout"] });
	});

	it("on a disabled type: throws agent_type_unknown saying it is disabled and where, and lists the available types", () => {
		const path = dirs.write(".pi/agents/off.md", agentFile("enabled: false"));
		const error = catchError(() => resolveAgentType(load().types, "off"));
		expect(error.code).toBe("agent_type_unknown");
		expect(error.message).toBe(
			`Agent type \`off\` is disabled (\`enabled: false\` in ${path}). Available: general-purpose`,
		);
	});
});

function catchError(fn: () => unknown): WorkflowError {
	try {
		fn();
	} catch (error) {
		if (error instanceof WorkflowError) return error;
		throw error;
	}
	throw new Error("expected a WorkflowError");
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
