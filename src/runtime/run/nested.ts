/**
 * `workflow(nameOrPath, args)`: runs another workflow inline, one level deep, in its own sandbox but sharing the
 * run's queue, counters, budget, limits, census, cancellation and events. A run starts a bounded number of them,
 * a bounded number at once, and each ends when the script that started it does.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { limitError, stripLocation, WorkflowError } from "../../errors.ts";
import { LabelledCalls } from "../agent/continuation.ts";
import { firstFrameIn } from "../core/call-site.ts";
import { assertJsonValue } from "../core/json.ts";
import { PhaseState } from "../core/phases.ts";
import { emitLog } from "../core/run-context.ts";
import type { JsonValue, WorkflowCutOff, WorkflowResolver } from "../core/types.ts";
import { validateArgs } from "../meta/read.ts";
import { type PhaseBudget, PhaseBudgets } from "../spend/phase-budget.ts";
import type { WholeRun, WholeScope } from "./scope.ts";
import { prepareWorkflow } from "./script-check.ts";
import { endScript, runScriptBody, unawaitedWorkError } from "./script-run.ts";

/**
 * Default resolver: a path to a `.js` file inside the run's cwd. A script may only name regular files under its
 * cwd (symlinks followed), so `workflow()` cannot read `/etc`, `/proc` or a device, nor tell which files exist there.
 * Hosts add names (saved workflows).
 */
export const resolveWorkflowPath: WorkflowResolver = async (nameOrPath, { cwd }) => {
	const filename = isAbsolute(nameOrPath) ? nameOrPath : resolve(cwd, nameOrPath);
	const notFound = () =>
		new WorkflowError(
			"workflow_not_found",
			`No workflow at \`${nameOrPath}\` (looked for ${filename}). Give a path to a .js workflow file relative to the run's cwd`,
			{ details: { nameOrPath, filename } },
		);
	if (!isInside(cwd, filename)) {
		throw new WorkflowError(
			"workflow_not_found",
			`\`workflow()\` takes a path inside the run's cwd (${cwd}); \`${nameOrPath}\` is outside it. Copy the workflow into the project`,
			{ details: { nameOrPath, cwd } },
		);
	}
	try {
		const real = await realpath(filename);
		if (!isInside(await realpath(cwd), real) || !(await stat(real)).isFile()) throw notFound();
		return { source: await readFile(real, "utf8"), filename };
	} catch {
		throw notFound();
	}
};

function isInside(dir: string, path: string): boolean {
	const rel = relative(dir, path);
	return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Runs a nested workflow called at the guest stack `stack` and returns its value; throws a coded error when it
 * fails. It waits for a running slot (abort-aware) and is stopped, and reported, if `parent` returns first.
 */
export async function runNestedWorkflow(
	parent: WholeScope,
	nameOrPath: JsonValue,
	args: JsonValue | undefined,
	stack: string,
): Promise<JsonValue> {
	const { run } = parent;
	if (parent.depth >= 1) {
		throw new WorkflowError(
			"workflow_nesting",
			"`workflow()` runs one level deep: a nested workflow cannot call `workflow()`. Call both workflows from the top-level script, passing what one returns to the other in `args`",
		);
	}
	if (typeof nameOrPath !== "string" || nameOrPath.trim() === "") {
		throw new TypeError(`\`workflow()\` takes a workflow name or a path, got ${JSON.stringify(nameOrPath)}`);
	}
	if (run.signal.aborted) throw run.signal.reason;
	chargeWorkflowCall(run);
	const site = firstFrameIn(stack, parent.filename);
	const entry: WorkflowCutOff = {
		kind: "workflow",
		name: nameOrPath,
		filename: parent.filename,
		...(site ?? {}),
		...(parent.workflowName ? { workflow: parent.workflowName } : {}),
	};
	const untrack = parent.life.track(entry);
	// The phases it was called in, as of the call: their budgets bound the nested workflow's agents too.
	const outer = callerBudgets(parent);
	try {
		return await run.nested.queue.run(() => runInSlot(parent, nameOrPath, args, entry, outer), parent.life.signal);
	} finally {
		untrack();
	}
}

/** The budgets of the phases `scope` is in now (the current one and those enclosing it), with its own outer ones. */
export function callerBudgets(scope: WholeScope): PhaseBudget[] {
	const current = scope.phases.current;
	return scope.phaseBudgets.chain(current !== undefined ? scope.phases.lineage(current) : [], scope.outerBudgets);
}

/** Counts one `workflow()` call, or throws `limit_workflows` past `limits.maxWorkflowCalls`. */
function chargeWorkflowCall(run: WholeRun): void {
	const limit = run.limits.maxWorkflowCalls;
	if (run.nested.calls >= limit) {
		throw limitError(
			"limit_workflows",
			"Too many `workflow()` calls in one run",
			limit,
			"Run fewer nested workflows, or raise `limits.maxWorkflowCalls`",
		);
	}
	run.nested.calls++;
}

/** The nested run itself, once it holds a running slot. */
async function runInSlot(
	parent: WholeScope,
	nameOrPath: string,
	args: JsonValue | undefined,
	entry: WorkflowCutOff,
	outerBudgets: readonly PhaseBudget[],
): Promise<JsonValue> {
	const { run } = parent;
	const { source, filename } = await run.host.resolveWorkflow(nameOrPath, { cwd: run.host.cwd });
	const parsed = prepareWorkflow(source, {
		filename,
		maxScriptBytes: run.limits.maxScriptBytes,
		...(run.host.agentTypes ? { agentTypes: run.host.agentTypes } : {}),
		...(run.host.agentTypesNote ? { agentTypesNote: run.host.agentTypesNote } : {}),
	});
	if (args !== undefined) assertJsonValue(args, "args");
	await validateArgs(parsed.meta, args, {
		session: run.schemas,
		...(parsed.argsLocation ? { location: parsed.argsLocation } : {}),
	});

	const name = parsed.meta.name;
	entry.name = name;
	const scope: WholeScope = {
		run,
		filename,
		keys: parent.keys.nested(name, args),
		phases: new PhaseState((event) => run.emit(event)),
		depth: parent.depth + 1,
		workflowName: name,
		life: parent.life.child(),
		name,
		...((parsed.meta.model ?? parent.model) !== undefined ? { model: parsed.meta.model ?? parent.model } : {}),
		phaseBudgets: new PhaseBudgets(),
		outerBudgets,
		labels: new LabelledCalls(),
	};
	emitLog(run, {
		level: "info",
		message: `workflow \`${name}\` started`,
		data: { workflow: name, filename },
	});
	for (const warning of parsed.warnings) emitLog(run, { level: "warn", message: warning });
	const outcome = await runScriptBody(scope, parsed, args);
	scope.phases.finish();
	const cut = endScript(scope, outcome.ok ? "returned" : "failed");
	if (outcome.ok && cut.length === 0) {
		emitLog(run, { level: "info", message: `workflow \`${name}\` finished`, data: { workflow: name } });
		return outcome.value;
	}
	const error = outcome.ok ? unawaitedWorkError(scope, cut) : outcome.error;
	const where = error.location ? ` at ${filename}:${error.location.line}:${error.location.column}` : "";
	throw new WorkflowError(error.code, `Nested workflow \`${name}\` failed${where}: ${stripLocation(error.message)}`, {
		details: {
			workflow: name,
			filename,
			...(error.location ? { line: error.location.line, column: error.location.column } : {}),
		},
	});
}
