/**
 * Saving a run's script as a saved workflow (`/workflows save`, `workflow_runs { action: "save" }`): the script the
 * run record keeps, its header's `name` rewritten in place (every other position unchanged), checked by the static
 * pass, written to `.pi/workflows/<name>.js`. It never replaces a saved workflow unless asked.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Node, ObjectExpression, Property } from "acorn";
import { listAvailableAgentTypes, loadAgentTypes } from "../../agents/agent-types.ts";
import { formatDiagnostic } from "../../authoring/diagnostic.ts";
import { errorMessage, WorkflowError } from "../../errors.ts";
import { loadSavedWorkflows } from "../../host/script-source.ts";
import type { RunStore } from "../../runs/index.ts";
import { checkWorkflowScript } from "../../runtime/index.ts";
import { parseWorkflowProgram } from "../../runtime/meta/read.ts";
import { PI_BUILTIN_COMMANDS } from "./saved-commands.ts";
import { RUNS_COMMAND_NAME } from "./workflows-command.ts";

/** What to save. */
export interface SaveRunOptions {
	store: RunStore;
	runId: string;
	/** The saved workflow's `meta.name` (and file name). Default: the run's own `meta.name`. */
	name?: string;
	/** Replace a saved workflow of this project with the same name. Default: false. */
	overwrite?: boolean;
	/** pi's agent directory, for the agent types the check knows. */
	agentDir: string;
}

/** What was saved. */
export interface SavedRun {
	name: string;
	filename: string;
	/** True when it replaced a file. */
	replaced: boolean;
}

/** A name that is a file name and a slash command: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Names whose `/<name>` is pi's or ours: a workflow saved under one could not run as the command the save names. */
const RESERVED_NAMES: ReadonlyMap<string, string> = new Map([
	...PI_BUILTIN_COMMANDS.map((name) => [name, "a pi built-in command"] as const),
	[RUNS_COMMAND_NAME, "this extension's own command"],
]);

/**
 * Saves run `runId`'s script; throws `workflow_exists`, `args_invalid` (a bad or reserved name) or the static pass's
 * first error.
 */
export async function saveRunScript(options: SaveRunOptions): Promise<SavedRun> {
	const record = await options.store.open(options.runId);
	const script = record.info.script;
	const name = options.name ?? record.info.meta?.name;
	if (name === undefined || !NAME.test(name)) {
		throw new WorkflowError(
			"args_invalid",
			`Cannot save run ${options.runId} as ${name === undefined ? "a workflow without a name" : `\`${name}\``}: a saved workflow's name is letters, digits, ".", "_" or "-", starting with a letter or digit. Give another name`,
		);
	}
	const owner = RESERVED_NAMES.get(name);
	if (owner) {
		throw new WorkflowError(
			"args_invalid",
			`Cannot save run ${options.runId} as \`${name}\`: /${name} is ${owner}, which would run instead of the workflow. Reserved names: ${[...RESERVED_NAMES.keys()].join(", ")}. Give another name (/workflows save ${options.runId} <name>, or \`name\` of workflow_runs)`,
			{ details: { name, reserved: [...RESERVED_NAMES.keys()] } },
		);
	}
	const cwd = options.store.cwd;
	const dir = join(cwd, ".pi", "workflows");
	// A project workflow of that name may live in a file named otherwise: replacing means replacing that file.
	const existing = loadSavedWorkflows({ cwd, agentDir: options.agentDir, bundledDir: false }).byName.get(name);
	const filename = existing?.scope === "project" ? existing.filename : join(dir, `${name}.js`);
	const taken = existing?.scope === "project" || existsSync(filename);
	if (taken && options.overwrite !== true) {
		throw new WorkflowError(
			"workflow_exists",
			`A saved workflow \`${name}\` already exists at ${filename}; nothing was saved. Pass another name, or --force (/workflows save) or overwrite: true (workflow_runs) to replace it`,
			{ details: { name, filename } },
		);
	}
	const text = renameHeader(script, name, filename);
	const types = loadAgentTypes({ cwd, agentDir: options.agentDir });
	const report = checkWorkflowScript(text, { filename, agentTypes: listAvailableAgentTypes(types.types) });
	const errors = report.diagnostics.filter((diagnostic) => diagnostic.severity === "error");
	const first = errors[0];
	if (first) {
		throw new WorkflowError(
			first.code,
			`Run ${options.runId}'s script does not pass the check, so it was not saved (${errors.length} problem(s)); fix it and resume the run, or save another run:\n${errors.map((d) => `${filename}:${formatDiagnostic(d)}`).join("\n")}`,
			{ details: { diagnostics: errors } },
		);
	}
	try {
		mkdirSync(dir, { recursive: true });
		writeFileSync(filename, text, { flag: options.overwrite === true ? "w" : "wx" });
	} catch (error) {
		throw new WorkflowError("run_store", `Could not write ${filename}: ${errorMessage(error)}`, { cause: error });
	}
	return { name, filename, replaced: taken };
}

/**
 * `source` with the header's `name` value replaced by `name` as a JSON string; every other line is as it was. A
 * script whose header cannot be read is returned as it is, for the check to report.
 */
export function renameHeader(source: string, name: string, filename = "workflow.js"): string {
	let property: Property | undefined;
	try {
		const { program } = parseWorkflowProgram(source, { filename });
		for (const statement of program.body) {
			if (statement.type !== "ExportNamedDeclaration" || statement.declaration?.type !== "VariableDeclaration") {
				continue;
			}
			const declarator = statement.declaration.declarations.find(
				(d) => d.id.type === "Identifier" && d.id.name === "meta",
			);
			if (declarator?.init?.type === "ObjectExpression") property = nameProperty(declarator.init);
			break;
		}
	} catch {
		return source;
	}
	if (!property) return source;
	const value = property.value as Node;
	return `${source.slice(0, value.start)}${JSON.stringify(name)}${source.slice(value.end)}`;
}

function nameProperty(literal: ObjectExpression): Property | undefined {
	for (const property of literal.properties) {
		if (property.type !== "Property" || property.computed) continue;
		const key = property.key;
		const keyName = key.type === "Identifier" ? key.name : key.type === "Literal" ? key.value : undefined;
		if (keyName === "name") return property;
	}
	return undefined;
}

/** What a save says: where it went and how to run it. */
export function savedText(saved: SavedRun, runId: string): string {
	return `${saved.replaced ? "Replaced" : "Saved"} run ${runId}'s script as saved workflow \`${saved.name}\`: ${saved.filename}. Run it with /${saved.name} (or /workflows run ${saved.name}), or workflow({ name: "${saved.name}" }).`;
}
