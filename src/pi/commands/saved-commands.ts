/**
 * Every saved workflow as a slash command `/<meta.name>`: the arguments are JSON or `key=value` words read against
 * `meta.args` (completions from it too), a missing required one is asked for where pi has dialogs, and the command
 * starts a background run itself, with no model turn; its completion message waits in the conversation for the
 * model's next turn. A name another command has keeps its owner: that workflow stays reachable as
 * `/workflows run <name>`.
 */
import type { ExtensionAPI, ExtensionCommandContext, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../../errors.ts";
import {
	type ArgCompletion,
	argCompletions,
	coerceArgValue,
	commandUsage,
	missingArgs,
	parseCommandArgs,
	takeDryRunFlag,
} from "../../host/command-args.ts";
import { branchOf, parentConversationOf } from "../../host/parent-conversation.ts";
import {
	findSaved,
	loadSavedWorkflows,
	type SavedWorkflow,
	type SavedWorkflowPlaces,
} from "../../host/script-source.ts";
import { installedLines } from "../../host/verify.ts";
import type { JsonValue } from "../../runtime/core/types.ts";
import { commandRequest } from "../../tool/provenance.ts";
import type { WorkflowStarter, WorkflowToolParams } from "../../tool/workflow-tool.ts";
import type { WorkflowRunMessage } from "../runs/messages.ts";
import type { WorkflowsSubcommand } from "./workflows-command.ts";

/**
 * pi's built-in interactive commands as of pi 1.6.0: its `BUILTIN_SLASH_COMMANDS` (which pi does not export) and the
 * three its interactive mode answers without listing them (debug, arminsayshi, dementedelves). pi runs these before
 * any extension command, so a workflow of one of these names could never run as `/<name>`: it is a clash, and
 * saving a workflow under one is refused. test/pi/saved-commands.test.ts checks this list against pi's own files.
 */
export const PI_BUILTIN_COMMANDS: readonly string[] = [
	"settings",
	"model",
	"tree",
	"thinking",
	"scoped-models",
	"export",
	"import",
	"share",
	"bug",
	"copy",
	"name",
	"session",
	"changelog",
	"hotkeys",
	"fork",
	"clone",
	"trust",
	"login",
	"logout",
	"new",
	"compact",
	"resume",
	"reload",
	"quit",
	"debug",
	"arminsayshi",
	"dementedelves",
];

/** What the commands need from the extension. */
export interface SavedCommandsOptions {
	/** Starts runs as the `workflow` tool does. */
	starter: WorkflowStarter;
	agentDir: string;
	/** The bundled workflows' folder, or false for none. Default: the package's. */
	bundledDir?: string | false;
	/** Delivers a command-started run's completion message without starting a turn. */
	notify: (message: WorkflowRunMessage) => void;
	/** Command names this extension owns already (`workflows`): a workflow of that name clashes too. */
	ownCommands: readonly string[];
	/** pi's decision about the session's project, which its pi packages follow. Default: not trusted. */
	projectTrusted?: boolean;
}

/** What registering found. */
export interface SavedCommandsReport {
	/** Workflows registered as `/<name>`. */
	registered: string[];
	/** One line per workflow left without a command of its own, naming the clash. */
	warnings: string[];
	/** Every saved workflow found, by name (with or without a command). */
	saved: Map<string, SavedWorkflow>;
}

/**
 * Registers `/<name>` for each saved workflow of `cwd` whose name no other command has. `mine` holds the names
 * this extension registered earlier in the process (a session replaced or reloaded re-registers them, which pi
 * allows: the new definition replaces the old).
 */
export function registerSavedWorkflowCommands(
	pi: Pick<ExtensionAPI, "registerCommand" | "getCommands">,
	cwd: string,
	options: SavedCommandsOptions,
	mine: Set<string>,
): SavedCommandsReport {
	const places = placesOf(cwd, options);
	const { byName, warnings } = loadSavedWorkflows(places);
	const taken = takenNames(pi, mine, options.ownCommands);
	const registered: string[] = [];
	for (const saved of [...byName.values()].sort((a, b) => a.name.localeCompare(b.name))) {
		const owner = taken.get(saved.name);
		if (owner) {
			warnings.push(
				`Saved workflow \`${saved.name}\` (${saved.filename}) has no command of its own: /${saved.name} is ${owner}. Run it with /workflows run ${saved.name}`,
			);
			continue;
		}
		if (/[\s/]/.test(saved.name)) {
			warnings.push(
				`Saved workflow \`${saved.name}\` (${saved.filename}) has no command: its name has a space or a /. Rename meta.name to use it as /<name>`,
			);
			continue;
		}
		pi.registerCommand(saved.name, savedWorkflowCommand(saved, options));
		mine.add(saved.name);
		registered.push(saved.name);
	}
	return { registered, warnings, saved: byName };
}

/** The command of one saved workflow. */
export function savedWorkflowCommand(
	saved: SavedWorkflow,
	options: SavedCommandsOptions,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
	return {
		description: `Workflow (${saved.installed ? `installed from ${saved.installed.shown}, sha256 ${saved.installed.sha256.slice(0, 12)}` : saved.scope}): ${saved.meta.description.replace(/\s+/g, " ").trim()}`,
		getArgumentCompletions: (prefix) => argCompletions(prefix, saved.meta),
		handler: (args, ctx) => runSavedWorkflow(saved.name, args, ctx, options),
	};
}

/**
 * `/<name> args` and `/workflows run <name> args`: reads the workflow from disk again (it may have changed since
 * the command was registered), reads the arguments, asks for missing required ones, and starts a background run.
 * Every problem is shown (`show`), with the usage where the arguments were the problem.
 */
export async function runSavedWorkflow(
	name: string,
	text: string,
	ctx: ExtensionCommandContext,
	options: SavedCommandsOptions,
): Promise<void> {
	let saved: SavedWorkflow;
	try {
		saved = findSaved(name, placesOf(ctx.cwd, options));
	} catch (error) {
		show(ctx, `/${name}: ${errorMessage(error)}`, "error");
		return;
	}
	const { dryRun, text: words } = takeDryRunFlag(text);
	let args: JsonValue;
	try {
		args = parseCommandArgs(words, name, saved.meta);
	} catch (error) {
		show(ctx, errorMessage(error), "error");
		return;
	}
	// A dry run given no args at all runs on a sample of the schema: nothing to ask for.
	if (dryRun && words === "") return startSaved(name, { name, dryRun: true }, ctx, options, saved);
	const missing = missingArgs(args, saved.meta);
	let said = text;
	if (missing.length > 0) {
		if (!ctx.hasUI) {
			const list = missing.map((arg) => `\`${arg.name}\``).join(", ");
			show(ctx, `/${name}: missing required argument ${list}\n${commandUsage(name, saved.meta)}`, "error");
			return;
		}
		const filled = await askFor(name, missing, ctx, saved);
		if (!filled) return;
		args = { ...(args as Record<string, JsonValue>), ...filled };
		// What the person typed into the dialogs is theirs too: the frame relays it with the command line.
		said = `${text} (then, asked for: ${JSON.stringify(filled)})`;
	}
	await startSaved(
		name,
		dryRun ? { name, args, dryRun: true } : { name, args, background: true },
		ctx,
		options,
		saved,
		said,
	);
}

/** Starts the run (or the dry run) and shows what it gave; a dry run blocks, and its plan is what it shows. */
async function startSaved(
	name: string,
	params: WorkflowToolParams,
	ctx: ExtensionCommandContext,
	options: SavedCommandsOptions,
	saved: SavedWorkflow,
	text = "",
): Promise<void> {
	try {
		// No tool call to cut at: children that fork start from the whole conversation so far (none in a new session).
		const parentConversation = parentConversationOf(branchOf(ctx));
		const result = await options.starter.start(params, {
			ctx,
			notify: options.notify,
			person: commandRequest(name, text),
			...(parentConversation ? { parentConversation } : {}),
		});
		const shown = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
		show(ctx, shown, result.isError ? "error" : "info");
	} catch (error) {
		const usage = (error as { code?: unknown }).code === "args_invalid" ? `\n${commandUsage(name, saved.meta)}` : "";
		show(ctx, `/${name}: ${errorMessage(error)}${usage}`, "error");
	}
}

/** Asks for each missing argument in turn; undefined (and a note with the usage) when one is cancelled or wrong. */
async function askFor(
	name: string,
	missing: ReturnType<typeof missingArgs>,
	ctx: ExtensionCommandContext,
	saved: SavedWorkflow,
): Promise<Record<string, JsonValue> | undefined> {
	const filled: Record<string, JsonValue> = {};
	const properties = (saved.meta.args?.properties ?? {}) as Record<string, Record<string, unknown>>;
	for (const arg of missing) {
		const answer = await ctx.ui.input(
			`/${name}: ${arg.name} (${arg.type})`,
			arg.description ?? `the workflow needs ${arg.name}`,
		);
		if (answer === undefined || answer.trim() === "") {
			show(ctx, `/${name}: not started, \`${arg.name}\` was not given.\n${commandUsage(name, saved.meta)}`, "info");
			return undefined;
		}
		try {
			filled[arg.name] = coerceArgValue(answer.trim(), properties[arg.name], (problem) => {
				throw new Error(`\`${arg.name}\`: ${problem}`);
			});
		} catch (error) {
			show(ctx, `/${name}: ${errorMessage(error)}\n${commandUsage(name, saved.meta)}`, "error");
			return undefined;
		}
	}
	return filled;
}

/**
 * Tells the person: pi's notification; in print mode, where notifications go nowhere and the run was blocking,
 * stderr (pi keeps stdout for the model's answer and sends an extension's stdout there anyway), so
 * `pi -p "/name args"` shows what the run gave.
 */
function show(ctx: ExtensionCommandContext, text: string, level: "info" | "warning" | "error"): void {
	if (ctx.mode === "print") {
		process.stderr.write(`${text}\n`);
		return;
	}
	ctx.ui.notify(text, level);
}

/** What `getCommands` sources are called in a clash warning. */
const SOURCE_WORDS: Record<string, string> = {
	extension: "an extension command",
	prompt: "a prompt template",
	skill: "a skill",
};

/** Names other commands have, each with who has it, for the clash warning. */
function takenNames(
	pi: Pick<ExtensionAPI, "getCommands">,
	mine: Set<string>,
	own: readonly string[],
): Map<string, string> {
	const taken = new Map<string, string>();
	for (const name of PI_BUILTIN_COMMANDS) taken.set(name, "a pi built-in command");
	for (const name of own) taken.set(name, "this extension's own command");
	let commands: ReturnType<ExtensionAPI["getCommands"]> = [];
	try {
		commands = pi.getCommands();
	} catch {
		// Not bound to a session yet: only the built-ins are known.
	}
	for (const command of commands) {
		// pi suffixes a name two extensions registered (`review:1`): the clash is on the name itself.
		const name = command.name.replace(/:\d+$/, "");
		if (command.source === "extension" && mine.has(name)) continue;
		if (!taken.has(name))
			taken.set(
				name,
				`${SOURCE_WORDS[command.source] ?? `a ${command.source} command`} (${command.sourceInfo.path})`,
			);
	}
	return taken;
}

function placesOf(cwd: string, options: SavedCommandsOptions): SavedWorkflowPlaces {
	return {
		cwd,
		agentDir: options.agentDir,
		projectTrusted: options.projectTrusted === true,
		...(options.bundledDir !== undefined ? { bundledDir: options.bundledDir } : {}),
	};
}

/** `/workflows run <name> [args]`: a saved workflow by name, also one whose name another command has. */
export function workflowsRunSubcommand(options: SavedCommandsOptions): WorkflowsSubcommand {
	return async (rest, ctx) => {
		const [name = "", ...args] = rest.trim().split(/(?<=^\S+)\s+/);
		if (name === "") {
			const { byName } = loadSavedWorkflows(placesOf(ctx.cwd, options));
			const names = [...byName.keys()].sort();
			// Installed ones again with where they came from and their digest: what `/<package>:<name>` would run.
			const installed = installedLines([...byName.values()].sort((a, b) => a.name.localeCompare(b.name)));
			const usage = `Usage: /workflows run <name> [args]. Saved workflows: ${names.join(", ") || "none"}`;
			show(ctx, [usage, ...installed].join("\n"), "error");
			return;
		}
		await runSavedWorkflow(name, args.join(" "), ctx, options);
	};
}

/** Completes `/workflows run <name> [args]`: the names of `saved()`, then the named workflow's arguments. */
export function workflowsRunCompletions(
	saved: () => ReadonlyMap<string, SavedWorkflow>,
): (rest: string) => ArgCompletion[] | null {
	return (rest) => {
		const space = rest.indexOf(" ");
		if (space < 0) {
			const items = [...saved().values()]
				.filter((workflow) => workflow.name.startsWith(rest))
				.sort((a, b) => a.name.localeCompare(b.name))
				.map((workflow) => ({
					value: `${workflow.name} `,
					label: workflow.name,
					description: workflow.meta.description,
				}));
			return items.length > 0 ? items : null;
		}
		const workflow = saved().get(rest.slice(0, space));
		const items = workflow ? argCompletions(rest.slice(space + 1), workflow.meta) : null;
		return items ? items.map((item) => ({ ...item, value: `${workflow?.name} ${item.value}` })) : null;
	};
}

/** `/workflows save <runId> [name] [--force]`: a run's script as `.pi/workflows/<name>.js`; `saved` runs after. */
export function workflowsSaveSubcommand(
	save: (request: { cwd: string; runId: string; name?: string; overwrite?: boolean }) => Promise<string>,
): WorkflowsSubcommand {
	return async (rest, ctx) => {
		const words = rest
			.trim()
			.split(/\s+/)
			.filter((word) => word !== "");
		const force = words.includes("--force");
		const [runId, name, extra] = words.filter((word) => word !== "--force");
		if (runId === undefined || extra !== undefined || words.some((w) => w.startsWith("-") && w !== "--force")) {
			ctx.ui.notify(
				"Usage: /workflows save <runId> [name] [--force]. The run id is in /workflows; --force replaces a saved workflow of that name",
				"error",
			);
			return;
		}
		try {
			const text = await save({
				cwd: ctx.cwd,
				runId,
				...(name !== undefined ? { name } : {}),
				overwrite: force,
			});
			ctx.ui.notify(text, "info");
		} catch (error) {
			ctx.ui.notify(`/workflows save: ${errorMessage(error)}`, "error");
		}
	};
}
