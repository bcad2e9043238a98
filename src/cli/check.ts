/** `pi-workflows check <file>`: the authoring diagnostics of a script, without running it; exit code 0 or 1. */
import { isAbsolute, relative } from "node:path";
import { checkWorkflowScript, type WorkflowCheckReport } from "../runtime/run/script-check.ts";
import { type FlagSpec, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";
import { readScript } from "./inputs.ts";

const CHECK_FLAGS: readonly FlagSpec[] = [{ name: "json" }];

export async function checkCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, CHECK_FLAGS, "check");
	const [target, extra] = args.positionals;
	if (target === undefined || extra !== undefined) {
		throw usageError("`check` takes one workflow file: pi-workflows check <file>");
	}
	const script = readScript(target, ctx);
	const result = checkWorkflowScript(script.source, { filename: script.filename });
	if (args.flags.has("json")) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
	else ctx.stdout.write(checkText(result, shownPath(ctx.cwd, script.filename)));
	return result.ok ? 0 : 1;
}

/** `file:line:column: error code: message`, then the fix and the frame; or `file: ok`. */
function checkText(result: WorkflowCheckReport, shown: string): string {
	if (result.diagnostics.length === 0) return `${shown}: ok\n`;
	return result.diagnostics
		.map((d) => {
			const where = `${shown}:${d.line}:${d.column}`;
			const lines = [`${where}: ${d.severity} ${d.code}: ${d.message}`];
			if (d.fix) lines.push(`  fix: ${d.fix}`);
			if (d.frame) lines.push(d.frame);
			return `${lines.join("\n")}\n`;
		})
		.join("");
}

/** The file as the person would write it: relative inside the working directory, absolute outside it. */
function shownPath(cwd: string, filename: string): string {
	const rel = relative(cwd, filename);
	return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? filename : rel;
}
