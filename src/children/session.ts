/**
 * Builds one child `AgentSession` with every part given explicitly, so nothing is read from or written to the
 * user's pi settings and session files: in-memory settings (no compaction; pi's own retry as the runner says), the
 * session in its run's folder (`children/…jsonl`, see child-record.ts) or, without one, in memory, no prompt templates or themes, only the extensions and skills its agent type names (or inherits),
 * and the agent type's system prompt and context files.
 */
import { dirname, resolve } from "node:path";
import type { Api, Model } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	type FileEntry,
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

/** Options of `loadChildResources`. */
export interface ChildResourceOptions {
	cwd: string;
	agentDir: string;
	type: AgentTypeConfig;
	/** Default: off. */
	retry?: ChildRetrySettings;
	/**
	 * Whether the project is trusted (`LoadAgentTypesResult.projectTrusted`): pi's loader reads the project's skills,
	 * `.agents/skills` and `.pi/SYSTEM.md` / `APPEND_SYSTEM.md` for the child only then, as for pi itself. Default: false.
	 */
	projectTrusted?: boolean;
	/** The run's provenance frame (frame.ts), the system prompt's last addendum. Default: none. */
	frame?: string;
}

/** What a child's resources came to: the loader for its session, and what did not load. */
export interface ChildResources {
	loader: DefaultResourceLoader;
	settingsManager: SettingsManager;
	/** Tools the child's own extensions register, by name. */
	extensionTools: string[];
	/** One line per extension that did not load, naming it: the child must not start without it. */
	extensionErrors: string[];
	/** A named skill that was not found, by name. */
	skillWarnings: string[];
	/** Whether the child has skills in its prompt (they need `read` to be opened). */
	hasSkills: boolean;
}

/**
 * The child's prompt and resources. `replace`: the type's body is the whole system prompt (pi still adds its
 * `<cwd>` section). `append`: pi's default prompt for the child's tools with the body as its addendum (where pi
 * puts APPEND_SYSTEM.md). Context files (AGENTS.md…) and pi's skills catalog come by default with `append` only;
 * `inherit_project_context`, `inherit_global_context` and `inherit_skills` say otherwise. Extensions: exactly
 * `extensions` plus `subagent_only_extensions`, never the parent's ambient ones.
 */
export async function loadChildResources(options: ChildResourceOptions): Promise<ChildResources> {
	const { type, cwd, agentDir } = options;
	const settingsManager = SettingsManager.inMemory(
		{ compaction: { enabled: false }, retry: options.retry ?? { enabled: false } },
		{ projectTrusted: options.projectTrusted === true },
	);
	const append = type.promptMode === "append";
	const projectContext = type.inheritProjectContext ?? append;
	const globalContext = type.inheritGlobalContext ?? append;
	const inheritSkills = type.inheritSkills ?? append;
	const named = type.skills ?? [];
	const frame = options.frame !== undefined ? [options.frame] : [];
	const extensionPaths = [...(type.extensions ?? []), ...(type.subagentOnlyExtensions ?? [])];
	const globalDir = resolve(agentDir);
	const privatePaths = (type.skillPath ?? []).map((path) => resolve(path));
	const fromSkillPath = (file: string) =>
		privatePaths.some((path) => file === path || file.startsWith(`${path}/`) || dirname(file) === path);
	const loader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		additionalExtensionPaths: extensionPaths,
		// Discovery is needed to find a named skill in pi's usual places even when the catalog is not inherited.
		noSkills: !inheritSkills && named.length === 0,
		additionalSkillPaths: type.skillPath ?? [],
		// A skill-path skill is a candidate only: `skills` selects it. The catalog is the rest, when inherited.
		skillsOverride: (base) => ({
			...base,
			skills: base.skills.filter(
				(skill) => named.includes(skill.name) || (inheritSkills && !fromSkillPath(skill.filePath)),
			),
		}),
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: !projectContext && !globalContext,
		agentsFilesOverride: (base) => ({
			agentsFiles: base.agentsFiles.filter((file) =>
				dirname(resolve(file.path)) === globalDir ? globalContext : projectContext,
			),
		}),
		...(append
			? {
					appendSystemPromptOverride: (base: string[]) => [
						...base,
						...(type.systemPrompt ? [type.systemPrompt] : []),
						...frame,
					],
				}
			: { systemPromptOverride: () => type.systemPrompt, appendSystemPromptOverride: () => frame }),
	});
	await loader.reload();
	const loaded = loader.getExtensions();
	const extensionErrors = loaded.errors.map(
		(error) => `extension ${error.path} did not load: ${error.error.split("\n")[0]}`,
	);
	const extensionTools = loaded.extensions.flatMap((extension) => [...extension.tools.keys()]);
	const found = new Set(loader.getSkills().skills.map((skill) => skill.name));
	const skillWarnings = named
		.filter((skill) => !found.has(skill))
		.map(
			(skill) =>
				`agent type \`${type.name}\` names skill \`${skill}\`, which was not found (in pi's skill folders${type.skillPath ? ` or ${type.skillPath.join(", ")}` : ""}); the child ran without it`,
		);
	return { loader, settingsManager, extensionTools, extensionErrors, skillWarnings, hasSkills: found.size > 0 };
}

/** Options of `createChildSession`. */
export interface ChildSessionOptions {
	/** The session id (chosen before the session exists, so the child can be reported while it starts). */
	id: string;
	cwd: string;
	agentDir: string;
	modelRuntime: ModelRuntime;
	resources: ChildResources;
	model: Model<Api>;
	/** Default: pi's default, clamped to what the model supports. */
	thinking?: ThinkingLevel;
	/** The exact tool allowlist; empty means no tools. */
	tools: string[];
	/** Tools outside pi's built-ins and the child's extensions (the structured-output tool, the session's tools). */
	customTools?: ToolDefinition[];
	/**
	 * A pi session file holding its header and what the conversation starts from (a forked child's copy of the parent
	 * conversation, a continued child's past), which pi appends the conversation to. Default: in memory.
	 */
	sessionFile?: string;
	/** In memory, the pi session entries the conversation starts from (a fork's copy, a continuation's past). Default: none. */
	history?: readonly unknown[];
}

/** The child's session over its loaded resources; extensions are bound, so their `session_start` runs. */
export async function createChildSession(options: ChildSessionOptions): Promise<AgentSession> {
	const { cwd, agentDir, resources } = options;
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime: options.modelRuntime,
		settingsManager: resources.settingsManager,
		resourceLoader: resources.loader,
		sessionManager: options.sessionFile
			? SessionManager.open(options.sessionFile, dirname(options.sessionFile))
			: SessionManager.inMemory(cwd, { id: options.id }, options.history as FileEntry[] | undefined),
		model: options.model,
		...(options.thinking ? { thinkingLevel: options.thinking } : {}),
		tools: options.tools,
		...(options.customTools ? { customTools: options.customTools } : {}),
	});
	if (resources.extensionTools.length > 0 || resources.loader.getExtensions().extensions.length > 0) {
		await session.bindExtensions({});
	}
	return session;
}
