/**
 * `npm run demo`: a pi session with the pi-workflows extension asks the `workflow` tool to run
 * examples/workflows/review-and-fix.js on a small throwaway project, printing live progress and the result.
 * With `--model provider/id` (or a model pi has credentials for) real models play every part; otherwise pi-ai's
 * faux provider does, scripted for this demo, and the demo says so.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Api, InMemoryModelsStore, type Model } from "@earendil-works/pi-ai";
import { getAgentDir, ModelRuntime, resolveCliModel } from "@earendil-works/pi-coding-agent";
import { formatWorkflowProgress, type WorkflowProgressDetails } from "../src/progress/index.ts";
import { createDemoProvider, DEMO_FILES } from "./demo-faux.ts";
import { createParentSession } from "./parent-session.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "workflows", "review-and-fix.js");
const ARGS = { target: "src/math.ts", focus: ["correctness", "security", "tests"] };
const TOOL_CALL = { path: EXAMPLE, args: ARGS };

const HELP = `npm run demo [-- options]: a pi session asks the workflow tool to run
examples/workflows/review-and-fix.js on a throwaway project, and prints its progress and result.

Options:
  --model <provider/id>  play every part with this model (pi's credentials, ~/.pi/agent or PI_CODING_AGENT_DIR)
  --faux                 the scripted run on pi-ai's faux provider, even when pi has credentials
  --help                 this text

With neither, the first model pi has credentials for plays; with none, the scripted run does. The scripted run
writes nothing under pi's agent directory: its run record and settings live in a temp folder, removed at the end.
`;

function option(name: string): string | undefined {
	const at = process.argv.indexOf(name);
	return at >= 0 ? process.argv[at + 1] : undefined;
}

/**
 * A real model when one is asked for or configured; the scripted faux provider otherwise. Looking costs the
 * user's pi folder nothing: the model catalog cache stays in memory, and auth.json is read in place only when it
 * exists (pi creates it on first read), so a scripted run leaves no file under ~/.pi.
 */
async function chooseModel(scratch: string): Promise<{
	modelRuntime: ModelRuntime;
	model: Model<Api>;
	scripted: boolean;
	agentDir: string;
}> {
	const userDir = getAgentDir();
	const userAuth = join(userDir, "auth.json");
	const forceFaux = process.argv.includes("--faux");
	const modelRuntime = await ModelRuntime.create({
		authPath: existsSync(userAuth) && !forceFaux ? userAuth : join(scratch, "auth.json"),
		modelsPath: forceFaux ? null : join(userDir, "models.json"),
		modelsStore: new InMemoryModelsStore(),
	});
	const wanted = option("--model");
	if (wanted) {
		const resolved = resolveCliModel({ cliModel: wanted, modelRuntime });
		if (!resolved.model) throw new Error(`--model ${wanted}: ${resolved.error ?? "not found"}`);
		return { modelRuntime, model: resolved.model, scripted: false, agentDir: userDir };
	}
	const available = forceFaux ? [] : await modelRuntime.getAvailable().catch(() => []);
	if (available[0]) return { modelRuntime, model: available[0], scripted: false, agentDir: userDir };
	const faux = createDemoProvider(TOOL_CALL);
	modelRuntime.registerNativeProvider(faux.provider);
	const model = modelRuntime.getModel("faux-demo", "scripted");
	if (!model) throw new Error("the faux demo model did not register");
	// The scripted run must not pick up the user's own agent files or saved workflows, nor leave its run record in
	// the user's pi folder: the extension reads pi's agent directory from the environment, as pi does.
	process.env.PI_CODING_AGENT_DIR = scratch;
	return { modelRuntime, model, scripted: true, agentDir: scratch };
}

/** Redraws the progress block in place on a terminal; elsewhere prints it when its first line changes. */
function createPrinter() {
	let shown = 0;
	let lastHead = "";
	return (text: string) => {
		const lines = text.split("\n");
		if (process.stdout.isTTY) {
			if (shown > 0) process.stdout.write(`\x1b[${shown}A\x1b[J`);
			process.stdout.write(`${text}\n`);
			shown = lines.length;
		} else if (lines[0] !== lastHead) {
			process.stdout.write(`${text}\n\n`);
			lastHead = lines[0] ?? "";
		}
	};
}

async function main(): Promise<void> {
	if (process.argv.includes("--help") || process.argv.includes("-h")) {
		process.stdout.write(HELP);
		return;
	}
	const scratch = mkdtempSync(join(tmpdir(), "pi-workflows-demo-agent-"));
	try {
		await runDemo(scratch);
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

async function runDemo(scratch: string): Promise<void> {
	const { modelRuntime, model, scripted, agentDir } = await chooseModel(scratch);
	const project = mkdtempSync(join(tmpdir(), "pi-workflows-demo-"));
	for (const [file, text] of Object.entries(DEMO_FILES)) {
		mkdirSync(dirname(join(project, file)), { recursive: true });
		writeFileSync(join(project, file), text);
	}
	console.log(
		scripted
			? "No model credentials found (or --faux): pi-ai's faux provider plays the models, scripted for this demo.\nThe sessions, tools, sandbox and queue are real. Run with --model provider/id to use a real model.\n"
			: `Using ${model.provider}/${model.id} for the parent and every child.\n`,
	);
	console.log(`Project: ${project}\nWorkflow: examples/workflows/review-and-fix.js ${JSON.stringify(ARGS)}\n`);

	const parent = await createParentSession({ cwd: project, agentDir, modelRuntime, model });
	const print = createPrinter();
	let final: WorkflowProgressDetails | undefined;
	parent.session.subscribe((event) => {
		if (event.type !== "tool_execution_update" && event.type !== "tool_execution_end") return;
		const result = event.type === "tool_execution_update" ? event.partialResult : event.result;
		const details = (result as { details?: WorkflowProgressDetails } | undefined)?.details;
		if (!details?.envelope) return;
		print(formatWorkflowProgress(details.envelope));
		if (event.type === "tool_execution_end") final = details;
	});
	try {
		await parent.session.prompt(
			`Run the workflow tool with path ${JSON.stringify(EXAMPLE)} and args ${JSON.stringify(ARGS)}. Then summarise its result in two sentences.`,
		);
		console.log("\nResult returned by the script:");
		console.log(JSON.stringify(final?.envelope.result ?? null, null, 2));
		// A scripted run's record is in the temp folder removed below: name it only when it stays.
		if (final?.runId && !scripted) console.log(`\nRun record: ${final.runId} (list runs with /workflows in pi)`);
		console.log(`\nsrc/math.ts after the run:\n${readFileSync(join(project, "src/math.ts"), "utf8")}`);
		console.log(`Parent model: ${parent.session.getLastAssistantText() ?? "(no reply)"}`);
		if (final?.envelope.status !== "completed") process.exitCode = 1;
	} finally {
		parent.dispose();
		rmSync(project, { recursive: true, force: true });
	}
}

await main();
