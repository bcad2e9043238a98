/** Authoring help: the static pass that finds a workflow script's mistakes before anything runs, and says the fix. */

export type { AnalyzeOptions } from "./analyze.ts";
export { analyzeProgram } from "./analyze.ts";
export type { CallRules } from "./call-checks.ts";
export { splitMessage } from "./call-checks.ts";
export type { WorkflowDiagnostic } from "./diagnostic.ts";
export { codeFrame, diagnosticAt, formatDiagnostic, sentence } from "./diagnostic.ts";
export type { Advice } from "./entry-point.ts";
export { exportAdvice } from "./entry-point.ts";
export { closestName } from "./names.ts";
export { ENGINE_GLOBALS, SANDBOX_GLOBALS, WEB_GLOBALS, WORKFLOW_GLOBALS } from "./sandbox-globals.ts";
export { schemaMistakes } from "./schema-mistakes.ts";
export type { AnyNode } from "./scope.ts";
export type { ParseFailure, SyntaxExplanation } from "./syntax-errors.ts";
export { explainSyntaxError, markdownFence } from "./syntax-errors.ts";
