/**
 * Workflows from pi packages in a session: the places a session reads saved workflows from (its project's packages
 * follow pi's project trust), and the verify of a package seen for the first time or at a new version, run when the
 * session starts (issue 49 §3): each new digest's shipped cassette is replayed offline, and a failure is told.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { errorMessage } from "../../errors.ts";
import { loadSavedWorkflows, piProjectTrusted, type SavedWorkflow } from "../../host/script-source.ts";
import { verifyUnverified } from "../../host/verify.ts";
import type { SavedCommandsOptions } from "./saved-commands.ts";

/** The session's saved workflows, installed ones included when pi trusts the project for its packages. */
export function sessionSavedWorkflows(ctx: ExtensionContext, agentDir: string): Iterable<SavedWorkflow> {
	return loadSavedWorkflows({ cwd: ctx.cwd, agentDir, projectTrusted: piProjectTrusted(ctx) }).byName.values();
}

/** The commands' options for a session: `projectTrusted` set from pi's decision (kept for `/workflows run`). */
export function sessionCommands(commands: SavedCommandsOptions, ctx: ExtensionContext): SavedCommandsOptions {
	commands.projectTrusted = piProjectTrusted(ctx);
	return commands;
}

/** Verifies the installed workflows that have no verdict at their locked digest; tells each failure. */
export async function verifyNewInstalled(ctx: ExtensionContext, agentDir: string): Promise<void> {
	try {
		const results = await verifyUnverified({ cwd: ctx.cwd, agentDir, projectTrusted: piProjectTrusted(ctx) });
		for (const result of results.filter((one) => !one.ok)) {
			ctx.ui.notify(
				`pi-workflows: installed workflow ${result.name} (from ${result.from}) did not verify: ${result.summary}. \`pi-workflows verify ${result.name}\` shows it again; the setting workflows.verifyBlocksInstall keeps such a workflow from running`,
				"warning",
			);
		}
	} catch (error) {
		ctx.ui.notify(`pi-workflows: could not verify installed workflows: ${errorMessage(error)}`, "warning");
	}
}
