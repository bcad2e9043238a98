/**
 * The static pass over a parsed workflow body: undeclared names, promises used without `await`, literal
 * `agent()` arguments and `phase()` options that cannot be right, and calls a run refuses (`Date.now()`), as
 * diagnostics in source order. One scope analysis serves every check.
 */
import type { Node } from "acorn";
import { type CallRules, findCallMistakes } from "./call-checks.ts";
import { diagnosticAt, type WorkflowDiagnostic } from "./diagnostic.ts";
import { findEntryMistakes, moduleAdvice } from "./entry-point.ts";
import { findPhaseMistakes } from "./phase-checks.ts";
import { type AnyNode, analyzeScopes } from "./scope.ts";
import { findUnavailableCalls } from "./unavailable-calls.ts";
import { findUnawaited } from "./unawaited.ts";
import { findUndeclared } from "./undeclared.ts";

export interface AnalyzeOptions {
	/** The runtime's checks of `agent()` arguments. */
	rules: CallRules;
	/** Names the body is given besides the globals (the runtime's wrapper passes `meta`). */
	params?: readonly string[];
}

/** Every finding in `program` (acorn's tree of `source`), sorted by position. */
export function analyzeProgram(program: Node, source: string, options: AnalyzeOptions): WorkflowDiagnostic[] {
	let analysis: ReturnType<typeof analyzeScopes>;
	try {
		analysis = analyzeScopes(program, options.params ?? []);
	} catch (error) {
		// A tree nested deeper than the stack: the engine reports what is wrong with it when it runs.
		if (error instanceof RangeError) return [];
		throw error;
	}
	const found: { offset: number; diagnostic: WorkflowDiagnostic }[] = [];
	const add = (
		offset: number,
		code: WorkflowDiagnostic["code"],
		message: string,
		fix: string,
		severity: WorkflowDiagnostic["severity"] = "error",
	) => {
		found.push({ offset, diagnostic: diagnosticAt(source, offset, code, message, fix, severity) });
	};
	for (const finding of findUndeclared(analysis, source, moduleAdvice(program as AnyNode, source)))
		add(finding.offset, "name_undeclared", finding.message, finding.fix, finding.severity);
	for (const finding of findEntryMistakes(program as AnyNode, analysis, source))
		add(finding.offset, finding.code, finding.message, finding.fix);
	for (const finding of findUnawaited(analysis)) add(finding.offset, "not_awaited", finding.message, finding.fix);
	for (const finding of findCallMistakes(analysis, options.rules, source))
		add(finding.offset, finding.code, finding.message, finding.fix);
	for (const finding of findPhaseMistakes(analysis, options.rules, source))
		add(finding.offset, finding.code, finding.message, finding.fix);
	for (const finding of findUnavailableCalls(analysis))
		add(finding.offset, finding.code, finding.message, finding.fix);
	found.sort((a, b) => a.offset - b.offset);
	// The same position and text twice (a `const` of options used by two calls) is one finding.
	const seen = new Set<string>();
	return found
		.map((entry) => entry.diagnostic)
		.filter((diagnostic) => {
			const key = `${diagnostic.line}:${diagnostic.column}:${diagnostic.code}:${diagnostic.message}`;
			if (seen.has(key)) return false;
			seen.add(key);
			return true;
		});
}
