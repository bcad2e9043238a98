/**
 * The pi-backed agent runner: each `agent()` call becomes an in-process pi `AgentSession` (its conversation kept in
 * the run's folder when the run has one, else in memory) with in-memory settings, the agent type's prompt, tools, model, thinking level, skills and context files, and only the
 * extensions its type names (the parent session's tools come as stand-ins, never the `workflow` tool). It reports the
 * child's live state, honours abort, pause, `max_turns` and the type's `timeout_ms`, lets go of a child that does not
 * stop within `stopGraceMs` of being asked, and always disposes the session; `supervisor.ts` runs its attempts,
 * `attempt.ts` is one attempt, `plan.ts` decides what a child gets and `open-session.ts` opens its session.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import { getAgentDir, type ModelRuntime } from "@earendil-works/pi-coding-agent";
import { type AgentTypeConfig, loadAgentTypes, type ThinkingLevel } from "../agents/agent-types.ts";
import type { WorkflowAgentRunner, WorkflowParentConversation } from "../runtime/core/types.ts";
import { type PiAgentRunnerHooks, runChildAttempt } from "./attempt.ts";
import { type ChildRecorder, callRecorder, type RunFolderSource } from "./child-record.ts";
import { CallConversations, RememberedConversations } from "./continuation.ts";
import type { ChildControls } from "./controls.ts";
import { composeFrame, type RunProvenance } from "./frame.ts";
import type { ModelTiers } from "./model.ts";
import type { SessionTools } from "./session-tools.ts";
import { superviseChild } from "./supervisor.ts";
import { lazyRunWorktrees, type WorktreePlaceSource } from "./worktree.ts";

export { DEFAULT_STALL_MS, type PiAgentRunnerHooks } from "./attempt.ts";

/** Options of `createPiAgentRunner`. */
export interface PiAgentRunnerOptions {
	/** Project directory: agent types are read from here, and children run here unless a request says otherwise. */
	cwd: string;
	/** pi's global config directory. Default: pi's (`~/.pi/agent`, or `PI_CODING_AGENT_DIR`). */
	agentDir?: string;
	/** Providers and credentials the children use; share the parent's (see `parentModelRuntime`). Required. */
	modelRuntime: ModelRuntime;
	/** Model when neither the agent file nor the call names one: the parent session's. Default: none (the child fails). */
	defaultModel?: Model<Api>;
	/**
	 * What a child fails with when nothing names its model and there is no `defaultModel` (a host says how to get
	 * one). Default: "no model: the agent file, the call and the parent session name none".
	 */
	noModel?: string;
	/** Thinking level when neither the agent file nor the call names one. Default: pi's default for the model. */
	defaultThinking?: ThinkingLevel;
	/** Model tiers `agent()` option `tier` names (`small`, `medium`, `big`…). Default: none (a tier is an error). */
	modelTiers?: ModelTiers;
	/** Agent types by name. Default: `loadAgentTypes({ cwd, agentDir })`, read once when the runner is created. */
	agentTypes?: ReadonlyMap<string, AgentTypeConfig>;
	/**
	 * Whether the project is trusted, so children may load its skills and system-prompt files as pi would
	 * (`LoadAgentTypesResult.projectTrusted`). Default: the decision `loadAgentTypes({ cwd, agentDir })` makes.
	 */
	projectTrusted?: boolean;
	/** Silence before a child is reported `quiet`. Default: 15000. */
	quietAfterMs?: number;
	/** Silence before a child is reported `stalled`. Default: 60000. */
	stalledAfterMs?: number;
	/** Turns a child may take after the `max_turns` wrap-up message before it is stopped. Default: 5. */
	graceTurns?: number;
	/**
	 * For `isolation: "worktree"`: the run's id (it names the branches) and its folder for worktrees, asked for at the
	 * first isolated call. Default: a fresh run id and a private folder under the OS temp dir.
	 */
	worktreePlace?: WorktreePlaceSource;
	/** The parent session's tools children may use (see session-tools.ts). Default: none. */
	sessionTools?: SessionTools;
	/**
	 * The parent session's conversation up to the `workflow` call, which `context: "fork"` children start from.
	 * Default: none (such a child fails with `fork_unavailable`, naming `noParentConversation`).
	 */
	parentConversation?: WorkflowParentConversation;
	/** Why there is no parent conversation (a queue worker, the command line), for that error. Default: a generic reason. */
	noParentConversation?: string;
	/** Where the run's running children are registered for steer, skip and restart. Default: none. */
	controls?: ChildControls;
	/** No progress for this long stops a child and retries it once (0: never), unless its type or call says. Default: 5 min. */
	stallMs?: number;
	/**
	 * How long a child asked to stop has to end its turn before it is abandoned: its session disposed, its call let go
	 * and counted in `abandoned`. Default: 2000 (`DEFAULT_STOP_GRACE_MS`).
	 */
	stopGraceMs?: number;
	/**
	 * pi's own retry of a failed model request (a dropped stream, a 5xx, a short 429), inside the child's session, so
	 * the child keeps the work it did; when pi gives up on a provider limit, the run's queue waits instead. `false`
	 * turns it off. Default: on, with pi's own settings (3 retries, 2 s doubling).
	 */
	piRetry?: false | { maxRetries?: number; baseDelayMs?: number };
	/** The run's folder: each child session's conversation is kept there (`children/`). Default: none (in memory). */
	runFolder?: RunFolderSource;
	/** Takes what the runner adds to the run's event log (stalls, restarts, steers, sessions). Default: none. */
	record?: ChildRecorder;
	hooks?: PiAgentRunnerHooks;
	/**
	 * Who the run's children speak for: the script that computed their tasks and the person's request that started
	 * the run (frame.ts). With it, every child's system prompt ends with the provenance frame, and frame-like markup
	 * in its task is escaped. Hosts pass it unless the person turned the frame off. Default: none (no frame).
	 */
	provenance?: RunProvenance;
}

/**
 * Creates a `WorkflowAgentRunner` over pi agent sessions.
 *
 * Contract: resolves for every child that starts (completed, failed or stopped); throws `WorkflowError`
 * (`agent_type_unknown`, `agent_options_invalid`, `schema_invalid`) before starting one for author errors.
 */
export function createPiAgentRunner(options: PiAgentRunnerOptions): WorkflowAgentRunner {
	const agentDir = options.agentDir ?? getAgentDir();
	const { agentTypes, projectTrusted } = typesAndTrust(options, agentDir);
	const worktrees = lazyRunWorktrees(options.worktreePlace);
	// One text for every child of the run, so a provider's prompt cache keeps it cheap.
	const frame = options.provenance ? composeFrame(options.provenance) : undefined;
	const remembered = new RememberedConversations();
	const conversations = new CallConversations(options.runFolder);
	const resolved = {
		...options,
		agentDir,
		agentTypes,
		projectTrusted,
		worktrees,
		remembered,
		conversations,
		...(frame !== undefined ? { frame } : {}),
	};
	return (request, context) =>
		superviseChild(request, context, {
			...(options.controls ? { controls: options.controls } : {}),
			note: callRecorder(options.record, request),
			attempt: (attemptRequest, attemptContext) =>
				runChildAttempt({ request: attemptRequest, context: attemptContext, options: resolved }),
		});
}

/** The given agent types and trust, or what reading the agent files decides for those not given. */
function typesAndTrust(options: PiAgentRunnerOptions, agentDir: string) {
	if (options.agentTypes && options.projectTrusted !== undefined) {
		return { agentTypes: options.agentTypes, projectTrusted: options.projectTrusted };
	}
	const loaded = loadAgentTypes({ cwd: options.cwd, agentDir });
	return {
		agentTypes: options.agentTypes ?? loaded.types,
		projectTrusted: options.projectTrusted ?? loaded.projectTrusted,
	};
}
