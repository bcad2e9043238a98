/**
 * The `pi-workflows` command: picks the command, prints help, and turns what a command throws into one line on
 * stderr and exit code 2. `run` and `resume` load pi only when they run, so everything else works without it.
 */
import { errorMessage, isWorkflowError } from "../errors.ts";
import { usageError } from "./args.ts";
import { checkCommand } from "./check.ts";
import type { CliContext } from "./context.ts";
import { blameCommand } from "./eval/blame-command.ts";
import { evalCommand } from "./eval/eval-command.ts";
import { COMMAND_NAMES, helpText } from "./help.ts";
import { reportCommand } from "./report.ts";
import { resumeCommand, runCommand } from "./run.ts";
import { runsCommand } from "./runs.ts";
import { testCommand } from "./test.ts";
import { verifyCommand } from "./verify.ts";
import { workerCommand, workersCommand } from "./worker.ts";

const COMMANDS: Record<string, (argv: readonly string[], ctx: CliContext) => Promise<number>> = {
	run: runCommand,
	resume: resumeCommand,
	check: checkCommand,
	runs: runsCommand,
	worker: workerCommand,
	workers: workersCommand,
	report: reportCommand,
	test: testCommand,
	verify: verifyCommand,
	eval: evalCommand,
	blame: blameCommand,
};

/** Runs one command line; resolves with the exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
	const [command, ...rest] = argv;
	try {
		if (command === undefined || command === "--help" || command === "-h") {
			ctx.stdout.write(`${helpText()}\n`);
			return command === undefined ? 2 : 0;
		}
		if (command === "help") {
			const text = helpText(rest[0]);
			if (text === undefined) throw unknownCommand(rest[0] ?? "");
			ctx.stdout.write(`${text}\n`);
			return 0;
		}
		const handler = COMMANDS[command];
		if (!handler) throw unknownCommand(command);
		if (rest.includes("--help") || rest.includes("-h")) {
			ctx.stdout.write(`${helpText(command)}\n`);
			return 0;
		}
		return await handler(rest, ctx);
	} catch (error) {
		if (isWorkflowError(error)) {
			ctx.stderr.write(`pi-workflows: ${error.message}\n`);
			return 2;
		}
		ctx.stderr.write(`pi-workflows: internal error: ${errorMessage(error)}. Please report it\n`);
		return 1;
	}
}

function unknownCommand(command: string) {
	return usageError(
		`no command \`${command}\`: use one of ${COMMAND_NAMES.join(", ")} (pi-workflows --help lists them)`,
	);
}
