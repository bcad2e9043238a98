/**
 * Globals of other workflow runtimes that scripts here do not have. A script moved from one of them reads such a
 * name undeclared; it is refused saying where the name comes from and what to write here, rather than with a
 * guess at a typo (`gate` is not a misspelt `Date`).
 */

/** Where a foreign global comes from, and what to write here instead. */
export interface ForeignGlobal {
	/** What the name is, said after "`name` is": "a helper of pi-dynamic-workflows (…)". */
	is: string;
	/** Whether scripts call it, so the message shows `name()`. */
	called: boolean;
	instead: string;
}

const PDW = "pi-dynamic-workflows";
const PDW_HELPER = (what: string, instead: string): ForeignGlobal => ({
	is: `a helper of ${PDW} (${what}), not a global of workflow scripts here`,
	called: true,
	instead,
});

/** Foreign globals by name. */
export const FOREIGN_GLOBALS: Readonly<Record<string, ForeignGlobal>> = {
	gate: PDW_HELPER(
		"`gate(produce, validate, { attempts })` asks again with the validator's feedback",
		'There is no built-in equivalent: write the loop, `for (let attempt = 0; attempt < 3; attempt++) { const value = await agent(prompt + feedback, opts); if (accepted(value)) break; feedback = … }`; to check an answer with a shell command, give `agent()` the option `gate: "npm test"`',
	),
	loopUntilDry: PDW_HELPER(
		"rounds until nothing new is found",
		"There is no built-in equivalent: write a `while` loop that calls `agent()` per round and stops after a round that adds nothing new",
	),
	retry: PDW_HELPER(
		"a bounded retry of a step",
		"Give `agent()` the option `retries: n` to try a failed child again, or write a `for` loop over attempts",
	),
	verify: PDW_HELPER(
		"an adversarial check of a result",
		"There is no built-in equivalent: call `agent()` with a prompt that tries to refute the result and a `schema` for its verdict",
	),
	judgePanel: PDW_HELPER(
		"several judges vote on candidates",
		"There is no built-in equivalent: `await parallel(judges.map((j) => () => agent(prompt, { label: j, schema })))` and count the votes",
	),
	completenessCheck: PDW_HELPER(
		"asks whether a result covers everything",
		"There is no built-in equivalent: call `agent()` with the result and a `schema` that lists what is missing",
	),
	checkpoint: PDW_HELPER(
		"a resume point inside a run",
		"There is no equivalent to call: every finished `agent()` call is kept when the run is durable, and a resumed run replays it",
	),
	artifact: {
		is: "a global of pi-dynamic-workflow-extension (it writes a file into that extension's run folder), not of workflow scripts here",
		called: true,
		instead:
			'There is no equivalent: return the data (`return { reviews, report }`), which the run keeps as its result, or ask an agent to write the file (`await agent("Write report.md with: …")`)',
	},
	ctx: {
		is: "the context object of @samfp/pi-workflows scripts; here its members are globals",
		called: false,
		instead:
			"Write `agent(prompt, options)` for `ctx.agent`, `phase(name)` and then `await parallel([() => agent(…), …])` for `ctx.phase(name, [...])`, `log()` for `ctx.log`, `cwd` for `ctx.run.cwd`, and read the input from `args`; there is no `ctx.cache` or `ctx.vote` (a judging `agent()` call picks a winner)",
	},
	runs: {
		is: "the run API of pi-subagents' `workflowScript` (`runs.run(key, { agent, task })`, `runs.all([...])`), not a global of workflow scripts here",
		called: false,
		instead:
			'Write `await agent(task, { agent: "scout", label: key })` for `runs.run`, and `await parallel(steps.map((s) => () => agent(s.task, { agent: s.agent, label: s.key })))` for `runs.all`',
	},
};

/** The message and fix for a foreign global read undeclared, or undefined for any other name. */
export function foreignGlobal(name: string): { message: string; fix: string } | undefined {
	if (!Object.hasOwn(FOREIGN_GLOBALS, name)) return undefined;
	const foreign = FOREIGN_GLOBALS[name] as ForeignGlobal;
	return { message: `\`${name}${foreign.called ? "()" : ""}\` is ${foreign.is}`, fix: foreign.instead };
}
