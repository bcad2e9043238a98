/**
 * Builds one child `AgentSession` with every part given explicitly, so nothing is read from or written to the
 * user's pi settings and session files: in-memory session and settings (no compaction; pi's own retry as the
 * runner says), no extensions, skills, prompt templates or themes, and the agent type's system prompt.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	type ModelRuntime,
	SessionManager,
	SettingsManager,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import type { AgentTypeConfig, ThinkingLevel } from "../agents/agent-types.ts";

/** pi's own retry of a failed model request, inside the session (so the child keeps its conversation). */
export interface ChildRetrySettings {
	enabled: boolean;
	/** Default: pi's (3). */
	maxRetries?: number;
	/** First delay; it doubles with each retry. Default: pi's (2000). */
	baseDelayMs?: number;
}

/** Options of `createChildSession`. */
export interface ChildSessionOptions {
	/** The session id (chosen before the session exists, so the child can be reported while it starts). */
	id: string;
	cwd: string;
	agentDir: string;
	modelRuntime: ModelRuntime;
	type: AgentTypeConfig;
	model: Model<Api>;
	/** Default: pi's default, clamped to what the model supports. */
	thinking?: ThinkingLevel;
	/** The exact tool allowlist; empty means no tools. */
	tools: string[];
	/** Tools outside pi's built-ins (the structured-output tool). */
	customTools?: ToolDefinition[];
	/** Default: off. */
	retry?: ChildRetrySettings;
}

/**
 * `replace`: the type's body is the whole system prompt (pi still adds its `<cwd>` section) and project context
 * files are left out. `append`: pi's default prompt for the child's tools with the body as its addendum (where
 * pi puts APPEND_SYSTEM.md) and the project's context files (AGENTS.md…): the parent's prompt, less what
 * extensions and skills add to it.
 */
export async function createChildSession(options: ChildSessionOptions): Promise<AgentSession> {
	const { type, cwd, agentDir } = options;
	const settingsManager = SettingsManager.inMemory({
		compaction: { enabled: false },
		retry: options.retry ?? { enabled: false },
	});
	const append = type.promptMode === "append";
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: !append,
		...(append
			? { appendSystemPromptOverride: (base: string[]) => (type.systemPrompt ? [...base, type.systemPrompt] : base) }
			: { systemPromptOverride: () => type.systemPrompt, appendSystemPromptOverride: () => [] }),
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime: options.modelRuntime,
		settingsManager,
		resourceLoader,
		sessionManager: SessionManager.inMemory(cwd, { id: options.id }),
		model: options.model,
		...(options.thinking ? { thinkingLevel: options.thinking } : {}),
		tools: options.tools,
		...(options.customTools ? { customTools: options.customTools } : {}),
	});
	return session;
}
