/**
 * A queued child's conversation between workers (issue 47). The worker keeps the child's conversation in a scratch
 * run folder of the job's, as a local run keeps its children's, and after every finished turn copies the file to
 * Redis under the job's key. When the worker dies, BullMQ gives the same job (the same id) to another worker, which
 * puts that copy back in its own folder before the child starts: the runner finds it by the call's key, as it finds
 * an interrupted attempt's conversation on a resume, and the child goes on from its last finished turn.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import type { Redis } from "ioredis";
import type { PiAgentRunnerOptions } from "../children/agent-runner.ts";
import { restoreConversation } from "../children/child-record.ts";
import { errorMessage } from "../errors.ts";
import type { WorkflowAgentRequest } from "../runtime/core/types.ts";
import { scratchFolder } from "./job-place.ts";
import { conversationKey, STOP_KEY_TTL_S } from "./protocol.ts";

/** One job's conversation: the runner's options that keep and copy it, and what became of an earlier worker's. */
export interface JobConversation {
	runner: Required<Pick<PiAgentRunnerOptions, "runFolder" | "record" | "hooks">>;
	/** Why an earlier worker's copy was not used, when there was one. */
	warning?: string;
	/** The job ended (whatever its result): its copy goes. */
	finish(): Promise<void>;
	dispose(): Promise<void>;
}

/**
 * Opens the job's folder, with an earlier worker's copy of the conversation in it when there is one and `goOn` (a
 * child in a worktree of the run's commit does not: the earlier worker's edits died with it).
 */
export async function openJobConversation(
	commands: Redis,
	queueName: string,
	jobId: string,
	request: WorkflowAgentRequest,
	options: { goOn: boolean; log: (line: string) => void },
): Promise<JobConversation> {
	const key = conversationKey(queueName, jobId);
	const dir = await scratchFolder();
	let warning: string | undefined;
	try {
		const earlier = await commands.get(key);
		if (earlier && options.goOn) await restoreConversation(dir, request, earlier);
		else if (earlier) {
			warning =
				"its earlier worker stopped mid-child, and its worktree went with that worker, so it started afresh rather than from the earlier attempt's finished turns";
		}
	} catch (error) {
		options.log(`could not read ${jobId}'s earlier conversation: ${errorMessage(error)}`);
	}
	/** The session file the child's current session appends to, relative to `dir`. */
	let current: string | undefined;
	/** What Redis holds: which file, and how many of its bytes. */
	let sent = { path: "", bytes: 0 };
	let copying: Promise<unknown> = Promise.resolve();
	// A session file only grows: each turn sends what it added, so a long child's copies stay linear in its size.
	const copy = () => {
		const path = current;
		if (!path) return;
		copying = copying
			.then(async () => {
				const bytes = await readFile(join(dir, path));
				const grown = sent.path === path && sent.bytes > 0 && bytes.length >= sent.bytes;
				if (!grown) await commands.set(key, bytes, "EX", STOP_KEY_TTL_S);
				else if (bytes.length > sent.bytes) {
					const replies = await commands
						.multi()
						.append(key, bytes.subarray(sent.bytes))
						.expire(key, STOP_KEY_TTL_S)
						.exec();
					const failed = replies?.find(([error]) => error)?.[0];
					if (failed) throw failed;
				}
				sent = { path, bytes: bytes.length };
			})
			.catch((error: unknown) => options.log(`could not copy ${jobId}'s conversation: ${errorMessage(error)}`));
	};
	return {
		runner: {
			runFolder: async () => dir,
			record: (event) => {
				if (event.type === "child_transcript" && typeof event.path === "string") current = event.path;
			},
			hooks: {
				onSessionCreated: (session: AgentSession) => {
					session.subscribe((event) => {
						if (event.type === "turn_end") copy();
					});
				},
			},
		},
		...(warning ? { warning } : {}),
		async finish() {
			await copying;
			await commands.del(key).catch(() => {});
		},
		dispose: () => rm(dir, { recursive: true, force: true }),
	};
}
