/**
 * The worker's handle on the guest helpers that `bootGuest` returns: calling them from the host side of
 * QuickJS, and freeing their handles. Every handle made here is freed here; callers own what is returned.
 */
import type { QuickJSContext, QuickJSHandle, VmCallResult } from "quickjs-emscripten-core";
import { type GuestValueFailure, SETTLE } from "./guest.ts";
import type { DescribedThrow } from "./guest-error.ts";
import type { HostCallResult, HostErrorData } from "./protocol.ts";

/** What encoding a guest value gave: its JSON text, why it cannot cross, or the error it threw. */
export type Encoded = { json: string } | { failure: GuestValueFailure } | { error: QuickJSHandle };

/** `"`: JSON text that is a string. */
const QUOTE = 0x22;
/** What a string made from C text cannot hold as it is. */
const NOT_AS_C_TEXT = /[\0\uD800-\uDFFF]/;

/** Handles of the six guest helpers, owned by one run. */
export class GuestHelpers {
	/** `makeHost(specs)`: the `host` object given to the prelude. */
	readonly makeHost: QuickJSHandle;
	private readonly context: QuickJSContext;
	private readonly encodeFn: QuickJSHandle;
	private readonly decodeFn: QuickJSHandle;
	private readonly settleFn: QuickJSHandle;
	private readonly makeErrorFn: QuickJSHandle;
	private readonly describeFn: QuickJSHandle;

	/** Reads the helpers from the object `bootGuest` returned (a frozen null-prototype object: no getters run). */
	constructor(context: QuickJSContext, helpers: QuickJSHandle) {
		this.context = context;
		this.makeHost = context.getProp(helpers, "makeHost");
		this.encodeFn = context.getProp(helpers, "encode");
		this.decodeFn = context.getProp(helpers, "decode");
		this.settleFn = context.getProp(helpers, "settle");
		this.makeErrorFn = context.getProp(helpers, "makeError");
		this.describeFn = context.getProp(helpers, "describe");
	}

	/** A fresh guest value from JSON text (the caller frees the value or the error). */
	decode(json: string): VmCallResult<QuickJSHandle> {
		const text = this.context.newString(json);
		const result = this.context.callFunction(this.decodeFn, this.context.undefined, text);
		text.dispose();
		return result;
	}

	/**
	 * How `settle` gets an async call's answer, as two fresh handles: what to do, and with what. A text answer (most
	 * agent() calls) is made a guest string here, not parsed in the guest; not one with a NUL or a surrogate:
	 * QuickJS takes the text as NUL-terminated UTF-8, which keeps neither a NUL nor a lone surrogate.
	 */
	payload(result: HostCallResult, site: string): [QuickJSHandle, QuickJSHandle] {
		const { context } = this;
		if (!result.ok) return [context.newNumber(SETTLE.error), this.makeError(result.error, site)];
		if (result.json === undefined) return [context.newNumber(SETTLE.empty), context.undefined];
		if (result.json.charCodeAt(0) === QUOTE) {
			const value = JSON.parse(result.json) as string;
			if (!NOT_AS_C_TEXT.test(value)) return [context.newNumber(SETTLE.value), context.newString(value)];
		}
		return [context.newNumber(SETTLE.json), context.newString(result.json)];
	}

	/** Settles the promises of `triples` (call id, then `payload`'s two) in one guest call, and frees them. */
	settle(triples: QuickJSHandle[]): void {
		const { context } = this;
		const result = context.callFunction(this.settleFn, context.undefined, triples);
		for (const handle of triples) handle.dispose();
		// As a promise's own resolve does: a guest call that fails here is the engine's failure, not the script's.
		context.unwrapResult(result).dispose();
	}

	/** The JSON text of a guest value, with `root` as the start of a bad value's path. */
	encode(value: QuickJSHandle, root: string): Encoded {
		const { context } = this;
		const rootHandle = context.newString(root);
		const result = context.callFunction(this.encodeFn, context.undefined, value, rootHandle);
		rootHandle.dispose();
		if (result.error) return { error: result.error };
		const encoded = result.value;
		const isText = context.typeof(encoded) === "string";
		// The failure record is a plain object of strings that our own helper made.
		const outcome: Encoded = isText
			? { json: context.getString(encoded) }
			: { failure: context.dump(encoded) as GuestValueFailure };
		encoded.dispose();
		return outcome;
	}

	/** A guest Error for a host error; if even that fails (out of memory), the failure itself is returned. */
	makeError(error: HostErrorData, site: string): QuickJSHandle {
		const { context } = this;
		const texts = [error.name, error.message, JSON.stringify(error.props), site];
		const args = texts.map((text) => context.newString(text));
		const result = context.callFunction(this.makeErrorFn, context.undefined, args);
		for (const arg of args) arg.dispose();
		return result.error ?? result.value;
	}

	/** Name, message, stack and JSON-safe props of anything thrown; `null` when reading it threw in turn. */
	describe(thrown: QuickJSHandle): DescribedThrow | null {
		const result = this.context.callFunction(this.describeFn, this.context.undefined, thrown);
		if (result.error) {
			result.error.dispose();
			return null;
		}
		const text = this.context.getString(result.value);
		result.value.dispose();
		return JSON.parse(text) as DescribedThrow;
	}

	dispose(): void {
		for (const handle of [
			this.describeFn,
			this.makeErrorFn,
			this.settleFn,
			this.decodeFn,
			this.encodeFn,
			this.makeHost,
		]) {
			if (handle.alive) handle.dispose();
		}
	}
}
