/**
 * Real pi sessions without a network: a `ModelRuntime` with pi-ai's faux provider registered, and replies routed
 * by the child's task, because parallel children share the provider's one reply queue. Every request the provider
 * sees is recorded (system prompt, tool names, task, last message) so tests can assert on what reached a child.
 * Its streams are priced with pi-ai's own `calculateCost` (priced-provider.ts): the costs tests see are pi-ai's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type Api,
	type AssistantMessage,
	contentText,
	type FauxResponseFactory,
	fauxAssistantMessage,
	fauxProvider,
	getCurrentSystemPrompt,
	getCurrentTools,
	InMemoryCredentialStore,
	InMemoryModelsStore,
	type Message,
	type Model,
} from "@earendil-works/pi-ai";
import { type AgentSession, type AgentToolResult, ModelRuntime } from "@earendil-works/pi-coding-agent";
import { afterAll } from "vitest";
import type { PiAgentRunnerHooks } from "../../src/children/agent-runner.ts";
import { FAUX_PRICE, pricedProvider } from "./priced-provider.ts";

export { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "@earendil-works/pi-ai";

/** One model request as the faux provider saw it. */
export interface FauxRequest {
	/** `provider/id` of the requested model. */
	model: string;
	/** The thinking level pi asked for, when any. */
	thinking?: string;
	systemPrompt: string;
	/** Names of the tools declared to the model. */
	tools: string[];
	/** Text of the first user message: the child's task, which routes the request. */
	task: string;
	/** Role and text of the newest message (a tool result, a steering message…). */
	last: { role: string; text: string; isError?: boolean };
	messages: Message[];
	signal?: AbortSignal;
}

/** A scripted reply: a message, or a function of the request. */
export type FauxReply = AssistantMessage | ((request: FauxRequest) => AssistantMessage | Promise<AssistantMessage>);

/** Which requests a route serves: a substring or pattern of the task, or a predicate. */
export type FauxMatch = string | RegExp | ((request: FauxRequest) => boolean);

/** A model runtime with the faux provider and routed replies. */
export interface FauxHarness {
	modelRuntime: ModelRuntime;
	/** `faux/faux-1`, no reasoning. */
	model: Model<Api>;
	/** `faux/faux-think`, a reasoning model (thinking levels are not clamped to off). */
	reasoningModel: Model<Api>;
	/** `faux/faux-priced`: $3 / $15 per million input / output tokens ($0.30 cache read, $3.75 cache write). */
	pricedModel: Model<Api>;
	/** `faux/faux-billed`: priced like `pricedModel`, and its provider reports each reply's total as billed. */
	billedModel: Model<Api>;
	/** A temp pi config directory (empty) for `agentDir`. */
	agentDir: string;
	/** Adds replies for requests whose task matches; a route's replies are used in order, first matching route first. */
	route(match: FauxMatch, replies: FauxReply[]): void;
	/** Every request, in order. */
	readonly requests: readonly FauxRequest[];
	/** Replies not used yet, summed over routes. */
	pendingReplies(): number;
	/** Unregisters the provider and removes `agentDir`; once. Left undisposed, the test file's end does it. */
	dispose(): void;
}

/** Harnesses not disposed yet, in this test file. */
const undisposed = new Set<FauxHarness>();
// A test that forgets `dispose()` must not leave the harness's temp folder: the file's last afterAll (hooks after
// all run in reverse, and this one registers on the file's first import of the helper) disposes what is left. Only
// under vitest: the bench and scripts/ import this helper too.
if (process.env.VITEST) {
	afterAll(() => {
		for (const harness of undisposed) harness.dispose();
	});
}

interface Route {
	match: FauxMatch;
	replies: FauxReply[];
}

export async function createFauxHarness(): Promise<FauxHarness> {
	const agentDir = mkdtempSync(join(tmpdir(), "pi-workflows-faux-"));
	// Credentials and the model catalog cache in memory: file-backed ones write auth.json and models-store.json from
	// background refreshes that can land after dispose() and make the removed folder again.
	const modelRuntime = await ModelRuntime.create({
		credentials: new InMemoryCredentialStore(),
		modelsStore: new InMemoryModelsStore(),
		modelsPath: join(agentDir, "models.json"),
		allowModelNetwork: false,
	});
	const faux = fauxProvider({
		provider: "faux",
		models: [
			{ id: "faux-1" },
			{ id: "faux-think", reasoning: true },
			{ id: "faux-priced", cost: FAUX_PRICE },
			{ id: "faux-billed", cost: FAUX_PRICE },
		],
	});
	modelRuntime.registerNativeProvider(pricedProvider(faux.provider));
	const routes: Route[] = [];
	const requests: FauxRequest[] = [];

	// The provider's queue is one FIFO: each step answers one request and queues its successor, so it never runs dry.
	const step: FauxResponseFactory = async (context, options, _state, model) => {
		faux.appendResponses([step]);
		const request = describeRequest(context.messages, model, options?.reasoning, options?.signal);
		requests.push(request);
		const route = routes.find((candidate) => matches(candidate.match, request) && candidate.replies.length > 0);
		const reply = route?.replies.shift();
		if (!reply) {
			return fauxAssistantMessage([], {
				stopReason: "error",
				errorMessage: `faux: no reply left for task ${JSON.stringify(request.task.slice(0, 80))}`,
			});
		}
		return typeof reply === "function" ? reply(request) : reply;
	};
	// Several steps ahead: children that ask in the same turn (the sandbox sends a stretch's calls together) each
	// take one before any step has queued its successor.
	faux.setResponses(Array.from({ length: 64 }, () => step));

	const harness: FauxHarness = {
		modelRuntime,
		model: mustGet(modelRuntime, "faux-1"),
		reasoningModel: mustGet(modelRuntime, "faux-think"),
		pricedModel: mustGet(modelRuntime, "faux-priced"),
		billedModel: mustGet(modelRuntime, "faux-billed"),
		agentDir,
		route(match, replies) {
			routes.push({ match, replies: [...replies] });
		},
		requests,
		pendingReplies: () => routes.reduce((sum, route) => sum + route.replies.length, 0),
		dispose() {
			if (!undisposed.delete(harness)) return;
			modelRuntime.unregisterProvider("faux");
			rmSync(agentDir, { recursive: true, force: true });
		},
	};
	undisposed.add(harness);
	return harness;
}

/** A reply that arrives only when the request is aborted: a child that is busy until someone stops it. */
export function untilAborted(): FauxReply {
	return (request) =>
		new Promise((resolve) => {
			const answer = () => resolve(fauxAssistantMessage("too late"));
			if (request.signal?.aborted) answer();
			else request.signal?.addEventListener("abort", answer, { once: true });
		});
}

/**
 * Replies and tool runs that ignore abort: a provider library (or an extension tool) whose call never settles once
 * aborted, as a child's runner meets it. `release()` lets every one of them end, after the test, so nothing is left
 * streaming.
 */
export interface DeafCalls {
	/** A model reply that never comes, abort or not (until `release`). */
	reply(): FauxReply;
	/** A session tool run that never ends, abort or not (until `release`). */
	tool(): Promise<AgentToolResult<unknown>>;
	/** How many replies and tool runs have started. */
	readonly started: number;
	/** Lets every deaf call end (a reply as "too late", a tool with an error result). */
	release(): void;
}

/** Deaf provider calls and tool runs, released together. */
export function createDeafCalls(): DeafCalls {
	const waiting: Array<() => void> = [];
	let started = 0;
	let released = false;
	const wait = () =>
		new Promise<void>((resolve) => {
			started++;
			if (released) resolve();
			else waiting.push(resolve);
		});
	return {
		reply: () => async () => {
			await wait();
			return fauxAssistantMessage("too late");
		},
		async tool() {
			await wait();
			return { content: [{ type: "text", text: "too late" }], details: undefined, isError: true };
		},
		get started() {
			return started;
		},
		release() {
			released = true;
			for (const resolve of waiting.splice(0)) resolve();
		},
	};
}

/** Runner hooks that keep the set of child sessions not yet disposed. */
export function createSessionTracker(): {
	hooks: PiAgentRunnerHooks;
	live: Set<AgentSession>;
	created: AgentSession[];
} {
	const live = new Set<AgentSession>();
	const created: AgentSession[] = [];
	return {
		live,
		created,
		hooks: {
			onSessionCreated(session) {
				live.add(session);
				created.push(session);
			},
			onSessionDisposed(session) {
				live.delete(session);
			},
		},
	};
}

function describeRequest(
	messages: Message[],
	model: Model<string>,
	thinking: string | undefined,
	signal: AbortSignal | undefined,
): FauxRequest {
	const firstUser = messages.find((message) => message.role === "user");
	const last = messages.at(-1);
	const request: FauxRequest = {
		model: `${model.provider}/${model.id}`,
		systemPrompt: getCurrentSystemPrompt(messages),
		tools: getCurrentTools(messages).map((tool) => tool.name),
		task: firstUser ? contentText(firstUser.content) : "",
		last: { role: last?.role ?? "none", text: last ? messageText(last) : "" },
		messages,
	};
	if (last?.role === "toolResult") request.last.isError = last.isError;
	if (thinking) request.thinking = thinking;
	if (signal) request.signal = signal;
	return request;
}

function messageText(message: Message): string {
	if (message.role === "user" || message.role === "toolResult") return contentText(message.content);
	if (message.role === "assistant") {
		return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
	}
	return "";
}

function matches(match: FauxMatch, request: FauxRequest): boolean {
	if (typeof match === "string") return request.task.includes(match);
	if (match instanceof RegExp) return match.test(request.task);
	return match(request);
}

function mustGet(runtime: ModelRuntime, id: string): Model<Api> {
	const model = runtime.getModel("faux", id);
	if (!model) throw new Error(`faux model ${id} is not registered`);
	return model;
}
