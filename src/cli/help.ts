/** The help texts: `pi-workflows --help` and `pi-workflows <command> --help`. */

const MAIN = `pi-workflows: run sandboxed JavaScript workflow scripts from the command line, children as pi sessions.

Usage:
  pi-workflows run <file|name> [options]   run a workflow (a .js file, or the meta.name of a saved one)
  pi-workflows run <file|name> --dry-run   what a run would do, with no model, credentials or side effects
  pi-workflows resume <runId> [file]       re-run a failed or stopped run, replaying its finished agents
  pi-workflows check <file>                the authoring diagnostics, without running anything
  pi-workflows test <file|name> --against <runId>
                                           run the script with every call answered from a past run:
                                           what diverges, at no cost (--save keeps it beside the script)
  pi-workflows verify <package:name>|--all workflows installed from pi packages against their locked digest
                                           and the replay test of the cassette they ship (--accept
                                           re-approves a changed file)
  pi-workflows runs [--json]               this project's runs, newest first, and the space they take
  pi-workflows runs <runId> [--json]       one run, and its children's conversation files
  pi-workflows runs <runId> --changes      which call wrote, edited or ran what (the run's ledger)
  pi-workflows runs --prune [--dry-run]    delete old run records (the newest 50 and the last 30 days stay)
  pi-workflows runs --delete <runId>       delete one run's record
  pi-workflows report <runId> [--text]     a run's timeline as one HTML file (or in the terminal)
  pi-workflows eval <file>.eval.json       is the workflow any good: arms over cases, repeated trials, graded,
                                           a scorecard and a verdict per arm against the baseline
  pi-workflows blame <runId> --with <passingRunId> --grader <grade.js>
                                           which agent() call ruined a failed run: each call's answer
                                           swapped for the passing run's and replayed, at no cost
  pi-workflows worker --redis <url>        run other machines' workflow children from a Redis queue
  pi-workflows workers --redis <url>       the live workers: labels, running children, last heartbeat
  pi-workflows help [command]              this text, or a command's

Exit codes: 0 completed (or check or test passed, or eval found no arm worse, or blame found the decisive call), 1
failed (or check or test found problems, or eval found an arm worse or did not finish, or blame found none), 130 stopped (Ctrl-C), 2 the command line is wrong (the
message says what to change).
run, resume, eval and worker need pi (npm install @earendil-works/pi-coding-agent); help, check, test, verify, blame,
runs, report and workers do not.`;

const RUN_OPTIONS = `Options:
  --args <json|@file>      the script's args: inline JSON, or @path to a JSON file
  --model <provider/id>    the children's model when the agent file, the call and meta.model name none
                           (default: the workflows.childModel setting, else pi's default model, else the
                           first one pi has credentials for); provider/id:thinking sets the thinking level too
  --model-tiers <list>     the models agent() option tier names, as small=provider/id,big=provider/id
                           (default: the workflows.modelTiers setting)
  --max-cost <usd>         the run's total cap in US dollars, for all its sessions: at it no new child starts,
                           running ones finish, and on a terminal you are asked for a higher cap (Enter stops);
                           without a terminal the run stops, resumable (exit 130), and prints the resume with
                           the --max-cost it needs. A new run is estimated first (a dry run, no model) and
                           warned about on stderr when the estimate is over the cap. On resume: what earlier
                           sessions spent counts, so a higher total goes on and the same one starts nothing
                           (default: the run's own cap, as last raised). A new run of a saved workflow given
                           none is capped by the dollar ceiling granted to its text (--grant), if any
  --concurrency <n>        children running at once, 1-64 (default 4)
  --timeout <ms>           deadline for the whole run
  --max-provider-wait <ms> how long the run may wait in all for rate limits, overloads and usage limits
                           before it stops, resumable (default 1800000: 30 min; 0 stops at the first)
  --slow-multiple <n>      a call or run that takes more than n times its usual duration (the median of its
                           earlier ones) is marked slower than usual, on its progress line and in the event
                           log; a number above 1 (default: the workflows.slowMultiple setting, else 5)
  -e, --extension <path>   load a pi extension, as pi -e does (custom providers); repeatable
  --allow-tools <names>    pi built-ins the script's tool() may call, e.g. bash,read (bash, read, grep, find,
                           ls, edit, write); none by default: there is no permission prompt here. For a saved
                           workflow it grants them to this version of its script (.pi/workflows.grants.json)
  --grant                  with --max-cost, for a saved workflow: grants that cap to this version of its script
                           as its dollar ceiling: its runs given no --max-cost take it as their cap (stderr says
                           so), and its runs in pi estimated over their cap but within it take it without asking,
                           until a byte of the file changes
  --redis <url>            send the children to workers (pi-workflows worker) through the Redis queue at <url>
                           (redis://[user:password@]host:6379, rediss:// for TLS) instead of running them here
  --redis-unreachable-ms <ms>  how long that Redis may stay unreachable before the waiting children fail
                           with queue_unreachable (default 60000)
  --placement-wait-ms <ms> with --redis: how long a child waits for a live worker with every label its
                           placement requires before it fails with placement_unsatisfiable (default 60000;
                           a call's placement.waitMs wins)
  -a, --approve            trust this project for this run, as pi -a does: its .pi extensions, skills and
                           settings load, and its agent files (.pi/agents, .agents/agents, .claude/agents)
                           are read; without it, pi's saved decision (/trust) or defaultProjectTrust decides
  -na, --no-approve        do not trust this project for this run, as pi -na does
  --json                   print the whole result object (status, value, error, failures, counts, usage, cost,
                           replayedCost, runId)
                           instead of the script's value
  --dry-run                run the script with no model: every agent() gets a made-up answer (a value its
                           schema accepts, else a text naming the call), read/ls/grep/find run, bash runs in a
                           read-only sandbox (bubblewrap: no network, a private /tmp; fenced where there is
                           none), edit and write do not (the script gets "[dry run] <tool> was not run"); no
                           credentials, session,
                           worktree or record. Prints the plan: phases, agent calls, widest fan-out, agent types
                           and models, tool steps, questions, the returned shape, warnings, then the estimated
                           cost per phase and in all, as a range with its basis (this workflow's earlier runs,
                           the project's, or the model's catalog price), over --max-cost or not (--json: as data,
                           the estimate under "estimate"). Without --args, args are sampled from meta.args. Not
                           for resume
  --no-sandboxed-bash      a dry run fences bash too instead of running it in the read-only sandbox
  --no-continue-interrupted
                           a child interrupted mid-work (a killed run, a stall) starts afresh on the resume or
                           retry rather than going on from its finished turns
  --no-frame               children get no provenance frame (who computed their task, the person's request:
                           see docs/children.md); default: on, unless workflows.provenanceFrame is false
  --answers <json|@file>   a dry run's ask() answers: {"question": "answer"} or ["first", "second"]
                           (default: each question's default, else its first choice)

Progress goes to stderr (redrawn in place on a terminal, one line per event elsewhere); the result goes to
stdout as JSON. Auth, models and settings are pi's own (~/.pi/agent, or PI_CODING_AGENT_DIR). Every run is
recorded in pi's run store, as the workflow tool's runs are: see pi-workflows runs, and /workflows in pi.
Ctrl-C stops the children, saves the run and prints how to resume it.`;

const WORKER = `pi-workflows worker --redis <url> [options]

Takes workflow children from the Redis queue at <url> (hosts send them with run --redis, or pi's
--workflow-redis) and runs each as a pi session on this machine's pi: its auth, models and tools.

Options:
  --redis <url>            the queue's Redis: redis://[user:password@]host:6379[/db], rediss:// for TLS
  --concurrency <n>        children this worker runs at once, 1-64 (default 2)
  -e, --extension <path>   load a pi extension, as pi -e does (custom providers); repeatable
  --name <name>            how hosts and logs name this worker (default: hostname:pid)
  --stalled-ms <ms>        how soon a dead worker's jobs go to other workers: a job's lock lasts this long,
                           renewed while its child runs; they move 0.75-1.4 times this after it died
                           (default 5000)
  --repo <git url>         the hosts' repository as this machine reaches it: each child works in a worktree
                           of its run's commit from a clone of it, and what it changes is pushed as branch
                           workflows/<runId>/<label>, which the host fetches as a kept branch
  --cache <dir>            where the clone of --repo lives (default ~/.pi/agent/workflow-worker/<name>;
                           worker processes on one machine need a folder each: give each its --name)
  --labels <list>          what this machine has, as gpu,region=eu,repo=acme: a child whose placement
                           requires labels goes only to a worker with every one of them (the
                           workflows.worker.labels setting adds to these)
  --labels-file <path>     more labels (separated by commas, spaces or lines), read again every second:
                           write the file to change what the worker has while it runs

Without --repo a child works in an empty scratch folder without edit/write: it answers, reads what its
prompt gives it and runs commands on this machine; isolation: "worktree" calls fail with that cause.
Ctrl-C (or SIGTERM) stops taking jobs and waits for the running children; a second quits at once.`;

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

Checks a script as a run would before starting it: the header (export const meta = {…}), syntax, what the
script may not use, and promises used without await (const a = agent(…); return { a } too: write await). Prints each problem as file:line:column with the lines around it; --json prints
{ ok, diagnostics: [{ code, severity, message, fix, line, column, frame }] }. Exit code 0 when it passes, 1 when not.`,
	runs: `pi-workflows runs [--json]
pi-workflows runs <runId> [--json]
pi-workflows runs <runId> --changes [--json]
pi-workflows runs --prune [--dry-run] [--keep <n>] [--older-than <days>] [--all] [--json]
pi-workflows runs --delete <runId> [--json]

Lists this project's workflow runs (the current directory's), newest first: id, name, status, age, agents done,
tokens, cost, the space its record takes; then how many runs there are and their space. --json prints the run
store's summaries (runId: the run's id, as run --json says it; id: the same, its old name; bytes: each record's size). Resume a failed or stopped one with pi-workflows resume <runId>.
With a run id: that run as /workflows shows it, then each child's conversation (a pi session file in the run's
folder: label, how it ended, model, size, path); --json prints its summary, folder and conversations.
--changes prints the run's ledger instead: by file, which calls wrote or edited it, in order; by call, every tool
its child ran (files with lines added/removed, commands with exit code and duration), the script's tool() steps
under "the script", the diff stat of an isolated child's branch; and the sha256 of the script each session ran,
with a diff when a resume ran an edited one. Only what pi reports of tools: not what a command did inside the shell.

--prune deletes old records, whole folders. Without --keep and --older-than it applies pi's workflows.retention
setting (.pi/settings.json over <agentDir>/settings.json), else keeps the newest 50 and everything from the last
30 days (a run goes only past both); --keep <n> keeps the newest n, --older-than <days> deletes runs older than that
(both: a run goes only past both). A running run is never deleted; a failed, stopped or interrupted one that a
resume could continue stays for 7 days unless --all: --all lets resumable runs from the last 7 days go too; it is not every run
(that is --prune --keep 0 --all). --dry-run lists what would go and deletes nothing. pi prunes by the same setting
when a session starts.

--delete <runId> deletes that one run's folder, however recent or resumable (as /workflows delete does); a run
running here or in another process is refused, naming it. --json prints what was deleted.`,
	report: `pi-workflows report <runId> [--out <file>] [--text [--width <n>]]

Writes a run's report as one self-contained HTML file (nothing fetched: open it offline in any browser) and prints
its path: the header, a timeline per session (a lane per agent call grouped by phase, each attempt a bar coloured
by outcome, queued time apart, waits and questions as bands, log entries as marks), running children over time,
tokens and cost by phase, why each call of a resume ran again, the census and the log. Default file: report.html
in the run's folder (pi-workflows runs --json shows where runs live); -o, --out <file> writes it elsewhere.
--text prints a compact timeline instead: the header's figures, then per session how it ended and one line per
call, a bar of --width characters (default 40) scaled to that session's length.`,
	eval: `pi-workflows eval <file>.eval.json|<name> [options]
pi-workflows eval --resume <evalId> | --regrade <evalId> | --list [--json]

Runs every case of the eval file through every arm, trials times each: each trial a real run recorded in the
run store (pi-workflows report <runId> opens it), arms interleaved per case. Each run is graded by the file's
grader (a workflow script given { case, output, status, error, costUsd, durationMs, runId } that returns
{ pass, score?, reason? }; without one a completed run passes), then the scorecard: per arm the pass rate and
its interval, pass^k, cost, cost per pass and median duration, and each arm's verdict against the baseline.
Each failing trial is then blamed against a passing trial of its case (its arm's first), as pi-workflows
blame does, at no cost: the scorecard names the calls whose answer decided it, and per arm how often each did.
Progress goes to stderr, the scorecard to stdout. The file's fields: docs/evaluating-workflows.md. A name
instead of a path is a saved workflow's: its eval saved beside it, .pi/workflows/<name>.eval.json (then
~/.pi/agent/workflows/<name>.eval.json).

Options:
  --trials <n>             runs of each case in each arm, 1-1000 (default: the file's trials, else 3)
  --cases <id,...>         only these cases
  --arms <name,...>        only these arms (the baseline always runs)
  --max-cost <usd>         cap in US dollars on the whole eval, arms and grading (default: the file's
                           maxCostUsd): at it no new trial starts, the running one stops at what is left, and
                           the eval ends unfinished (exit 1), resumable with a higher cap
  --model <provider/id>    the children's model for arms that name none (default: as pi-workflows run)
  -e, --extension <path>   load a pi extension, as pi -e does (custom providers); repeatable
  -a, --approve            trust this project for the eval's runs, as pi -a does
  -na, --no-approve        do not trust this project for the eval's runs, as pi -na does
  --json                   print the scorecard as data: arms, comparisons (as compareArms gives them),
                           every trial with its runId, output and grade, the arms' and the grading's cost,
                           and blame: each failing trial's decisive calls, per arm how often each decided
  --report <file.html>     also write the scorecard as one self-contained HTML file: the verdicts with their
                           intervals drawn, the arms, cost against pass rate, and a cases × arms grid (the
                           cases where the arms disagree first) where each trial is a mark linking to its
                           run's report (written in the run's folder)
  --dry-run                how many runs and their estimated cost per arm, of the grading and in all (each
                           arm's script and the grader dry-run on each case, priced as run --dry-run prices
                           it), starting nothing
  --resume <evalId>        run the trials an interrupted eval did not finish, keeping the finished ones
  --regrade <evalId>       grade the recorded outputs again with the eval file's grader as it is now:
                           no arm runs again
  --list                   past evals, newest first: id, name, trials finished of planned, when, the file
  --require better         exit 0 only when every arm is better than the baseline (default: when none is
                           worse)

Exit codes: 0 no arm is worse than the baseline (with --require better: every arm is better), 1 an arm is
worse, or the eval did not finish or a trial could not be graded, 2 the command line or the eval file is wrong.
Evals are kept in <agentDir>/workflow-evals/<evalId>/, beside the run store.`,
	worker: WORKER,
	workers: `pi-workflows workers --redis <url> [--json]

The workers taking children from the Redis queue at <url>, by their heartbeats (each renews one every second; one
not renewed for 5 s is not listed): name, labels, running children of its concurrency, last heartbeat, host.

Options:
  --redis <url>            the queue's Redis, as the workers were given it
  --json                   print [{ name, host, labels, concurrency, running, startedAt, at }]`,
	blame: `pi-workflows blame <failedRunId> [--with <passingRunId|cassette>] --grader <grade.js>
                   [--case <json|@file>] [--json] [--report <file.html>]

Which agent() call of a failed run decided it. For each call of the failed run, its script is replayed with that
one call's answer swapped for the answer the matching call got in the passing run (the same call key, else the
same label at the same place), every other call answered from the runs' journals: a later call whose prompt the
swap changed gets the passing run's answer to that prompt, else the failed run's call of its label. Each replay
is graded by the grader, with the args eval gives it ({ case, output, status, error, costUsd, durationMs, runId };
case is { id: <failedRunId>, args } with --case's fields over it). A call whose swap alone turns fail into pass
is decisive; every call is reported decisive, not decisive, or not testable (and why). When no single swap
passes, pairs of the calls whose answers changed the most are tried. No child starts, no tool runs, no model is
asked (a grader that asks one is told it gets none), and neither run's record is written to.

Options:
  --with <runId|file>      a passing run of the same workflow and args (pi-workflows runs lists them), or a
                           cassette file of one (pi-workflows test <file> --against <runId> --save keeps one);
                           without it each call is swapped for a dry-run answer (a sample of its schema, or a
                           text naming it), which shows only whether the call's shape matters
  --grader <file>          the grader script (as an eval file's "grader"): returns { pass, score?, reason? }
  --case <json|@file>      what the grader gets as args.case, over { id, args }: the eval case, e.g.
                           '{"expect":"W0"}' for a grader that compares with args.case.expect
  --json                   print { failedRunId, passingRunId, failedGrade, passingGrade, dry, calls: [{ key, index,
                           label, effect, match, why, change, answers, grade }], pairs, gradeCostUsd, problem }
  --report <file.html>     the failed run's report (as pi-workflows report writes it) with "What decided it"
                           first and the decisive calls marked; the run's record is not written to

Exit code 0 when a call (or a pair) is decisive; 1 when none is, or nothing could be blamed (the failed run
passes the grader on replay, or the passing run fails it: problem says which); 2 the command line is wrong or
the runs are not of the same workflow and args.`,
	test: `pi-workflows test <file|name> [--against <runId>] [--save] [--args <json|@file>] [--value] [--json]

Runs the script as it is now with every agent(), tool() and ask() answered from a recorded run's journal: no
child starts, no tool runs, no model or credentials are needed, and the recorded run is not written to. A call
the run has no answer for is a divergence: it is named with the nearest recorded call and what differs (the
prompt around its first difference, agent type, schema, model, thinking, tools, isolation, order) and answered
as in a dry run (a sample of its schema, or a text naming it; a tool gets a placeholder, a question its default
or first choice). A recorded call the script no longer makes is a divergence too, and so is a schema call whose
recorded answer breaks its schema. A tool() step made with replay: false (a gate) is answered from the recorded
run as well: a test, unlike a resume, runs nothing.

Options:
  --against <runId>        the run to test against (pi-workflows runs lists this project's)
  --save                   with --against: keep that run beside the script as <name>.cassette.json
                           (.pi/workflows/review.js -> .pi/workflows/review.cassette.json), so the test
                           outlives the run's record when pruning deletes it; commit it with the script
  --args <json|@file>      the script's args (default: the recorded run's)
  --value                  accept any value the script completes with (default: it must be the recorded one)
  --json                   print { ok, runId, status, matched, divergences: [{ kind, index, label, key, nearest,
                           differences, explanation }], unusedRecorded, value, recordedValue, valueMatches,
                           noReplaySteps, cassette? }

Without --against, the cassette beside the script is used (a regular file of at most 64 MiB); the report names it. Exit code 0 when every call matched, no recorded call
was left unmade and the script completed with the recorded value (any, with --value); 1 otherwise.`,
	verify: `pi-workflows verify <package:name> [--accept] | --all [--approve] [--json]

Checks workflows installed from pi packages (a package's package.json "pi": { "workflows": [...] }): each file
against the sha256 recorded in the lock when the package was first seen at its version
(<agentDir>/workflows.lock.json, and .pi/workflows.lock.json for the project's packages), then its replay test
against the cassette the package ships beside it (<name>.cassette.json), as pi-workflows test runs it: no child,
no tool, no model, no cost. The verdict is kept in the lock; with the setting workflows.verifyBlocksInstall, a
workflow whose verify failed does not run.

Options:
  --all                    every installed workflow
  --accept                 re-approve the named workflow's file as it is now (its digest replaces the locked one),
                           then verify it
  --approve                read the project's own packages too (.pi/settings.json), as pi does for a trusted
                           project
  --json                   print [{ name, filename, from, ok, digestOk, sha256, locked, cassette?, report?,
                           summary }]

Exit code 0 when every workflow verified; 1 when one does not match its lock or fails its replay test.`,
};

/** The main help, or one command's; undefined for a command that does not exist. */
export function helpText(command?: string): string | undefined {
	if (command === undefined) return MAIN;
	return COMMANDS[command];
}

/** The commands, for "unknown command" messages. */
export const COMMAND_NAMES = Object.keys(COMMANDS);
