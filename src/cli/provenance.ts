/**
 * Who the children of a `pi-workflows run`/`resume` speak for (the provenance frame, children/frame.ts): the script
 * the command names and its command line, relayed as the person's request when a person is at a terminal, and said
 * to have no person present when stdin is not a terminal (a background job, a pipeline, a scheduler).
 */

import type { CliContext } from "./context.ts";
import type { PersonProvenance, ScriptProvenance } from "./pi-host.ts";

/** The command line `pi-workflows <command> …` as typed, words with spaces or quotes quoted. */
export function commandLine(command: string, argv: readonly string[]): string {
	const words = argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word)));
	return ["pi-workflows", command, ...words].join(" ");
}

/** The person behind the command: its line when stdin is a terminal, else that nobody was there. */
export function cliPerson(command: string, argv: readonly string[], ctx: Pick<CliContext, "stdin">): PersonProvenance {
	const line = commandLine(command, argv);
	if (ctx.stdin?.isTTY) return { kind: "request", text: line, via: "the command line a person typed" };
	return { kind: "absent", why: `started by \`${line}\` with no terminal attached` };
}

/** What `target` names: a file, or a saved workflow (see `readScript`). */
export function cliScript(target: string, filename: string): ScriptProvenance {
	const isPath = target.endsWith(".js") || target.includes("/") || target.includes("\\");
	return isPath ? { kind: "file", path: filename } : { kind: "saved", name: target, file: filename };
}
