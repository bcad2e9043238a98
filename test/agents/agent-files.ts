/**
 * Temp project and agent directories with agent files in them, for agent-type and runner tests.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A temp project (`cwd`) and a temp pi config directory (`agentDir`), removed by `dispose()`. */
export interface AgentDirs {
	cwd: string;
	agentDir: string;
	/** Writes a file relative to `cwd` (`.pi/agents/x.md`) or, with `~/`, relative to `agentDir`. */
	write(path: string, content: string): string;
	dispose(): void;
}

/**
 * `trusted` (default true): the project is saved as trusted in pi's trust store (`<agentDir>/trust.json`, as `/trust`
 * saves it), so its agent files are read; false leaves it undecided.
 */
export function createAgentDirs(options: { trusted?: boolean } = {}): AgentDirs {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-agents-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	if (options.trusted !== false) trustProject(agentDir, cwd);
	return {
		cwd,
		agentDir,
		write(path, content) {
			const full = path.startsWith("~/") ? join(agentDir, path.slice(2)) : join(cwd, path);
			mkdirSync(dirname(full), { recursive: true });
			writeFileSync(full, content);
			return full;
		},
		dispose() {
			rmSync(root, { recursive: true, force: true });
		},
	};
}

/** An agent file: frontmatter lines and a body. */
export function agentFile(frontmatter: string, body = "You are a test agent."): string {
	return `---\n${frontmatter}\n---\n\n${body}\n`;
}

/** Saves `cwd` as trusted in pi's trust store under `agentDir`, as pi's `/trust` does (by its canonical path). */
export function trustProject(agentDir: string, cwd: string, trusted = true): void {
	writeFileSync(join(agentDir, "trust.json"), `${JSON.stringify({ [realpathSync(cwd)]: trusted }, null, 2)}\n`);
}
