/**
 * The only code of ours that runs inside QuickJS. It runs first in every fresh context, before the prelude and
 * the body, and captures the built-ins it needs, so a script that replaces `JSON`, `Promise`, `Object.*` or
 * `Array.prototype.*` cannot change how values cross. It is sent as text (`bootGuest.toString()`), so it must
 * stay self-contained: no imports, no outer names, only syntax QuickJS has (types are erased before).
 */

/** Why a value cannot cross; `message` names the path and says what to pass instead. */
export interface GuestValueFailure {
	kind: "value_not_json" | "limit_value_size" | "not_awaited";
	path: string;
	message: string;
	/** What the bad value is ("a function", "a Map", "a Promise"), for a message that says how to make it data. */
	found?: string;
}

/** How `settle` reads a triple's payload (numbers, so the guest needs no strings to tell them apart). */
export const SETTLE = { empty: 0, json: 1, value: 2, error: 3 } as const;

/** The native function the host half installs: `(index of host function, arguments as JSON, call site stack)`. */
export type RawHostCall = (index: number, argsJson: string, site: string) => unknown;

/** What `bootGuest` returns to the worker (a null-prototype object of functions). */
export interface GuestHelpers {
	/** Builds the `host` object of the prelude from `[{ name, kind, params, callSite }]`. */
	makeHost(specs: { name: string; kind: string; params: string[]; callSite: boolean }[]): Record<string, unknown>;
	/** JSON text of a guest value, or why it cannot cross. `root` starts the path. */
	encode(value: unknown, root: string): string | GuestValueFailure;
	/** A fresh guest value from JSON text. */
	decode(text: string): unknown;
	/**
	 * Settles the promises of async host calls, in order, from triples `(call id, how, payload)`: `SETTLE.empty`
	 * resolves with undefined, `SETTLE.json` with the parsed JSON text (its parse error rejects), `SETTLE.value` with
	 * the payload as it is, `SETTLE.error` rejects with it.
	 */
	settle(...triples: unknown[]): void;
	/** A guest `Error` with the host error's name, message and props; `site` becomes its stack. */
	makeError(name: string, message: string, propsJson: string, site: string): Error;
	/** `{ name?, message, stack?, props }` of anything thrown, as JSON text. */
	describe(thrown: unknown): string;
}

/**
 * Boots the guest side. `maxChars` caps the JSON text of one crossing value (the worker checks exact bytes),
 * `maxDepth` its nesting.
 */
export function bootGuest(rawCall: RawHostCall, maxChars: number, maxDepth: number): GuestHelpers {
	const apply = Reflect.apply;
	const construct = Reflect.construct;
	const ownKeys = Reflect.ownKeys;
	const getPrototypeOf = Object.getPrototypeOf;
	const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
	const defineProperty = Object.defineProperty;
	const hasOwn = Object.hasOwn;
	const createObject = Object.create;
	const freeze = Object.freeze;
	const isArray = Array.isArray;
	const isFiniteNumber = Number.isFinite;
	const isNaNNumber = Number.isNaN;
	const stringify = JSON.stringify;
	const parse = JSON.parse;
	const ErrorCtor = Error;
	const TypeErrorCtor = TypeError;
	const StringCtor = String;
	const WeakSetCtor = WeakSet;
	const MapCtor = Map;
	const mapGet = Map.prototype.get;
	const mapSet = Map.prototype.set;
	const mapDelete = Map.prototype.delete;
	const weakHas = WeakSet.prototype.has;
	const weakAdd = WeakSet.prototype.add;
	const bindFn = Function.prototype.bind;
	const regexpExec = RegExp.prototype.exec;
	const objectProto = Object.prototype;
	const arrayProto = Array.prototype;
	const PromiseCtor = Promise;
	const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
	const vowel = /^[AEIOaeio]/;
	const FAILED = createObject(null);

	// This QuickJS build does not reserve a growable SharedArrayBuffer's `maxByteLength`: `grow()` lets a view write
	// past the allocation into the engine's own heap. Workflows need neither it nor Atomics, so neither exists.
	Reflect.deleteProperty(globalThis, "SharedArrayBuffer");
	Reflect.deleteProperty(globalThis, "Atomics");

	// Descriptors are null-prototype objects: a script's `Object.prototype.get` must not leak into them.
	function dataDescriptor(value: unknown, enumerable: boolean): PropertyDescriptor {
		const descriptor = createObject(null);
		descriptor.value = value;
		descriptor.writable = true;
		descriptor.enumerable = enumerable;
		descriptor.configurable = true;
		return descriptor;
	}

	// There is no built-in way to tell a Proxy apart, so every Proxy the guest makes is recorded here.
	const proxies = new WeakSetCtor<object>();
	const OriginalProxy = Proxy;
	const originalRevocable = Proxy.revocable;
	const traps = createObject(null);
	traps.construct = (target: ProxyConstructor, args: unknown[], newTarget: NewableFunction) => {
		const proxy = construct(target, args, newTarget);
		apply(weakAdd, proxies, [proxy]);
		return proxy;
	};
	defineProperty(
		OriginalProxy,
		"revocable",
		dataDescriptor(function revocable(target: object, handler: ProxyHandler<object>) {
			const pair = apply(originalRevocable, undefined, [target, handler]);
			apply(weakAdd, proxies, [pair.proxy]);
			return pair;
		}, false),
	);
	defineProperty(globalThis, "Proxy", dataDescriptor(new OriginalProxy(OriginalProxy, traps), false));

	// State of one encoding; nothing in it can run guest code (no getters, no proxies), so it is not re-entered.
	// A walk either writes the text as it goes (`writing`), or only checks the value and adds up in `bound` the most
	// characters its text can take, for the engine's own `stringify` to write after (`quickText`).
	let writing = true;
	let bound = 0;
	let out = "";
	let failure: GuestValueFailure | null = null;
	// The objects and arrays the walk is inside, by depth (null-prototype: no script setter runs on a write); emptied
	// after each walk, so it keeps no value alive.
	let ancestors: Record<number, object> = createObject(null);
	// `proxies.has` bound once: no argument array per object.
	const isProxy = apply(bindFn, weakHas, [proxies]) as (value: object) => boolean;
	let pathKeys: Record<number, string | number | symbol> = createObject(null);

	// Characters a number's text takes at most ("-0.0000012345678901234567"), and its comma.
	const NUMBER_CHARS = 26;
	// Characters a string's text takes at most, each of its characters written `\uXXXX` at worst: quotes, comma.
	const textChars = (text: string) => 6 * text.length + 3;

	// A path deeper than this shows its first and last keys around a count, so a message stays readable.
	const PATH_SHOWN = 12;

	function formatPath(depth: number): string {
		let path = StringCtor(pathKeys[0]);
		for (let i = 1; i <= depth; i++) {
			if (depth > 2 * PATH_SHOWN && i === PATH_SHOWN + 1) {
				path += `…(${depth - 2 * PATH_SHOWN} more levels)…`;
				i = depth - PATH_SHOWN;
				continue;
			}
			const key = pathKeys[i];
			if (typeof key === "number") path += `[${key}]`;
			else if (typeof key === "symbol") path += `[${StringCtor(key)}]`;
			else if (apply(regexpExec, identifier, [key]) !== null) path += `.${key}`;
			else path += `[${stringify(key)}]`;
		}
		return path;
	}

	function fail(depth: number, found: string): never {
		const path = formatPath(depth);
		failure = {
			kind: "value_not_json",
			path,
			message: `\`${path}\` is ${found}, which cannot cross the sandbox boundary. Pass plain JSON data (objects, arrays, strings, numbers, booleans, null)`,
			found,
		};
		throw FAILED;
	}

	// A Promise is the one non-data value with an obvious fix: the code that made it was not awaited.
	function failPromise(depth: number): never {
		const path = formatPath(depth);
		failure = {
			kind: "not_awaited",
			path,
			message: `\`${path}\` is a Promise, which cannot cross the sandbox boundary: \`await\` the call that made it and pass its result`,
			found: "a Promise",
		};
		throw FAILED;
	}

	// A non-proxy prototype whose own \`constructor\` is the engine's Promise (a workflow call's promise has one
	// between it and \`Promise.prototype\`). Only descriptors are read, so no script code runs.
	function isPromiseProto(proto: object | null): boolean {
		if (proto === null || isProxy(proto)) return false;
		const ctor = getOwnPropertyDescriptor(proto, "constructor");
		return ctor !== undefined && ctor.value === PromiseCtor;
	}

	function checkSize(): void {
		if ((writing ? out.length : bound) <= maxChars) return;
		// The bound may be far above the text: the writing walk decides.
		if (!writing) throw FAILED;
		const path = formatPath(0);
		failure = {
			kind: "limit_value_size",
			path,
			message: `\`${path}\` is larger than ${maxChars} bytes as JSON, the limit for a value crossing the sandbox boundary`,
		};
		throw FAILED;
	}

	function className(proto: object): string {
		if (isProxy(proto)) return "an object whose prototype is a Proxy";
		const ctor = getOwnPropertyDescriptor(proto, "constructor");
		if (ctor !== undefined && typeof ctor.value === "function") {
			const name = getOwnPropertyDescriptor(ctor.value, "name");
			const text = name === undefined ? undefined : name.value;
			if (typeof text === "string" && text !== "") return `${apply(regexpExec, vowel, [text]) ? "an" : "a"} ${text}`;
		}
		return "an object with a custom prototype";
	}

	// Writes `text`, or counts it (and a comma) in the bound.
	function put(text: string): void {
		if (writing) out += text;
		else bound += text.length + 1;
	}

	function encodeAt(value: unknown, depth: number): void {
		if (value === null) put("null");
		else if (typeof value === "string") {
			if (writing) out += stringify(value);
			else bound += textChars(value);
		} else if (typeof value === "boolean") put(value ? "true" : "false");
		else if (typeof value === "number") {
			if (!isFiniteNumber(value)) fail(depth, isNaNNumber(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity");
			if (writing) out += `${value}`;
			else bound += NUMBER_CHARS;
		} else if (typeof value === "object") encodeObject(value, depth);
		else if (typeof value === "function") fail(depth, "a function");
		else if (typeof value === "bigint") fail(depth, "a BigInt");
		else if (typeof value === "symbol") fail(depth, "a symbol");
		else fail(depth, "undefined");
		checkSize();
	}

	function encodeObject(value: object, depth: number): void {
		if (depth >= maxDepth) fail(depth, `nested more than ${maxDepth} levels deep`);
		if (isProxy(value)) fail(depth, "a Proxy");
		for (let i = 0; i < depth; i++) if (ancestors[i] === value) fail(depth, "a cycle (a value that contains itself)");
		const proto = getPrototypeOf(value);
		ancestors[depth] = value;
		if (isArray(value)) {
			if (proto !== arrayProto) fail(depth, className(proto));
			encodeArray(value, depth);
		} else {
			if (proto !== objectProto && proto !== null) {
				if (isPromiseProto(proto)) failPromise(depth);
				fail(depth, className(proto));
			}
			encodePlain(value, depth);
		}
	}

	function encodeArray(value: unknown[], depth: number): void {
		const length = value.length;
		put("[");
		for (let i = 0; i < length; i++) {
			pathKeys[depth + 1] = i;
			const descriptor = getOwnPropertyDescriptor(value, i);
			if (descriptor === undefined) fail(depth + 1, "a hole (a missing element)");
			if (!hasOwn(descriptor, "value")) fail(depth + 1, "a getter or setter");
			if (i > 0 && writing) out += ",";
			encodeAt(descriptor.value, depth + 1);
		}
		put("]");
		const keys = ownKeys(value);
		if (keys.length > length + 1) {
			pathKeys[depth + 1] = keys[length + 1];
			fail(depth + 1, "a named property of an array");
		}
	}

	function encodePlain(value: object, depth: number): void {
		const keys = ownKeys(value);
		let first = true;
		put("{");
		for (let i = 0; i < keys.length; i++) {
			const key = keys[i];
			pathKeys[depth + 1] = key;
			if (typeof key === "symbol") fail(depth + 1, "a symbol-keyed property");
			if (key === "__proto__") fail(depth + 1, "a `__proto__` key");
			// `stringify` would call a function here even when it is not enumerable (which the walk skips).
			if (key === "toJSON" && !writing) throw FAILED;
			const descriptor = getOwnPropertyDescriptor(value, key) as PropertyDescriptor;
			if (!hasOwn(descriptor, "value")) fail(depth + 1, "a getter or setter");
			if (!descriptor.enumerable || descriptor.value === undefined) continue;
			if (!writing) bound += textChars(key);
			else out += first ? `${stringify(key)}:` : `,${stringify(key)}:`;
			first = false;
			encodeAt(descriptor.value, depth + 1);
		}
		put("}");
	}

	function begin(): void {
		out = "";
		failure = null;
		pathKeys = createObject(null);
	}

	function finish(run: () => void): string | GuestValueFailure {
		begin();
		try {
			run();
		} catch (error) {
			if (error === FAILED && failure !== null) return failure;
			throw error;
		} finally {
			ancestors = createObject(null);
		}
		const text = out;
		out = "";
		return text;
	}

	// `stringify` calls a `toJSON` it finds on a value or up its prototype chain; one a script put on the two
	// prototypes plain data has would run in the middle of the encoding. (It reads no `toJSON` of a primitive.)
	function toJsonFree(): boolean {
		return (
			getOwnPropertyDescriptor(objectProto, "toJSON") === undefined &&
			getOwnPropertyDescriptor(arrayProto, "toJSON") === undefined &&
			getPrototypeOf(arrayProto) === objectProto
		);
	}

	// The text of `value` by the checking walk `walk`, then the engine's native `stringify` (in QuickJS, the two take
	// about two thirds of the writing walk's time); safe because the walk refused what `stringify` would read
	// differently or run (getters, Proxies, functions, holes, cycles, other prototypes, `toJSON`), and the text is
	// within the limit. Undefined when the writing walk must decide: a bad value (for its failure), or a text that may
	// be too long.
	function quickText(value: unknown, walk: () => void): string | undefined {
		if (!toJsonFree()) return undefined;
		begin();
		writing = false;
		bound = 0;
		try {
			walk();
		} catch (error) {
			if (error === FAILED) return undefined;
			throw error;
		} finally {
			writing = true;
			ancestors = createObject(null);
		}
		return stringify(value);
	}

	function encodeWith(value: unknown, walk: () => void): string | GuestValueFailure {
		const text = quickText(value, walk);
		return text === undefined ? finish(walk) : text;
	}

	function encode(value: unknown, root: string): string | GuestValueFailure {
		return encodeWith(value, () => {
			pathKeys[0] = root;
			encodeAt(value, 0);
		});
	}

	// Undefined arguments travel as null; trailing ones are dropped, so `f(a, undefined)` is `f(a)`.
	function encodeArgs(args: unknown[], params: string[], name: string): string | GuestValueFailure {
		let count = args.length;
		while (count > 0 && args[count - 1] === undefined) count--;
		// `args` is the call's own rest array: cut to what is sent, its undefined items are what `stringify` writes null.
		args.length = count;
		return encodeWith(args, () => {
			put("[");
			for (let i = 0; i < count; i++) {
				if (i > 0 && writing) out += ",";
				pathKeys[0] = i < params.length ? params[i] : `${name}[${i}]`;
				if (args[i] === undefined) put("null");
				else encodeAt(args[i], 0);
			}
			put("]");
		});
	}

	function boundaryError(problem: GuestValueFailure): Error {
		const error = new TypeErrorCtor(problem.message);
		defineProperty(error, "code", dataDescriptor(problem.kind, true));
		defineProperty(error, "path", dataDescriptor(problem.path, true));
		return error;
	}

	function makeHost(
		specs: { name: string; kind: string; params: string[]; callSite: boolean }[],
	): Record<string, unknown> {
		const host = createObject(objectProto);
		for (let index = 0; index < specs.length; index++) {
			const name = specs[index].name;
			const kind = specs[index].kind;
			const params = specs[index].params;
			const callSite = specs[index].callSite;
			const call = (...args: unknown[]): unknown => {
				const text = encodeArgs(args, params, name);
				if (typeof text !== "string") throw boundaryError(text);
				if (kind === "event") {
					rawCall(index, text, "");
					return undefined;
				}
				const answer = rawCall(index, text, callSite ? StringCtor(new ErrorCtor().stack) : "");
				// An async call's answer is its id: the promise is made here and settled by `settle`, several at once.
				if (kind === "async") {
					return new PromiseCtor((resolve, reject) => apply(mapSet, waiting, [answer, [resolve, reject]]));
				}
				if (answer === undefined) return answer;
				return parse(answer as string);
			};
			defineProperty(call, "name", dataDescriptor(name, false));
			defineProperty(host, name, dataDescriptor(call, true));
		}
		return freeze(host);
	}

	// The resolve and reject functions of each async host call the host has not answered yet, by call id.
	const waiting = new MapCtor<unknown, [(value: unknown) => void, (error: unknown) => void]>();

	function settle(...triples: unknown[]): void {
		for (let i = 0; i + 2 < triples.length; i += 3) {
			const id = triples[i];
			const how = triples[i + 1];
			const payload = triples[i + 2];
			// `how` as in SETTLE (the guest cannot import it).
			const resolvers = apply(mapGet, waiting, [id]);
			if (resolvers === undefined) continue;
			apply(mapDelete, waiting, [id]);
			if (how === 3) {
				resolvers[1](payload);
				continue;
			}
			let value = payload;
			if (how === 0) value = undefined;
			else if (how === 1) {
				try {
					value = parse(payload as string);
				} catch (error) {
					resolvers[1](error);
					continue;
				}
			}
			resolvers[0](value);
		}
	}

	function makeError(name: string, message: string, propsJson: string, site: string): Error {
		const error = new ErrorCtor(message);
		if (name !== "Error") defineProperty(error, "name", dataDescriptor(name, false));
		const props = parse(propsJson);
		const keys = ownKeys(props);
		for (let i = 0; i < keys.length; i++) defineProperty(error, keys[i], dataDescriptor(props[keys[i]], true));
		if (site !== "") defineProperty(error, "stack", dataDescriptor(site, false));
		return error;
	}

	// Reading a thrown object may run the script's getters; that is the script's own code, under the same limits.
	function readString(thrown: object, key: string): string | undefined {
		try {
			const value = (thrown as Record<string, unknown>)[key];
			return typeof value === "string" ? value : undefined;
		} catch {
			return undefined;
		}
	}

	function printable(thrown: unknown): string {
		try {
			return StringCtor(thrown);
		} catch {
			return `(an unprintable ${typeof thrown})`;
		}
	}

	function encodeProps(thrown: object): string {
		if (isProxy(thrown)) return "{}";
		const keys = ownKeys(thrown);
		let text = "{";
		for (let i = 0; i < keys.length; i++) {
			const key = keys[i];
			if (typeof key === "symbol" || key === "name" || key === "message" || key === "stack") continue;
			const descriptor = getOwnPropertyDescriptor(thrown, key) as PropertyDescriptor;
			if (!hasOwn(descriptor, "value") || !descriptor.enumerable || descriptor.value === undefined) continue;
			const value = encode(descriptor.value, key);
			if (typeof value !== "string") continue;
			text += `${text === "{" ? "" : ","}${stringify(key)}:${value}`;
		}
		return `${text}}`;
	}

	function describe(thrown: unknown): string {
		if ((typeof thrown !== "object" || thrown === null) && typeof thrown !== "function") {
			return `{"message":${stringify(printable(thrown))},"props":{}}`;
		}
		const name = readString(thrown, "name");
		const message = readString(thrown, "message") ?? printable(thrown);
		const stack = readString(thrown, "stack");
		let text = `{"message":${stringify(message)},"props":${encodeProps(thrown)}`;
		if (name !== undefined) text += `,"name":${stringify(name)}`;
		if (stack !== undefined) text += `,"stack":${stringify(stack)}`;
		return `${text}}`;
	}

	const helpers = createObject(null);
	helpers.makeHost = makeHost;
	helpers.encode = encode;
	helpers.decode = (text: string) => parse(text);
	helpers.settle = settle;
	helpers.makeError = makeError;
	helpers.describe = describe;
	return freeze(helpers);
}
