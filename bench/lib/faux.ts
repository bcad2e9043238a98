/**
 * A pi model runtime with pi-ai's faux provider, for row 7: every model request is answered on the next turn of
 * the event loop with a short text, and the time spent producing replies is summed, so the row can set it apart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type Api,
	type FauxResponseFactory,
	fauxAssistantMessage,
	fauxProvider,
	InMemoryCredentialStore,
	InMemoryModelsStore,
	type Model,
} from "@earendil-works/pi-ai";
import { ModelRuntime } from "@earendil-works/pi-coding-agent";

/** A faux model runtime and the directories a pi runner needs. */
export interface FauxSetup {
	modelRuntime: ModelRuntime;
	model: Model<Api>;
	/** An empty project directory (no agent files: only the built-in agent type). */
	cwd: string;
	/** An empty pi config directory. */
	agentDir: string;
	/** Model requests answered so far. */
	readonly replies: number;
	/** Milliseconds spent making replies (not the turn each waits for), summed over requests. */
	readonly replyMs: number;
	dispose(): void;
}

export async function createFauxSetup(): Promise<FauxSetup> {
	const root = mkdtempSync(join(tmpdir(), "pi-workflows-bench-"));
	// Credentials and the model catalog cache in memory: file-backed ones write auth.json and models-store.json from
	// background refreshes that can land after dispose() and make the removed folder again.
	const modelRuntime = await ModelRuntime.create({
		credentials: new InMemoryCredentialStore(),
		modelsStore: new InMemoryModelsStore(),
		modelsPath: join(root, "models.json"),
		allowModelNetwork: false,
	});
	const faux = fauxProvider({ provider: "faux", models: [{ id: "faux-1" }] });
	modelRuntime.registerNativeProvider(faux.provider);
	let replies = 0;
	let replyMs = 0;
	// The provider answers from one queue: each reply queues the next, so it never runs dry. A reply comes on a
	// later turn of the event loop, as a network answer would: a child that only ever waits on microtasks would hold
	// the host's event loop from its start to its end, and no other work (other calls arriving) could interleave.
	const reply: FauxResponseFactory = async () => {
		faux.appendResponses([reply]);
		await new Promise((resolve) => setImmediate(resolve));
		const started = performance.now();
		const message = fauxAssistantMessage("Done.");
		replies++;
		replyMs += performance.now() - started;
		return message;
	};
	faux.setResponses([reply]);
	const model = modelRuntime.getModel("faux", "faux-1");
	if (!model) throw new Error("The faux model is not registered");
	return {
		modelRuntime,
		model,
		cwd: mkdtempSync(join(root, "project-")),
		agentDir: mkdtempSync(join(root, "agent-")),
		get replies() {
			return replies;
		},
		get replyMs() {
			return replyMs;
		},
		dispose() {
			modelRuntime.unregisterProvider("faux");
			rmSync(root, { recursive: true, force: true });
		},
	};
}
