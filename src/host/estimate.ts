/**
 * The estimate before launch: what planned `agent()` calls will cost, in dollars and tokens, per phase and in all,
 * as a range (the middle half of what calls like them cost, or half to twice a catalog guess), each part with its
 * basis said in words. Three sources, the first that has something: this workflow's earlier calls of the same phase
 * and label; the project's earlier calls of the same agent type and model; the model's catalog price times a default
 * size per child. Pure: the
 * history comes from `readCostHistory` (src/runs/history.ts) and catalog prices from the host's `priceOf`, so pi
 * stays on the host's side.
 */
import { formatTokens } from "../progress/format.ts";
import type { CallCostSample, CostHistory } from "../runs/index.ts";
import { usdText } from "../runtime/core/cost.ts";

/**
 * Calls a run is about to make, alike in what the estimate groups by. A dry run's planned calls map onto this one
 * for one (`{ phase, label, agentType, model }`, `count` left out); calls it repeats may be given once with their
 * `count`. A field left out matches any earlier call, and a call with no `model` runs on `defaultModel`.
 */
export interface PlannedCalls {
	/** The phase the calls are made in; absent: outside any phase. */
	phase?: string;
	label?: string;
	agentType?: string;
	/** `provider/id` the calls run on. Default: `EstimateSources.defaultModel`. */
	model?: string;
	/** How many such calls. Default: 1. */
	count?: number;
	/**
	 * A continued call (`resume`): the calls of its chain before it, whose conversation it sends again as input.
	 * Default: 0 (a fresh child).
	 */
	carried?: number;
}

/** A model's catalog price, in dollars per million tokens (pi-ai's `model.cost`). */
export interface ModelPrice {
	input: number;
	output: number;
}

/** Default: the size of one child when nothing like it ran before (tokens in and out, over all its turns). */
export const DEFAULT_CHILD_TOKENS: Readonly<{ input: number; output: number }> = { input: 20_000, output: 2_000 };

/** What an estimate learns from. */
export interface EstimateSources {
	/** `meta.name` of the workflow about to run: its earlier runs are the first source. Default: none. */
	workflow?: string;
	/** The project's earlier runs (`readCostHistory`), without the run being estimated. */
	history: CostHistory;
	/** A model's catalog price; undefined when it has none. Default: no catalog. */
	priceOf?: (model: string) => ModelPrice | undefined;
	/** The model a call that names none runs on (the session's child model). Default: none. */
	defaultModel?: string;
	/** The size of one child for the catalog price. Default: `DEFAULT_CHILD_TOKENS`. */
	childTokens?: { input: number; output: number };
}

/** From `low` to `high`: the middle half of what like calls cost (or, from the catalog, half to twice the default size). */
export interface EstimateRange {
	low: number;
	high: number;
}

/** Which source an estimate came from, and how many earlier calls it rests on. */
export interface EstimateBasis {
	source: "workflow" | "project" | "catalog" | "none";
	/** Earlier calls behind it (0 for the catalog and none). */
	samples: number;
	/** For a person: "12 earlier calls of workflow `review` (phase plan, label reviewer)". */
	text: string;
}

/** Planned calls alike, and what they are expected to cost. */
export interface GroupEstimate extends Omit<PlannedCalls, "count"> {
	count: number;
	/** One call's range; absent when there is no basis. */
	perCall?: { usd: EstimateRange; tokens: EstimateRange };
	basis: EstimateBasis;
}

/** A phase's or the whole run's estimate: its estimated calls' ranges added up. */
export interface PartEstimate {
	calls: number;
	usd: EstimateRange;
	tokens: EstimateRange;
	/** Calls with no basis (no history, no price): the ranges leave them out, so they are a lower bound. */
	unestimated: number;
}

export interface PhaseEstimate extends PartEstimate {
	/** Absent: calls made outside any phase. */
	phase?: string;
}

export interface WorkflowEstimate {
	groups: GroupEstimate[];
	/** In the order the phases first appear in the plan. */
	phases: PhaseEstimate[];
	total: PartEstimate;
}

/**
 * The estimate of `planned` calls. Each group's range is its count times one like call's middle half (25th to 75th
 * percentile); a phase's and the total are those added up.
 */
export function estimateCalls(planned: readonly PlannedCalls[], sources: EstimateSources): WorkflowEstimate {
	const groups = groupPlanned(planned).map((group) => estimateGroup(group, sources));
	const phases: PhaseEstimate[] = [];
	for (const group of groups) {
		let phase = phases.find((candidate) => candidate.phase === group.phase);
		if (!phase) {
			phase = { ...(group.phase !== undefined ? { phase: group.phase } : {}), ...emptyPart() };
			phases.push(phase);
		}
		addGroup(phase, group);
	}
	const total = emptyPart();
	for (const group of groups) addGroup(total, group);
	return { groups, phases, total };
}

/** The 25th and 75th percentiles of `values` (linear between the nearest two); 0–0 for none. */
export function middleHalf(values: readonly number[]): EstimateRange {
	const sorted = [...values].sort((a, b) => a - b);
	return { low: percentile(sorted, 0.25), high: percentile(sorted, 0.75) };
}

function percentile(sorted: readonly number[], p: number): number {
	if (sorted.length === 0) return 0;
	const at = (sorted.length - 1) * p;
	const below = Math.floor(at);
	const lower = sorted[below] ?? 0;
	const upper = sorted[Math.min(below + 1, sorted.length - 1)] ?? lower;
	return lower + (upper - lower) * (at - below);
}

function groupPlanned(planned: readonly PlannedCalls[]): (Omit<PlannedCalls, "count"> & { count: number })[] {
	const groups = new Map<string, Omit<PlannedCalls, "count"> & { count: number }>();
	for (const { count = 1, ...call } of planned) {
		if (!(count > 0)) continue;
		const key = JSON.stringify([call.phase, call.label, call.agentType, call.model, call.carried ?? 0]);
		const group = groups.get(key);
		if (group) group.count += count;
		else groups.set(key, { ...call, count });
	}
	return [...groups.values()];
}

type Group = Omit<PlannedCalls, "count"> & { count: number };

function estimateGroup(group: Group, sources: EstimateSources): GroupEstimate {
	const model = group.model ?? sources.defaultModel;
	const fromWorkflow = workflowSamples(group, sources);
	if (fromWorkflow.length > 0) {
		const where = [
			group.phase !== undefined ? `phase ${group.phase}` : "outside phases",
			...(group.label !== undefined ? [`label ${group.label}`] : []),
		].join(", ");
		return fromSamples(group, fromWorkflow, {
			source: "workflow",
			samples: fromWorkflow.length,
			text: `${fromWorkflow.length} earlier call${fromWorkflow.length === 1 ? "" : "s"} of workflow \`${sources.workflow}\` (${where})`,
		});
	}
	const fromProject = sources.history.calls.filter(
		(sample) =>
			sample.usd !== undefined &&
			(group.agentType === undefined || sample.agentType === group.agentType) &&
			(model === undefined || sample.model === model),
	);
	if (fromProject.length > 0) {
		const type = group.agentType !== undefined ? `type ${group.agentType}` : "any type";
		return fromSamples(
			group,
			fromProject,
			{
				source: "project",
				samples: fromProject.length,
				text: `project history: ${fromProject.length} call${fromProject.length === 1 ? "" : "s"} of ${type} on ${model ?? "any model"}${carriedText(group)}`,
			},
			1 + (group.carried ?? 0),
		);
	}
	const price = model !== undefined ? sources.priceOf?.(model) : undefined;
	if (model !== undefined && price)
		return fromCatalog(group, model, price, sources.childTokens ?? DEFAULT_CHILD_TOKENS);
	const why = model === undefined ? "no model known" : `no price known for ${model}`;
	return {
		...group,
		basis: { source: "none", samples: 0, text: `no estimate: no earlier calls like these and ${why}` },
	};
}

/** This workflow's earlier priced calls of the group's phase (none matches none) and label. */
function workflowSamples(group: Group, sources: EstimateSources): CallCostSample[] {
	if (sources.workflow === undefined) return [];
	return sources.history.calls.filter(
		(sample) =>
			sample.usd !== undefined &&
			sample.workflow === sources.workflow &&
			sample.phase === group.phase &&
			(group.label === undefined || sample.label === group.label),
	);
}

/**
 * The middle half of `samples`, times `scale`: a continued call's project samples are fresh calls, and it sends
 * each earlier call of its chain again, about one fresh call's worth each (this workflow's samples of its label
 * already hold what its chain carried, so they are not scaled).
 */
function fromSamples(group: Group, samples: readonly CallCostSample[], basis: EstimateBasis, scale = 1): GroupEstimate {
	const times = (range: EstimateRange) => ({ low: range.low * scale, high: range.high * scale });
	const usd = times(middleHalf(samples.map((sample) => sample.usd ?? 0)));
	const withTokens = samples.flatMap((sample) => (sample.tokens !== undefined ? [sample.tokens] : []));
	return { ...group, perCall: { usd, tokens: times(middleHalf(withTokens)) }, basis };
}

/** " carrying 2 earlier calls' conversation" for a continued call, else "". */
function carriedText(group: Group): string {
	const carried = group.carried ?? 0;
	if (carried === 0) return "";
	return `, ×${1 + carried} for carrying ${carried} earlier call${carried === 1 ? "'s" : "s'"} conversation`;
}

/**
 * The catalog price times the default size, from half to twice that size: a guess, and the range says so. A
 * continued call's input adds one default child (input and output) for each earlier call of its chain.
 */
function fromCatalog(
	group: Group,
	model: string,
	price: ModelPrice,
	fresh: { input: number; output: number },
): GroupEstimate {
	const carried = group.carried ?? 0;
	const size = { input: fresh.input + carried * (fresh.input + fresh.output), output: fresh.output };
	const usd = (size.input * price.input + size.output * price.output) / 1e6;
	const tokens = size.input + size.output;
	const perCall = { usd: { low: usd / 2, high: usd * 2 }, tokens: { low: tokens / 2, high: tokens * 2 } };
	const text = `catalog price of ${model} ($${price.input}/$${price.output} per million input/output tokens) × a default ${formatTokens(fresh.input)} input/${formatTokens(fresh.output)} output tokens per child${carried ? `, its input plus ${carried} earlier call${carried === 1 ? "'s" : "s'"} conversation` : ""}, half to twice that (no history)`;
	return { ...group, perCall, basis: { source: "catalog", samples: 0, text } };
}

function emptyPart(): PartEstimate {
	return { calls: 0, usd: { low: 0, high: 0 }, tokens: { low: 0, high: 0 }, unestimated: 0 };
}

function addGroup(part: PartEstimate, group: GroupEstimate): void {
	part.calls += group.count;
	if (!group.perCall) {
		part.unestimated += group.count;
		return;
	}
	part.usd.low += group.count * group.perCall.usd.low;
	part.usd.high += group.count * group.perCall.usd.high;
	part.tokens.low += group.count * group.perCall.tokens.low;
	part.tokens.high += group.count * group.perCall.tokens.high;
}

/** "$0.40–$0.55" ("$0.40" when both ends print the same). */
export function usdRangeText(range: EstimateRange): string {
	const low = usdText(range.low);
	const high = usdText(range.high);
	return low === high ? low : `${low}–${high}`;
}

/** "120.0k–150.0k tokens". */
/**
 * What forking costs, for the fan-out question and a dry run's estimate: "Each agent that forks (`context: "fork"`)
 * first reads the session's conversation, about 12.3k tokens: up to 369.0k tokens for these 30, on top of the
 * estimate." `calls` is how many may fork; `what` names them.
 */
export function forkCostText(tokens: number, calls: number, what: string): string {
	const each = formatTokens(tokens);
	if (calls <= 1) {
		return `An agent that forks (\`context: "fork"\`) first reads the session's conversation, about ${each} tokens, on top of the estimate.`;
	}
	return `Each agent that forks (\`context: "fork"\`) first reads the session's conversation, about ${each} tokens: up to ${formatTokens(tokens * calls)} tokens for ${what}, on top of the estimate.`;
}

export function tokensRangeText(range: EstimateRange): string {
	const low = formatTokens(Math.round(range.low));
	const high = formatTokens(Math.round(range.high));
	return `${low === high ? low : `${low}–${high}`} tokens`;
}

/** One part's figures: "$0.40–$0.55, 120.0k–150.0k tokens for 12 calls (2 without an estimate)". */
export function partText(part: PartEstimate): string {
	const n = `${part.calls} call${part.calls === 1 ? "" : "s"}`;
	if (part.unestimated === part.calls) return `no estimate for ${n}`;
	const missing = part.unestimated > 0 ? ` (${part.unestimated} without an estimate: more than this)` : "";
	return `${usdRangeText(part.usd)}, ${tokensRangeText(part.tokens)} for ${n}${missing}`;
}

/** How many bases the text lists before "and N more". */
const BASES_SHOWN = 4;

/**
 * The estimate as lines for a person or a model: the total, each phase when there is more than one, and the bases.
 * "Estimated cost (the middle half of what like calls cost): $0.40–$0.55, 120.0k–150.0k tokens for 12 calls"; the
 * parenthesis says what the figures are (history, catalog prices, or both).
 */
export function estimateText(estimate: WorkflowEstimate): string {
	const figures = figuresText(estimate.groups);
	const lines = [`Estimated cost${figures ? ` (${figures})` : ""}: ${partText(estimate.total)}`];
	if (estimate.phases.length > 1 || estimate.phases[0]?.phase !== undefined) {
		for (const phase of estimate.phases) {
			lines.push(`  ${phase.phase !== undefined ? `phase ${phase.phase}` : "outside phases"}: ${partText(phase)}`);
		}
	}
	// No call, no basis to name: the plan above says why there is none.
	lines.push(`Basis: ${estimate.groups.length > 0 ? basesText(estimate.groups) : "no agent call to price"}`);
	return lines.join("\n");
}

/**
 * What the figures are: the middle half of earlier calls, catalog prices times a default size, or both; nothing
 * when no call has a basis (the heading then says only "no estimate", and the basis line why).
 */
function figuresText(groups: readonly GroupEstimate[]): string | undefined {
	const catalog = groups.some((group) => group.basis.source === "catalog");
	const history = groups.some((group) => group.basis.source === "workflow" || group.basis.source === "project");
	if (catalog && !history) return "catalog prices × a default size per child, half to twice that: no history";
	if (catalog) {
		return "the middle half of what like calls cost; catalog prices × a default size, half to twice that, for calls with no history";
	}
	return history ? "the middle half of what like calls cost" : undefined;
}

/** The groups' bases, each said once, the first few of them. */
export function basesText(groups: readonly GroupEstimate[]): string {
	const texts = [...new Set(groups.map((group) => group.basis.text))];
	const shown = texts.slice(0, BASES_SHOWN).join("; ");
	return texts.length > BASES_SHOWN ? `${shown}; and ${texts.length - BASES_SHOWN} more` : shown;
}

/**
 * What a front end says before the first child starts when the estimate is over the run's cap: "estimated
 * $0.40–$0.55, over the cap $0.30" (all of the range over it), "estimated $0.20–$0.55, which may go over the cap
 * $0.30" (part of it); undefined when the whole range fits, or there is no cap. `spentUsd` (default 0) is what the run
 * already spent, for a run asked part way through.
 */
export function estimateOverCap(usd: EstimateRange, capUsd: number | undefined, spentUsd = 0): string | undefined {
	if (capUsd === undefined) return undefined;
	const low = spentUsd + usd.low;
	const high = spentUsd + usd.high;
	if (high <= capUsd) return undefined;
	const spent = spentUsd > 0 ? ` with the ${usdText(spentUsd)} spent so far` : "";
	const range = usdRangeText({ low, high });
	return low > capUsd
		? `estimated ${range}${spent}, over the cap ${usdText(capUsd)}`
		: `estimated ${range}${spent}, which may go over the cap ${usdText(capUsd)}`;
}
