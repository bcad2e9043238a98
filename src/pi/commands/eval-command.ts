/**
 * `/workflows eval <file|name>`: an eval (docs/evaluating-workflows.md) in the background of the session, as
 * `pi-workflows eval` runs it: every trial a recorded run whose children are pi sessions on the session's model (an
 * arm's `model` and `modelTiers` over it), the trials done in the status line, and the scorecard as one message at
 * the end. The person keeps the session while it runs; `/workflows` lists each trial's run as it goes.
 */
import type { ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { loadAgentTypes } from "../../agents/agent-types.ts";
import { sessionTrust } from "../../agents/project-trust.ts";
import { ChildControls } from "../../children/controls.ts";
import type { ModelTiers } from "../../children/model.ts";
import { errorMessage } from "../../errors.ts";
import { evaluateWorkflows } from "../../eval/evaluate-workflows.ts";
import { findEvalFile, readEvalFile, scorecardText } from "../../eval/index.ts";
import type { SetUpTrialRunner } from "../../eval/recorded-trial.ts";
import { DATA_FENCE_NOTE, dataFence } from "../../progress/model-text.ts";
import type { WorkflowAgentRunner } from "../../runtime/core/types.ts";
import { commandRequest, runProvenance } from "../../tool/provenance.ts";
import type { RunnerSetup, WorkflowSessionDefaults } from "../../tool/workflow-tool.ts";
import type { WorkflowsSubcommand } from "./workflows-command.ts";

export interface EvalSubcommandOptions {
	agentDir: string;
	/** Builds a trial's runner, as the `workflow` tool builds a run's (`WorkflowToolOptions.createRunner`). */
	makeRunner: (ctx: ExtensionContext, setup: RunnerSetup) => Promise<WorkflowAgentRunner>;
	/** The session's flags and settings for runs (its child model, tiers, the provenance frame). */
	defaults?: () => WorkflowSessionDefaults;
	/** An arm's `modelTiers` text ("small=a/b,big=c/d") as tiers; what is wrong with it goes to `problems`. */
	tiersOf?: (text: string, problems: string[]) => ModelTiers | undefined;
	/** The scorecard, or why the eval could not finish, into the conversation (no turn: the person asked for it). */
	send: (text: string) => void;
	/** The session's running evals: pi ending the session aborts each (its finished trials are kept). */
	running: Set<AbortController>;
}

/** The scorecard's message in the session. */
export const EVAL_MESSAGE_TYPE = "workflows-eval";

/** Status-line keys: two evals of one session each keep their own line. */
let evals = 0;

export function workflowsEvalSubcommand(options: EvalSubcommandOptions): WorkflowsSubcommand {
	return async (rest: string, ctx: ExtensionCommandContext) => {
		const target = rest.trim();
		if (target === "") {
			ctx.ui.notify(
				"Usage: /workflows eval <file|name>: an eval file (review-ab.eval.json), or a saved workflow's name whose <name>.eval.json sits beside it. pi-workflows eval --help says more",
				"warning",
			);
			return;
		}
		let file: string;
		let name: string;
		try {
			file = findEvalFile(target, { cwd: ctx.cwd, agentDir: options.agentDir });
			name = readEvalFile(file, ctx.cwd).name;
		} catch (error) {
			ctx.ui.notify(errorMessage(error), "error");
			return;
		}
		const key = `workflows-eval-${++evals}`;
		ctx.ui.notify(
			`Eval ${name} started in the background: each trial is a recorded run (/workflows lists them); the scorecard comes as a message when it ends`,
			"info",
		);
		const runners = trialRunners(options, ctx, `eval ${target}`);
		const stop = new AbortController();
		options.running.add(stop);
		// Case ids, arm names and a grader's reasons are the eval's and its models' words: the model reads them fenced.
		const send = (text: string) =>
			options.send(`${DATA_FENCE_NOTE}\n${dataFence(`/workflows eval ${target}`, text)}`);
		void evaluateWorkflows(file, {
			cwd: ctx.cwd,
			agentDir: options.agentDir,
			agentRunner: runners.grader,
			setUpTrial: runners.trial,
			signal: stop.signal,
			onTrial: (_trial, finished, planned) =>
				ctx.ui.setStatus(key, `eval ${name}: ${finished} of ${planned} trials`),
		})
			.then(
				(card) => scorecardText(card),
				(error: unknown) =>
					`Eval ${name} could not finish: ${errorMessage(error)}. Its finished trials are kept: pi-workflows eval --list, then pi-workflows eval --resume <evalId>`,
			)
			.then((text) => {
				options.running.delete(stop);
				ctx.ui.setStatus(key, undefined);
				send(text);
			});
	};
}

/** Each trial's runner, recording into its run; and the grader's, recorded in no run (grading is not the workflow). */
function trialRunners(
	options: EvalSubcommandOptions,
	ctx: ExtensionCommandContext,
	command: string,
): { trial: SetUpTrialRunner; grader: WorkflowAgentRunner } {
	const defaults = options.defaults?.() ?? {};
	const types = loadAgentTypes({ cwd: ctx.cwd, agentDir: options.agentDir, trust: sessionTrust(ctx) });
	const base = {
		agentDir: options.agentDir,
		agentTypes: types.types,
		projectTrusted: types.projectTrusted,
		...(defaults.childModel ? { childModel: defaults.childModel } : {}),
		...(defaults.modelTiers ? { modelTiers: defaults.modelTiers } : {}),
	};
	const trial: SetUpTrialRunner = async (request, hooks) => {
		const problems: string[] = [];
		const tiers =
			request.arm.modelTiers !== undefined ? options.tiersOf?.(request.arm.modelTiers, problems) : undefined;
		if (problems.length > 0) throw new Error(`arm ${request.key.arm}: ${problems.join("; ")}`);
		const provenance = runProvenance(
			defaults.frame,
			{ kind: "file", path: request.script.filename },
			commandRequest("workflows", command),
		);
		const runner = await options.makeRunner(ctx, {
			...base,
			...hooks,
			controls: new ChildControls(),
			...(request.arm.model !== undefined
				? { childModel: { reference: request.arm.model, source: `arm ${request.key.arm} of the eval` } }
				: {}),
			...(tiers ? { modelTiers: tiers } : {}),
			...(provenance ? { provenance } : {}),
		});
		return { runner, agentTypes: [...types.types.keys()] };
	};
	let graderRunner: Promise<WorkflowAgentRunner> | undefined;
	// Set up at a grader's first agent() call: a code grader needs no model.
	const grader: WorkflowAgentRunner = async (request, context) => {
		graderRunner ??= options.makeRunner(ctx, {
			...base,
			worktreePlace: async () => undefined,
			controls: new ChildControls(),
		});
		return (await graderRunner)(request, context);
	};
	return { trial, grader };
}
