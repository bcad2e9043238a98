/**
 * Temp project and agent directories with agent files in them, for agent-type and runner tests.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

export function createAgentDirs(): AgentDirs {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-agents-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
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
