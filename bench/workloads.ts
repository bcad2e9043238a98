/**
 * The workflows the rows run, each as a script (pi-workflows and node:vm run the same text) and as the plain
 * JavaScript someone would write without a runtime. Prompts name their job, so a runner can look up its duration.
 */
import type { Workload } from "./lib/engines.ts";

type Args = { [key: string]: unknown };
const argsOf = (args: unknown) => (args ?? {}) as Args;

/** `args.n` reads of `budget.agentCalls.used` in one synchronous stretch (pi-workflows only: the others have no budget). */
export const BUDGET_READS: Workload = {
	name: "budget-reads",
	source: `export const meta = { name: "budget-reads", description: "Budget reads in a loop" };
let unused = 0;
for (let i = 0; i < args.n; i++) if (budget.agentCalls.used === 0) unused++;
return unused;
`,
	plain: async (_api, args) => argsOf(args).n as number,
};

/** One agent call. */
export const TRIVIAL: Workload = {
	name: "trivial",
	source: `export const meta = { name: "trivial", description: "One agent call" };
return await agent("Say hello");
`,
	plain: async ({ agent }) => agent("Say hello"),
};

/** No agent call: the cost of a run itself. */
export const EMPTY: Workload = {
	name: "empty",
	source: `export const meta = { name: "empty", description: "Returns at once" };
return 0;
`,
	plain: async () => 0,
};

/** A loop that keeps the CPU busy for `args.iterations` rounds and never awaits. */
export const BURN: Workload = {
	name: "burn",
	source: `export const meta = { name: "burn", description: "Busy loop" };
let x = 0;
for (let i = 0; i < args.iterations; i++) x = (x * 31 + (i & 1023)) % 1000003;
return x;
`,
	plain: async (_api, args) => {
		const iterations = argsOf(args).iterations as number;
		let x = 0;
		for (let i = 0; i < iterations; i++) x = (x * 31 + (i & 1023)) % 1000003;
		return x;
	},
};

/** `args.n` agents at once through `parallel`. */
export const FAN_OUT: Workload = {
	name: "fan-out",
	source: `export const meta = { name: "fan-out", description: "Every agent at once" };
const done = await parallel(args.prompts.map((prompt) => () => agent(prompt)));
return done.filter(Boolean).length;
`,
	plain: async ({ agent }, args) => {
		const prompts = argsOf(args).prompts as string[];
		const done = await Promise.all(prompts.map((prompt) => agent(prompt).catch(() => null)));
		return done.filter(Boolean).length;
	},
};

/** Each item through three stages, with no barrier between items. */
export const PIPELINE: Workload = {
	name: "pipeline",
	source: `export const meta = { name: "pipeline", description: "Three stages per item" };
const done = await pipeline(
	args.items,
	(item) => agent(item + " s1"),
	(_previous, item) => agent(item + " s2"),
	(_previous, item) => agent(item + " s3"),
);
return done.filter(Boolean).length;
`,
	plain: async ({ agent }, args) => {
		const items = argsOf(args).items as string[];
		const done = await Promise.all(
			items.map(async (item) => {
				for (const stage of ["s1", "s2", "s3"]) if ((await agent(`${item} ${stage}`)) === null) return null;
				return item;
			}),
		);
		return done.filter(Boolean).length;
	},
};

/** Three phases: a fan-out, a pipeline whose second stage fans out in two, and a closing fan-out. */
export const MIX: Workload = {
	name: "mix",
	source: `export const meta = { name: "mix", description: "Phases of fan-outs and a pipeline" };
await phase("scan", () => parallel(args.scan.map((prompt) => () => agent(prompt))));
await phase("work", () =>
	pipeline(
		args.work,
		(item) => agent(item + " plan"),
		(_plan, item) => parallel([() => agent(item + " a"), () => agent(item + " b")]),
	),
);
const checked = await phase("check", () => parallel(args.check.map((prompt) => () => agent(prompt))));
return checked.filter(Boolean).length;
`,
	plain: async ({ agent, phase }, args) => {
		const { scan, work, check } = argsOf(args) as { scan: string[]; work: string[]; check: string[] };
		await phase("scan", () => Promise.all(scan.map((prompt) => agent(prompt))));
		await phase("work", () =>
			Promise.all(
				work.map(async (item) => {
					if ((await agent(`${item} plan`)) === null) return null;
					return Promise.all([agent(`${item} a`), agent(`${item} b`)]);
				}),
			),
		);
		const checked = await phase("check", () => Promise.all(check.map((prompt) => agent(prompt))));
		return checked.filter(Boolean).length;
	},
};

/** `args.n` agents one after another. */
export const SEQUENTIAL: Workload = {
	name: "sequential",
	source: `export const meta = { name: "sequential", description: "One agent after another" };
let done = 0;
for (let i = 0; i < args.n; i++) if (await agent("task " + i)) done++;
return done;
`,
	plain: async ({ agent }, args) => {
		const n = argsOf(args).n as number;
		let done = 0;
		for (let i = 0; i < n; i++) if (await agent(`task ${i}`)) done++;
		return done;
	},
};

/** `args.n` agents at once, prompts made in the script. */
export const CONCURRENT: Workload = {
	name: "concurrent",
	source: `export const meta = { name: "concurrent", description: "Many agents at once" };
const done = await parallel(Array.from({ length: args.n }, (_, i) => () => agent("task " + i)));
return done.filter(Boolean).length;
`,
	plain: async ({ agent }, args) => {
		const n = argsOf(args).n as number;
		const done = await Promise.all(Array.from({ length: n }, (_, i) => agent(`task ${i}`)));
		return done.filter(Boolean).length;
	},
};
