/**
 * Whether a project's own agent files (`.pi/agents`, `.agents/agents`, `.claude/agents` under the project) may be
 * read, by pi's project trust: an agent file can load code into pi's process (`extensions`) and files into a child
 * (`skills`, `skill_path`), as `.pi/extensions` and `.pi/skills` do, which pi reads only from a trusted project.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
	hasTrustRequiringProjectResources,
	ProjectTrustStore,
	parseArgs,
	parseFrontmatter,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { normalizeFieldNames } from "./agent-field-names.ts";

/** What the host knows of pi's decision about the project. */
export interface ProjectTrustInput {
	/** The pi session's `ctx.isProjectTrusted()`. Default: none (no session: the CLI, a host of its own). */
	session?: boolean;
	/** A command line's `--approve` (true) or `--no-approve` (false); it decides alone, as pi's `-a`/`-na` do. */
	override?: boolean;
}

/**
 * A pi context's decision as `ProjectTrustInput`, with pi's own `-a`/`-na` when pi's command started this process.
 * A context without `isProjectTrusted` (a host's own stand-in for pi's) gives none, so the saved decision and
 * `defaultProjectTrust` decide, never a default of trusted.
 */
export function sessionTrust(ctx: { isProjectTrusted?: () => boolean }): ProjectTrustInput {
	const override = piCommandLineTrust();
	return {
		...(typeof ctx.isProjectTrusted === "function" ? { session: ctx.isProjectTrusted() } : {}),
		...(override !== undefined ? { override } : {}),
	};
}

/**
 * pi's `-a` (true) or `-na` (false) on the command line of this process, when pi's command started it (its set-up
 * marks the process with \`PI_CODING_AGENT\`), read with pi's own parser. pi hands an extension no other trace of
 * it: \`ctx.isProjectTrusted()\` is true with and without \`-a\` in a project where pi gates nothing of its own, so
 * agent files with code fields, which pi does not know, could not be trusted for one run.
 */
function piCommandLineTrust(): boolean | undefined {
	if (process.env.PI_CODING_AGENT !== "true") return undefined;
	return parseArgs(process.argv.slice(2)).projectTrustOverride;
}

/** The project's trust for its agent files, and why, for the one log line that says they were skipped. */
export interface ProjectAgentTrust {
	trusted: boolean;
	/** Why not, when not trusted: a clause for the log line. */
	reason?: string;
}

/** Fields that bring code or files into pi's process or a child: a project file with one needs trust. */
const CODE_FIELDS = ["extensions", "subagent_only_extensions", "skills", "skill_path"] as const;

/**
 * pi's decision, made as pi makes it for its own project resources (dist/core/project-trust.js, 1.6):
 * a command-line override; else, when the project holds something pi gates, the session's decision (an extension's,
 * the saved one, `defaultProjectTrust`, or the person's answer); else the saved decision in `<agentDir>/trust.json`;
 * else trusted when nothing in the project needs trust. Agent files with code fields count as such a thing here,
 * though pi does not know them: a project holding only those, never decided, is trusted only under
 * `defaultProjectTrust: "always"`, as pi's print mode treats a project with `.pi/extensions`. Without a session
 * (the CLI) pi's `project_trust` handlers are not asked: the override, the saved decision and the setting decide.
 */
export function decideProjectTrust(
	cwd: string,
	agentDir: string,
	dirs: readonly string[],
	input: ProjectTrustInput = {},
): ProjectAgentTrust {
	if (input.override !== undefined) {
		return input.override ? { trusted: true } : { trusted: false, reason: "--no-approve was given" };
	}
	const piGates = hasTrustRequiringProjectResources(cwd);
	if (input.session !== undefined && piGates) {
		return input.session ? { trusted: true } : { trusted: false, reason: "pi does not trust the project" };
	}
	if (input.session === false) return { trusted: false, reason: "pi does not trust the project" };
	let saved: boolean | null;
	try {
		saved = new ProjectTrustStore(agentDir).get(cwd);
	} catch (error) {
		return { trusted: false, reason: error instanceof Error ? error.message : String(error) };
	}
	if (saved !== null)
		return saved ? { trusted: true } : { trusted: false, reason: "the project is saved as untrusted" };
	if (!piGates && !dirs.some(hasCodeFields)) return { trusted: true };
	const fallback = SettingsManager.create(cwd, agentDir, { projectTrusted: false }).getDefaultProjectTrust();
	return fallback === "always"
		? { trusted: true }
		: { trusted: false, reason: "the project has not been trusted (no saved decision)" };
}

/** Whether some agent file in `dir` names a code field; files that do not parse count as not. */
function hasCodeFields(dir: string): boolean {
	let names: string[];
	try {
		names = readdirSync(dir).filter((name) => name.endsWith(".md"));
	} catch {
		return false;
	}
	return names.some((name) => {
		try {
			const { frontmatter } = parseFrontmatter(readFileSync(join(dir, name), "utf8"));
			if (frontmatter === null || typeof frontmatter !== "object" || Array.isArray(frontmatter)) return false;
			const fields = normalizeFieldNames(frontmatter as Record<string, unknown>, () => undefined);
			return CODE_FIELDS.some((field) => fields[field] !== undefined && fields[field] !== null);
		} catch {
			return false;
		}
	});
}

/** The one line that says which project agent files were not read, why, and how to trust the project. */
export function untrustedAgentFilesWarning(files: readonly string[], reason: string | undefined, agentDir: string) {
	const why = reason ?? "the project is not trusted";
	return (
		`Not reading this project's agent files (${files.join(", ")}): ${why}. Agent files can load code into pi ` +
		"(`extensions`) and files into children (`skills`), so they follow pi's project trust. To use them, trust the " +
		`project: ${trustRemedy(agentDir)}`
	);
}

/** What an unknown agent type's error adds when the project's agent files were skipped: which, why, and the way on. */
export function skippedAgentFilesNote(files: readonly string[], reason: string | undefined, agentDir: string): string {
	const why = reason ?? "the project is not trusted";
	return `This project's agent files were not read (${files.join(", ")}): ${why}. To use them, trust the project: ${trustRemedy(agentDir)}`;
}

function trustRemedy(agentDir: string): string {
	return `\`pi -a\` for one run, \`/trust\` in pi (saved in ${join(agentDir, "trust.json")}), or \`pi-workflows run --approve\``;
}
