/** The help texts: `pi-workflows --help` and `pi-workflows <command> --help`. */

const MAIN = `pi-workflows: run sandboxed JavaScript workflow scripts from the command line, children as pi sessions.

Usage:
  pi-workflows run <file|name> [options]   run a workflow (a .js file, or the meta.name of a saved one)
  pi-workflows resume <runId> [file]       re-run a failed or stopped run, replaying its finished agents
  pi-workflows check <file>                the authoring diagnostics, without running anything
  pi-workflows runs [--json]               this project's runs, newest first
  pi-workflows help [command]              this text, or a command's

Exit codes: 0 completed (or check passed), 1 failed (or check found errors), 130 stopped (Ctrl-C),
2 the command line is wrong (the message says what to change).
run and resume need pi (npm install @earendil-works/pi-coding-agent); help, check and runs do not.`;

const RUN_OPTIONS = `Options:
  --args <json|@file>      the script's args: inline JSON, or @path to a JSON file
  --model <provider/id>    the children's model when the agent file, the call and meta.model name none
                           (default: the workflows.childModel setting, else pi's default model, else the
                           first one pi has credentials for); provider/id:thinking sets the thinking level too
  --model-tiers <list>     the models agent() option tier names, as small=provider/id,big=provider/id
                           (default: the workflows.modelTiers setting)
  --max-cost <usd>         cap in US dollars on what the run's children spend: no new child starts past it
  --concurrency <n>        children running at once, 1-64 (default 4)
  --timeout <ms>           deadline for the whole run
  --max-provider-wait <ms> how long the run may wait in all for rate limits, overloads and usage limits
                           before it stops, resumable (default 1800000: 30 min; 0 stops at the first)
  -e, --extension <path>   load a pi extension, as pi -e does (custom providers); repeatable
  --allow-tools <names>    pi built-ins the script's tool() may call, e.g. bash,read (bash, read, grep, find,
                           ls, edit, write); none by default: there is no permission prompt here
  --json                   print the whole result object (status, value, error, failures, counts, usage, cost,
                           replayedCost, runId)
                           instead of the script's value

Progress goes to stderr (redrawn in place on a terminal, one line per event elsewhere); the result goes to
stdout as JSON. Auth, models and settings are pi's own (~/.pi/agent, or PI_CODING_AGENT_DIR). Every run is
recorded in pi's run store, as the workflow tool's runs are: see pi-workflows runs, and /workflows in pi.
Ctrl-C stops the children, saves the run and prints how to resume it.`;

const COMMANDS: Record<string, string> = {
	run: `pi-workflows run <file|name> [options]

Runs a workflow script with its children as pi sessions. <file> is a path (ends in .js or has a /);
anything else is the meta.name of a saved workflow (.pi/workflows/*.js, then ~/.pi/agent/workflows/*.js,
then the bundled ones: review-and-fix, test-triage, plan-implement-review, research-brief, …).

${RUN_OPTIONS}`,
	resume: `pi-workflows resume <runId> [file] [options]

Re-runs a failed or stopped run: agent calls that finished replay from its record, the rest run. With [file],
resumes with that (edited) script. Without --args, the run's own args. Takes the options of run:

${RUN_OPTIONS}`,
	check: `pi-workflows check <file> [--json]

Checks a script as a run would before starting it: the header (export const meta = {…}), syntax, and what the
script may not use. Prints each problem as file:line:column with the lines around it; --json prints
{ ok, diagnostics: [{ code, severity, message, fix, line, column, frame }] }. Exit code 0 when it passes, 1 when not.`,
	runs: `pi-workflows runs [--json]

Lists this project's workflow runs (the current directory's), newest first: id, name, status, age, agents done,
tokens, cost. --json prints the run store's summaries. Resume a failed or stopped one with pi-workflows resume <runId>.`,
};

/** The main help, or one command's; undefined for a command that does not exist. */
export function helpText(command?: string): string | undefined {
	if (command === undefined) return MAIN;
	return COMMANDS[command];
}

/** The commands, for "unknown command" messages. */
export const COMMAND_NAMES = Object.keys(COMMANDS);
