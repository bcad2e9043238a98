/**
 * A real parent pi session with the pi-workflows extension loaded through pi's resource loader, on the faux
 * provider: the parent's scripted reply calls the `workflow` tool, whose children are real child sessions.
 */
import {
	type AgentSession,
	type AgentSessionEvent,
	createAgentSession,
	DefaultResourceLoader,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import workflowsExtension from "../../src/index.ts";
import type { FauxHarness } from "../helpers/faux.ts";

export interface ParentSession {
	session: AgentSession;
	/** Every `workflow` tool update and result the parent saw, in order. */
	toolEvents: AgentSessionEvent[];
	dispose(): void;
}

export async function createParentSession(harness: FauxHarness, cwd: string): Promise<ParentSession> {
	const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir: harness.agentDir,
		settingsManager,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
		extensionFactories: [{ name: "pi-workflows", factory: workflowsExtension }],
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir: harness.agentDir,
		modelRuntime: harness.modelRuntime,
		settingsManager,
		resourceLoader,
		sessionManager: SessionManager.inMemory(cwd),
		model: harness.model,
		tools: ["workflow"],
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
