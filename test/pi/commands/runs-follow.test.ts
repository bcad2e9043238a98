/**
 * `/workflows` dialogs left open while a run goes on: they follow it. A real run (QuickJS, children that answer
 * when the test lets them, a real run store) is live in the registry; the person's UI holds each dialog open as
 * pi does, until it is answered or its signal aborts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChildControls } from "../../../src/children/controls.ts";
import { DurableRun } from "../../../src/host/durable-run.ts";
import { RunRegistry } from "../../../src/host/registry.ts";
import { createWorkflowsCommand } from "../../../src/pi/commands/workflows-command.ts";
import { startToolRun } from "../../../src/pi/runs/tool-run.ts";
import { createRunStore, type RunStore } from "../../../src/runs/index.ts";
import type { WorkflowAgentRunner } from "../../../src/runtime/index.ts";
import { HEADER } from "../../helpers/fake-runner.ts";
import { checkSandboxLeaks } from "../../helpers/sandbox-leaks.ts";
import { until } from "../../helpers/until.ts";

checkSandboxLeaks();

const SCRIPT = `${HEADER}return await parallel(["a", "b"].map((x) => () => agent("check " + x, { label: x })));`;

/** One dialog as the person sees it, open until answered or closed by its signal. */
interface Dialog {
	kind: "select" | "confirm";
	title: string;
	options: string[];
	closed: boolean;
	answer(choice: string | boolean | undefined): void;
}

/** A person at pi's TUI: dialogs stay open (as pi's do) until the test answers them or their signal aborts. */
function person(cwd: string) {
	const dialogs: Dialog[] = [];
	const shown: string[] = [];
	const open = <T>(
		kind: Dialog["kind"],
		title: string,
		options: string[],
		signal: AbortSignal | undefined,
		closedAs: T,
	) =>
		new Promise<T>((resolve) => {
			const dialog: Dialog = {
				kind,
				title,
				options,
				closed: false,
				answer: (choice) => {
					dialog.closed = true;
					resolve(choice as T);
				},
			};
			signal?.addEventListener("abort", () => dialog.answer(closedAs as never), { once: true });
			dialogs.push(dialog);
		});
	const ctx = {
		cwd,
		mode: "tui",
		ui: {
			notify: (text: string) => shown.push(text),
			select: (title: string, options: string[], opts?: { signal?: AbortSignal }) =>
				open("select", title, options, opts?.signal, undefined),
			confirm: (title: string, message: string, opts?: { signal?: AbortSignal }) =>
				open("confirm", `${title}\n${message}`, ["Yes", "No"], opts?.signal, false),
		},
	} as unknown as ExtensionCommandContext;
	/** The newest dialog once `count` have been shown. */
	const nth = async (count: number) => {
		await until(() => dialogs.length >= count, `dialog ${count}`);
		return dialogs[count - 1] as Dialog;
	};
	return { ctx, dialogs, shown, nth };
}

describe("/workflows dialogs follow the run", () => {
	let cwd: string;
	let root: string;
	let store: RunStore;
	let registry: RunRegistry;
	/** Lets the child of `prompt` answer. */
	let release: Map<string, () => void>;

	beforeEach(() => {
		cwd = mkdtempSync(join(tmpdir(), "wf-follow-project-"));
		root = mkdtempSync(join(tmpdir(), "wf-follow-runs-"));
		store = createRunStore({ cwd, root });
		registry = new RunRegistry();
		release = new Map();
	});
	afterEach(async () => {
		await registry.stopAll("test over");
		rmSync(cwd, { recursive: true, force: true });
		rmSync(root, { recursive: true, force: true });
	});

	/** Children that answer when released, and stop when aborted. */
	const runner: WorkflowAgentRunner = (request, { signal }) =>
		new Promise((resolve) => {
			const result = (status: "completed" | "stopped") =>
				resolve({
					id: `child-${request.prompt}`,
					type: request.agentType,
					status,
					...(status === "completed" ? { result: `ok ${request.prompt}` } : { error: "aborted" }),
					usage: { input: 5, output: 5, total: 10 },
				});
			release.set(request.prompt, () => result("completed"));
			signal.addEventListener("abort", () => result("stopped"), { once: true });
		});

	/** A real run, live in the registry with per-child controls, once both children are running. */
	async function liveRun() {
		const source = { script: SCRIPT, filename: "workflow.js" };
		const durable = DurableRun.fresh(store, source);
		const run = startToolRun({
			source: SCRIPT,
			options: { agentRunner: runner, filename: "workflow.js" },
			durable,
			record: source,
			controls: new ChildControls(),
			ctx: { hasUI: false, mode: "print", cwd } as unknown as ExtensionContext,
			ui: { widgetKey: "w", statusKey: "s" },
		});
		const id = (await run.recorded) ?? "";
		registry.add(run.live(id, true));
		await until(() => release.size === 2, "both children running");
		return { id, run };
	}

	const command = () => createWorkflowsCommand({ registry, storeFor: () => store });

	it("a run's menu left open: drawn again when a child ends, closed when the run ends, saying how it ended", async () => {
		const { id, run } = await liveRun();
		const { ctx, dialogs, shown, nth } = person(cwd);
		const handled = command().handler("", ctx);
		(await nth(1)).answer((await nth(1)).options[0]);
		const menu = await nth(2);
		expect(menu.title).toBe(`Run ${id}`);
		expect(menu.options).toEqual(["Stop the run", "#1 a · running", "#2 b · running"]);

		release.get("check a")?.();
		const redrawn = await nth(3);
		expect(menu.closed).toBe(true);
		expect(redrawn.options).toEqual(["Stop the run", "#2 b · running"]);

		release.get("check b")?.();
		await handled;
		await run.finished;
		expect(redrawn.closed).toBe(true);
		// Nothing else was offered: no stop confirmation for a run that has completed. A busy machine may draw the menu
		// once more between b's end and the run's (nothing left running: "Stop the run" only), closed with the run.
		const later = dialogs.slice(3);
		expect(later.every((d) => d.title === `Run ${id}` && d.closed)).toBe(true);
		expect(later.map((d) => d.options)).toEqual(later.map(() => ["Stop the run"]));
		expect(shown).toHaveLength(1);
		expect(shown[0]).toMatch(
			new RegExp(`^Run ${id} ended while this menu was open\\.\\nRun ${id} \\(t\\): completed`),
		);
		expect(shown[0]).toContain("#2 b (general-purpose) · completed");
		expect(shown[0]).toContain(`Script: ${join(store.dir, id, "script.js")}`);
	});

	it("the stop confirmation left open: closed when the run ends, and nothing is stopped", async () => {
		const { id, run } = await liveRun();
		const stopped: unknown[] = [];
		const live = registry.get(id);
		if (live) live.stop = (reason) => stopped.push(reason);
		const { ctx, shown, nth } = person(cwd);
		const handled = command().handler("", ctx);
		(await nth(1)).answer((await nth(1)).options[0]);
		(await nth(2)).answer("Stop the run");
		const confirm = await nth(3);
		expect(confirm.title).toMatch(new RegExp(`^Stop run ${id}\\?\\nWorkflow t: running · `));

		release.get("check a")?.();
		release.get("check b")?.();
		await handled;
		await run.finished;
		expect(confirm.closed).toBe(true);
		expect(stopped).toEqual([]);
		expect(shown[0]).toMatch(
			new RegExp(`^Run ${id} ended while this menu was open\\.\\nRun ${id} \\(t\\): completed`),
		);
	});

	it("the list of runs left open: drawn again when a live run ends, the run now among the ended ones", async () => {
		const { id, run } = await liveRun();
		const { ctx, nth } = person(cwd);
		const handled = command().handler("", ctx);
		const list = await nth(1);
		expect(list.options[0]).toMatch(new RegExp(`^${id} · t · running \\(background\\)`));
		release.get("check a")?.();
		release.get("check b")?.();
		await run.finished;
		const redrawn = await nth(2);
		expect(list.closed).toBe(true);
		expect(redrawn.options[0]).toMatch(
			new RegExp(`^${id} · t · completed · .* ago · 2 agents done · 20 tokens · \\d+(\\.\\d)? (B|KiB)$`),
		);
		redrawn.answer(undefined);
		await handled;
	});
});
