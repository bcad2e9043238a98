/**
 * `pi-workflows verify <name>|--all [--accept] [--approve] [--json]`: installed workflows (from pi packages) against
 * the digest locked at install and the replay test of the cassette each ships beside it, offline and at no cost.
 * `--accept` re-approves one workflow's file as it is now. Exit code 0 when every one verified, 1 otherwise.
 */
import { relative } from "node:path";
import { WorkflowError } from "../errors.ts";
import type { SavedWorkflowPlaces } from "../host/script-source.ts";
import { acceptInstalled, installedWorkflows, type VerifyResult, verifyInstalled } from "../host/verify.ts";
import { visibleJson, visibleText } from "../progress/visible-text.ts";
import { type FlagSpec, parseArgs, usageError } from "./args.ts";
import type { CliContext } from "./context.ts";

const VERIFY_FLAGS: readonly FlagSpec[] = [{ name: "all" }, { name: "accept" }, { name: "approve" }, { name: "json" }];

export async function verifyCommand(argv: readonly string[], ctx: CliContext): Promise<number> {
	const args = parseArgs(argv, VERIFY_FLAGS, "verify");
	const [name, extra] = args.positionals;
	const all = args.flags.has("all");
	if (extra !== undefined || (name === undefined) === !all) {
		throw usageError("`verify` takes one installed workflow or --all: pi-workflows verify <package:name> | --all");
	}
	if (all && args.flags.has("accept")) {
		throw usageError("--accept re-approves one workflow: name it (pi-workflows verify <package:name> --accept)");
	}
	const places: SavedWorkflowPlaces = {
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		// The CLI has no pi session to ask: the project's packages are read when the command line trusts the project.
		projectTrusted: args.flags.has("approve"),
		warn: (warning) => ctx.stderr.write(`Warning: ${warning}\n`),
	};
	const installed = installedWorkflows(places);
	const chosen = all ? installed : installed.filter((saved) => saved.name === name);
	if (!all && chosen.length === 0) {
		const known = installed.map((saved) => saved.name);
		throw new WorkflowError(
			"workflow_not_found",
			`No installed workflow named \`${name}\`. ${known.length > 0 ? `Installed: ${known.join(", ")}` : 'No pi package installed here ships workflows (a package lists them in its package.json: "pi": { "workflows": ["./workflows"], "extensions": [] })'}${args.flags.has("approve") ? "" : ". A project's own packages are read with --approve"}`,
			{ details: { name, available: known } },
		);
	}
	const results: VerifyResult[] = [];
	for (const saved of chosen) {
		results.push(await (args.flags.has("accept") ? acceptInstalled(saved, places) : verifyInstalled(saved, places)));
	}
	if (args.flags.has("json")) ctx.stdout.write(`${visibleJson(JSON.stringify(results, null, 2))}\n`);
	else ctx.stdout.write(visibleText(resultsText(results, ctx.cwd)));
	return results.every((result) => result.ok) ? 0 : 1;
}

/** One line per workflow: the verdict, its package, its digest, and why; the replay's divergences under it. */
function resultsText(results: readonly VerifyResult[], cwd: string): string {
	if (results.length === 0) return "No installed workflows to verify\n";
	const lines: string[] = [];
	for (const result of results) {
		lines.push(
			`${result.ok ? "ok" : "FAILED"} ${result.name} (from ${result.from}, sha256 ${result.sha256.slice(0, 12) || "none"}): ${result.summary}`,
		);
		if (result.cassette) lines.push(`  cassette ${shown(cwd, result.cassette)}`);
		for (const d of result.report?.divergences ?? []) lines.push(`  ✗ ${d.explanation}`);
	}
	return `${lines.join("\n")}\n`;
}

function shown(cwd: string, path: string): string {
	const rel = relative(cwd, path);
	return rel === "" || rel.startsWith("..") ? path : rel;
}
