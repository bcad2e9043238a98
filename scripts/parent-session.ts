/**
 * A real parent pi session with the pi-workflows extension loaded through pi's resource loader, as the demo and
 * the end-to-end tests use it: in memory, no skills or context files, only the `workflow` tool active.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	type AgentSessionEvent,
	createAgentSession,
	DefaultResourceLoader,
	type InlineExtension,
	type ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import workflowsExtension from "../src/pi.ts";

export interface ParentSessionOptions {
	cwd: string;
	/** pi's config directory for this session (agent files, saved workflows). */
	agentDir: string;
	modelRuntime: ModelRuntime;
	model: Model<Api>;
	/** Other extensions loaded next to ours, and the tools of theirs to make active. Default: none. */
	extensions?: { factories: InlineExtension[]; tools: string[] };
	/** More of pi's settings, as a settings file would give them (e.g. `{ workflows: { childModel } }`). Default: none. */
	settings?: Record<string, unknown>;
	/** pi's trust in the project, as its startup decided it (`ctx.isProjectTrusted()`). Default: trusted. */
	projectTrusted?: boolean;
}

export interface ParentSession {
	session: AgentSession;
	/** Every `workflow` tool update and result the parent saw, in order. */
	toolEvents: AgentSessionEvent[];
	dispose(): void;
}

export async function createParentSession(options: ParentSessionOptions): Promise<ParentSession> {
	const { cwd, agentDir, modelRuntime, model } = options;
	const settingsManager = SettingsManager.inMemory(
		{ ...options.settings, compaction: { enabled: false }, retry: { enabled: false } },
		{ projectTrusted: options.projectTrusted ?? true },
	);
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
		extensionFactories: [
			{ name: "pi-workflows", factory: workflowsExtension },
			...(options.extensions?.factories ?? []),
		],
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		settingsManager,
		resourceLoader,
		sessionManager: SessionManager.inMemory(cwd),
		model,
		tools: ["workflow", "workflow_runs", ...(options.extensions?.tools ?? [])],
	});
	const toolEvents: AgentSessionEvent[] = [];
	const unsubscribe = session.subscribe((event) => {
		if (event.type.startsWith("tool_execution")) toolEvents.push(event);
	});
	return {
		session,
		toolEvents,
		dispose() {
			unsubscribe();
			session.dispose();
		},
	};
}
