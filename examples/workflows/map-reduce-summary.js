// Summarise many documents: one mapper per document, then reduce level by level. Each level packs summaries into
// batches of at most batchChars characters (size-aware fan-in: three long summaries or thirty short ones), one
// reducer per batch, until a single summary is left. A document whose mapper fails is listed as unread.
// Args: documents (paths or URLs), focus (what the summary is for), batchChars (default 12000), maxLevels (default 4).
// Cost: one mapper per document + about (total summary chars / batchChars) reducers per level, usually 1–3 levels.
export const meta = {
	name: "map-reduce-summary",
	description: "Summarise many documents: parallel mappers, then reducers over batches sized by characters",
	whenToUse: "Too many documents (notes, issues, logs, files) for one agent to read; you want one summary of all",
	phases: [
		{ title: "map", detail: "one agent per document" },
		{ title: "reduce", detail: "one agent per batch of ≤ batchChars characters, level by level" },
	],
	args: {
		type: "object",
		properties: {
			documents: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2000 },
			focus: { type: "string", default: "the main points, decisions and open questions" },
			batchChars: { type: "integer", minimum: 500, default: 12000 },
			maxLevels: { type: "integer", minimum: 1, maximum: 8, default: 4 },
		},
		required: ["documents"],
		additionalProperties: false,
	},
};

const SUMMARY = {
	type: "object",
	properties: { summary: { type: "string" }, keyPoints: { type: "array", items: { type: "string" } } },
	required: ["summary", "keyPoints"],
};

const { documents } = args;
const focus = args.focus ?? "the main points, decisions and open questions";
const batchChars = args.batchChars ?? 12000;
const maxLevels = args.maxLevels ?? 4;

const textOf = (part) => [part.summary, ...part.keyPoints.map((point) => `- ${point}`)].join("\n");
const sized = (part, sources) => ({ ...part, sources, chars: textOf(part).length });

// Greedy packing in order: a batch takes parts until the next would pass the limit; a part over the limit goes alone.
function packByChars(parts, limit) {
	const batches = [];
	let current = [];
	let size = 0;
	for (const part of parts) {
		if (current.length > 0 && size + part.chars > limit) {
			batches.push(current);
			current = [];
			size = 0;
		}
		current.push(part);
		size += part.chars;
	}
	if (current.length > 0) batches.push(current);
	return batches;
}
const pairs = (parts) => parts.flatMap((_, i) => (i % 2 === 0 ? [parts.slice(i, i + 2)] : []));
const total = (batch) => batch.reduce((n, part) => n + part.chars, 0);

const summarise = (doc) =>
	agent(`Read ${doc} and summarise it for this purpose: ${focus}. At most 200 words and 8 key points.`, {
		label: `map ${doc}`,
		schema: SUMMARY,
		tools: ["read", "grep", "find", "ls"],
	});
const merge = (batch, label) => {
	const inputs = batch.map((p, i) => `## Part ${i + 1}\n${textOf(p)}`).join("\n\n");
	return agent(
		`Merge these ${batch.length} summaries into one, for: ${focus}. Keep every distinct point once.\n\n${inputs}`,
		{ label, schema: SUMMARY },
	);
};

phase("map");
const mapped = await parallel(documents.map((doc) => () => summarise(doc)));
const unread = documents.filter((_, i) => mapped[i] === null);
let parts = mapped.flatMap((part, i) => (part === null ? [] : [sized(part, [documents[i]])]));
log(`${parts.length} of ${documents.length} documents summarised`, { unread });

phase("reduce");
let level = 0;
while (parts.length > 1 && level < maxLevels) {
	level++;
	let batches = packByChars(parts, batchChars);
	// When no two summaries fit in one batch, pair them anyway so that every level shrinks.
	if (batches.length === parts.length) batches = pairs(parts);
	log(`level ${level}: ${parts.length} summaries in ${batches.length} batches`, { chars: batches.map(total) });
	// A batch of one needs no agent: it goes up a level as it is.
	const merged = await parallel(
		batches.map((batch, b) => () => (batch.length === 1 ? batch[0] : merge(batch, `reduce L${level} #${b + 1}`))),
	);
	// A failed reducer loses nothing: its inputs go up to the next level unmerged.
	parts = batches.flatMap((batch, b) => {
		if (batch.length === 1 || merged[b] === null) return batch;
		const sources = batch.flatMap((p) => p.sources);
		return [sized(merged[b], sources)];
	});
}
if (parts.length > 1)
	log(`stopped after ${level} levels with ${parts.length} summaries; raise maxLevels or batchChars`);

const done = parts.length === 1;
return {
	summary: done ? parts[0].summary : null,
	keyPoints: done ? parts[0].keyPoints : [],
	levels: level,
	unread,
	unmerged: done ? [] : parts.map((p) => ({ sources: p.sources, summary: p.summary })),
};
