/**
 * Pattern-heavy agent schemas like those of issue 19: 20 string properties, each with a pattern of about 900
 * characters made of bounded repeats, which RE2 compiles to about 1,700 instructions (some 290 KiB of heap; 5.7 MiB
 * a schema). Each seed gives a schema of its own, well inside the schema limits (about 19 KB, 21 subschemas).
 */

/** JavaScript source of `patternSchema(seed, count = 20)`, to paste into a workflow script (QuickJS builds them). */
export const PATTERN_SCHEMA_SOURCE = `function patternSchema(seed, count = 20) {
	const properties = {};
	for (let p = 0; p < count; p++) {
		let pattern = "^(?:s" + seed + "p" + p + ":)?";
		for (let i = 0; pattern.length < 880; i++) pattern += "[a-z0-9_]{1," + (16 + (i % 9)) + "}[-.:/]";
		properties["p" + p] = { type: "string", pattern: pattern + "[a-z]{1,8}$" };
	}
	return { type: "object", properties };
}`;

/** The schema of `seed` with `count` patterns (20 by default; 60 make about 57 KB), built from the same source. */
export const patternSchema = new Function(`${PATTERN_SCHEMA_SOURCE}\nreturn patternSchema;`)() as (
	seed: number,
	count?: number,
) => { type: "object"; properties: Record<string, { type: "string"; pattern: string }> };

/** An answer the schema of `seed` accepts, with a `p0` that runs its first pattern to the end. */
export function patternAnswer(seed: number): { p0: string } {
	const segments = patternSchema(seed).properties.p0.pattern.split("[-.:/]").length - 1;
	return { p0: `${"a-".repeat(segments)}z` };
}

/** The scripted runner's answer to a call of `patternRunScript`, whose prompt is "call <seed>". */
export function answerPatternCall(request: { prompt: string }): { structured: { p0: string } } {
	return { structured: patternAnswer(Number(request.prompt.slice("call ".length))) };
}

/**
 * A workflow body: `count` agent calls one after another, each with the schema of its own seed (from `first` on),
 * returning how many answers came back.
 */
export function patternRunScript(count: number, first = 0): string {
	return `${PATTERN_SCHEMA_SOURCE}
let answered = 0;
for (let s = ${first}; s < ${first + count}; s++) {
	const answer = await agent("call " + s, { schema: patternSchema(s) });
	if (answer.p0.endsWith("z")) answered++;
}
return answered;`;
}
