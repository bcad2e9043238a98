/**
 * The current phase as the host sees it. Guest calls arrive in order, so the phase current when an `agent()`
 * call arrives is the phase it was made in. `phase(name, fn)` nests and ends when `fn` settles; `phase(name)`
 * replaces the current plain phase. Concurrent `phase(name, fn)` calls share one "current" phase.
 */
import type { PhaseEndEvent, PhaseStartEvent } from "./events.ts";

export type PhaseEvent = Omit<PhaseStartEvent, "time"> | Omit<PhaseEndEvent, "time">;

/** Tracks the current phase of one script and reports start and end events. */
export class PhaseState {
	#current: string | undefined;
	/** Running `phase(name, fn)` calls, each with the phase that was current when it started. */
	readonly #scoped: Array<{ name: string; parent: string | undefined }> = [];
	readonly #emit: (event: PhaseEvent) => void;

	constructor(emit: (event: PhaseEvent) => void) {
		this.#emit = emit;
	}

	get current(): string | undefined {
		return this.#current;
	}

	start(name: string, withFn: boolean, budget?: PhaseStartEvent["budget"]): void {
		const parent = this.#current;
		if (withFn) this.#scoped.push({ name, parent });
		else this.#endPlain();
		this.#current = name;
		this.#emit({
			type: "phase_start",
			phase: name,
			...(parent !== undefined ? { parent } : {}),
			...(budget !== undefined ? { budget } : {}),
		});
	}

	/** The end of a `phase(name, fn)`: back to the phase that enclosed it. */
	end(name: string): void {
		let at = -1;
		for (let i = this.#scoped.length - 1; i >= 0; i--) {
			if (this.#scoped[i]?.name === name) {
				at = i;
				break;
			}
		}
		if (at < 0) return;
		const [scope] = this.#scoped.splice(at, 1);
		if (this.#current !== name) this.#endPlain();
		this.#emit({ type: "phase_end", phase: name });
		this.#current = scope?.parent;
	}

	/**
	 * `name` and the phases enclosing it, innermost first: the `phase(name, fn)` calls still running that it was
	 * started in. A plain phase has no enclosing one.
	 */
	lineage(name: string): string[] {
		const names = [name];
		let at = name;
		for (let i = this.#scoped.length - 1; i >= 0; i--) {
			const scope = this.#scoped[i];
			if (scope?.name !== at || scope.parent === undefined || names.includes(scope.parent)) continue;
			names.push(scope.parent);
			at = scope.parent;
		}
		return names;
	}

	/** Ends whatever plain phase is still open when the script finishes. */
	finish(): void {
		this.#endPlain();
		this.#current = undefined;
	}

	#endPlain(): void {
		const current = this.#current;
		if (current !== undefined && !this.#scoped.some((s) => s.name === current)) {
			this.#emit({ type: "phase_end", phase: current });
		}
	}
}
