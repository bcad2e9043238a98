/**
 * A child's conversation, read back from its pi session file in the run's folder: in pi's TUI a pager drawn with
 * pi's own message components (the user's message, the assistant's, each tool call with its result, as pi draws
 * them in a session), elsewhere as plain text. Reading never writes the file: it is parsed and loaded into an
 * in-memory `SessionManager`, whose context is what the child's model saw.
 */
import type { Message } from "@earendil-works/pi-ai";
import {
	AssistantMessageComponent,
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
	type ExtensionCommandContext,
	getMarkdownTheme,
	parseSessionEntries,
	SessionManager,
	type ToolDefinition,
	ToolExecutionComponent,
	UserMessageComponent,
} from "@earendil-works/pi-coding-agent";
import { type Component, Text, truncateToWidth } from "@earendil-works/pi-tui";
import { errorMessage, WorkflowError } from "../../errors.ts";
import type { ChildConversation } from "../../host/child-conversations.ts";
import { conversationLabel } from "../../host/child-conversations.ts";
import { visibleText } from "../../progress/visible-text.ts";
import { readKeptConversation } from "../../runs/index.ts";

/** Characters of one tool result or message the text view shows; the file has all of it. */
const TEXT_CHARS = 2000;

/**
 * The messages of `conversation` (its system message first when it has one), read only from the run's own folder:
 * a file that is now a link or not a regular one is refused (`run_store`), as a continued child's would be.
 */
export async function readConversation(
	conversation: Pick<ChildConversation, "dir" | "path" | "file">,
): Promise<{ messages: Message[]; cwd: string }> {
	const { file } = conversation;
	let kept: Awaited<ReturnType<typeof readKeptConversation>>;
	try {
		kept = await readKeptConversation(conversation.dir, conversation.path);
	} catch (error) {
		throw new WorkflowError("run_store", `Cannot read the conversation ${file}: ${errorMessage(error)}`, {
			details: { path: file },
		});
	}
	if (!kept) {
		throw new WorkflowError("run_store", `Cannot read the conversation ${file}: it is not there any more`, {
			details: { path: file },
		});
	}
	if ("refused" in kept) {
		throw new WorkflowError(
			"run_store",
			`The conversation ${file} ${kept.refused}: a run's conversations are read only from its own folder, never through a link or from a FIFO. Remove what stands there and put the run's file back, or open the file it points to yourself`,
			{ details: { path: file } },
		);
	}
	const text = kept.text;
	const entries = parseSessionEntries(text);
	const header = entries.find((entry) => entry.type === "session") as { cwd?: string } | undefined;
	if (!header) {
		throw new WorkflowError(
			"run_store",
			`${file} is not a pi session file (no session header). It may have been cut short; the run's event log still says what the child did`,
			{ details: { path: file } },
		);
	}
	const manager = SessionManager.inMemory(header.cwd ?? process.cwd(), undefined, entries);
	return { messages: manager.buildSessionContext().messages as Message[], cwd: header.cwd ?? process.cwd() };
}

/** The conversation as plain text: one block per message, long ones cut. */
export function conversationText(messages: readonly Message[]): string {
	const blocks: string[] = [];
	for (const message of messages) {
		if (message.role === "user") blocks.push(`── user\n${cut(contentText(message.content))}`);
		else if (message.role === "assistant") {
			const parts: string[] = [];
			for (const part of message.content) {
				if (part.type === "text" && part.text.trim()) parts.push(cut(part.text));
				else if (part.type === "thinking" && part.thinking.trim()) parts.push(`(thinking) ${cut(part.thinking)}`);
				else if (part.type === "toolCall") parts.push(`→ ${part.name} ${cut(JSON.stringify(part.arguments))}`);
			}
			const end =
				message.stopReason === "error" || message.stopReason === "aborted"
					? ` (${message.stopReason}${message.errorMessage ? `: ${message.errorMessage}` : ""})`
					: "";
			blocks.push(`── assistant${end}\n${parts.join("\n")}`);
		} else if (message.role === "toolResult") {
			blocks.push(
				`── ${message.toolName}${message.isError ? " (error)" : ""}\n${cut(contentText(message.content))}`,
			);
		} else if ((message as { role: string }).role === "system") {
			blocks.push("── system prompt and tool declarations (in the file)");
		}
	}
	return blocks.join("\n\n");
}

/** Shows `conversation`: pi's components in a pager in the TUI, its text elsewhere. */
export async function showConversation(ctx: ExtensionCommandContext, conversation: ChildConversation): Promise<void> {
	const { messages, cwd } = await readConversation(conversation);
	if (ctx.mode !== "tui") {
		ctx.ui.notify(
			`${conversationLabel(conversation)}\n${conversation.file}\n\n${conversationText(messages)}`,
			"info",
		);
		return;
	}
	await ctx.ui.custom<void>((tui, theme, keybindings, done) => {
		const body = messageComponents(
			messages,
			(name, id, args) => new ToolExecutionComponent(name, id, args, {}, builtInRenderer(name, cwd), tui, cwd),
		);
		let offset = 0;
		let expanded = false;
		let cache: { width: number; lines: string[] } | undefined;
		const linesAt = (width: number) => {
			if (cache?.width !== width)
				cache = { width, lines: body.flatMap((component) => [...component.render(width)]) };
			return cache.lines;
		};
		const height = () => Math.max(5, (tui.terminal?.rows ?? 30) - 4);
		return {
			render(width: number): string[] {
				const lines = linesAt(width);
				const page = height();
				offset = Math.max(0, Math.min(offset, lines.length - page));
				const shown = lines.slice(offset, offset + page);
				const where = `${lines.length === 0 ? 0 : offset + 1}-${offset + shown.length} of ${lines.length} lines`;
				const hint = `↑↓ PgUp PgDn Home End · e ${expanded ? "collapses" : "expands"} tool output · Esc closes · ${where}`;
				// A long path keeps its end: the file's name says which child and session it is.
				const file = conversation.file;
				const path = file.length <= width ? file : `…${file.slice(file.length - width + 1)}`;
				return [
					truncateToWidth(theme.bold(conversationLabel(conversation)), width),
					theme.fg("dim", path),
					...shown,
					truncateToWidth(theme.fg("dim", hint), width),
				];
			},
			handleInput(data: string): void {
				const page = height();
				if (keybindings.matches(data, "tui.select.cancel") || data === "q") {
					done();
					return;
				}
				if (keybindings.matches(data, "tui.select.up")) offset -= 1;
				else if (keybindings.matches(data, "tui.select.down")) offset += 1;
				else if (keybindings.matches(data, "tui.select.pageUp")) offset -= page;
				else if (keybindings.matches(data, "tui.select.pageDown") || data === " ") offset += page;
				else if (data === "\x1b[H" || data === "g") offset = 0;
				else if (data === "\x1b[F" || data === "G") offset = Number.MAX_SAFE_INTEGER;
				else if (data === "e" || keybindings.matches(data, "app.tools.expand" as never)) {
					// As pi's ctrl+o in a session: tool results collapsed to their first lines, or whole.
					expanded = !expanded;
					for (const component of body)
						if (component instanceof ToolExecutionComponent) component.setExpanded(expanded);
					cache = undefined;
				} else return;
				offset = Math.max(0, offset);
				tui.requestRender();
			},
			invalidate() {
				cache = undefined;
				for (const component of body) component.invalidate();
			},
		};
	});
}

/**
 * pi's components for the messages, a tool call's result drawn in its call's component as pi does. Every text in
 * them (the child's, its model's, its tools') is made visible first: pi draws a message's text as it is.
 */
export function messageComponents(
	messages: readonly Message[],
	toolComponent: (name: string, id: string, args: unknown) => ToolExecutionComponent,
): Component[] {
	const markdown = getMarkdownTheme();
	const components: Component[] = [];
	const calls = new Map<string, ToolExecutionComponent>();
	for (const message of visibleStrings(messages)) {
		if (message.role === "user") components.push(new UserMessageComponent(contentText(message.content), markdown));
		else if (message.role === "assistant") {
			components.push(new AssistantMessageComponent(message, false, markdown));
			for (const part of message.content) {
				if (part.type !== "toolCall") continue;
				const call = toolComponent(part.name, part.id, part.arguments);
				call.setArgsComplete();
				call.markExecutionStarted();
				calls.set(part.id, call);
				components.push(call);
			}
		} else if (message.role === "toolResult") {
			const { content, isError, details } = message;
			calls.get(message.toolCallId)?.updateResult({ content, isError, details }, false);
		} else if ((message as { role: string }).role === "system") {
			components.push(new Text("(system prompt and tool declarations: in the file)", 1, 0));
		}
	}
	return components;
}

/** pi's built-in tools, for how pi draws their calls and results (never run here); others get pi's fallback. */
const BUILT_IN_TOOLS: Record<string, (cwd: string) => ToolDefinition> = {
	read: (cwd) => createReadToolDefinition(cwd) as unknown as ToolDefinition,
	bash: (cwd) => createBashToolDefinition(cwd) as unknown as ToolDefinition,
	edit: (cwd) => createEditToolDefinition(cwd) as unknown as ToolDefinition,
	write: (cwd) => createWriteToolDefinition(cwd) as unknown as ToolDefinition,
	grep: (cwd) => createGrepToolDefinition(cwd) as unknown as ToolDefinition,
	find: (cwd) => createFindToolDefinition(cwd) as unknown as ToolDefinition,
	ls: (cwd) => createLsToolDefinition(cwd) as unknown as ToolDefinition,
};

function builtInRenderer(name: string, cwd: string): ToolDefinition | undefined {
	return Object.hasOwn(BUILT_IN_TOOLS, name) ? BUILT_IN_TOOLS[name]?.(cwd) : undefined;
}

/** `value` with every string in it made visible; the file keeps the exact text. */
function visibleStrings<T>(value: T): T {
	if (typeof value === "string") return visibleText(value) as T;
	if (Array.isArray(value)) return value.map(visibleStrings) as T;
	if (value !== null && typeof value === "object") {
		return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visibleStrings(item)])) as T;
	}
	return value;
}

function contentText(content: Message["content"]): string {
	if (typeof content === "string") return content;
	return content
		.map((part) => (part.type === "text" ? part.text : part.type === "image" ? "[image]" : ""))
		.filter((text) => text !== "")
		.join("\n");
}

function cut(text: string): string {
	const trimmed = text.trim();
	return trimmed.length <= TEXT_CHARS
		? trimmed
		: `${trimmed.slice(0, TEXT_CHARS - 1)}… (${trimmed.length} characters in the file)`;
}
