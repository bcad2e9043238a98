// biome-ignore-all lint/suspicious/noShadowRestrictedNames: the prelude shadows globals on purpose, with copies taken before the script can replace them.
// The guest half of the workflow globals, evaluated inside QuickJS before the script (never in Node).
// The sandbox calls the function below with `host` (one function per host call) and `data` (JSON facts).
// It installs read-only globals. Everything it relies on is captured here first, because the script may replace
// Promise, Array.prototype.map, JSON… afterwards. Orchestration stays on the host; only what must call guest
// functions (parallel, pipeline, phase with fn) lives here.
(function installWorkflowGlobals(host, data) {
	const G = globalThis;
	const { Error, TypeError, Reflect, Object, Array, String, JSON, Math } = G;
	const NativeDate = G.Date;
	const NativePromise = G.Promise;
	const promiseThen = NativePromise.prototype.then;
	const defineProperty = Object.defineProperty;
	const freeze = Object.freeze;
	const isArray = Array.isArray;
	const stringify = JSON.stringify;
	const apply = Reflect.apply;
	const construct = Reflect.construct;
	const maxItems = data.maxItems;

	function then(promise, onOk, onErr) {
		return apply(promiseThen, promise, [onOk, onErr]);
	}

	function toPromise(value) {
		return new NativePromise((resolve) => resolve(value));
	}

	// Host errors are born in the worker with no script frames; give them the call site's stack so the run's
	// error position is the author's line.
	function relocate(error, site) {
		if (error !== null && typeof error === "object") {
			try {
				defineProperty(error, "stack", { value: site.stack, writable: true, configurable: true });
			} catch {
				// A frozen thrown object keeps its own stack.
			}
		}
		return error;
	}

	function codedError(code, message, Ctor) {
		const error = new (Ctor || Error)(message);
		if (!Ctor) error.name = "WorkflowError";
		error.code = code;
		return error;
	}

	function describe(value) {
		if (value === null) return "null";
		if (isArray(value)) return "an array";
		if (typeof value === "object" && typeof value.then === "function") return "a Promise";
		return `${typeof value === "object" ? "an" : "a"} ${typeof value}`;
	}

	function messageOf(error) {
		if (error !== null && typeof error === "object" && typeof error.message === "string") return error.message;
		try {
			return String(error);
		} catch {
			return "a value that cannot be printed";
		}
	}

	function checkItems(fnName, items) {
		if (!isArray(items)) {
			throw new TypeError(`\`${fnName}()\` takes an array, got ${describe(items)}`);
		}
		if (items.length > maxItems) {
			const error = codedError(
				"limit_items",
				`\`${fnName}()\` got ${items.length} items (limit: ${maxItems}). Split the work or raise \`limits.maxItems\``,
			);
			error.details = { limit: maxItems, count: items.length };
			throw error;
		}
	}

	// Waits for every promise; never rejects (each promise is already turned into a value or null).
	function settleAll(promises) {
		return new NativePromise((resolve) => {
			const values = new Array(promises.length);
			let left = promises.length;
			if (left === 0) resolve(values);
			for (let i = 0; i < promises.length; i++) {
				then(promises[i], (value) => {
					values[i] = value;
					if (--left === 0) resolve(values);
				});
			}
		});
	}

	// `site` may be given by a caller that already made one: a stack is built eagerly, at a cost on every call.
	function callAsync(fn, args, site = new Error("call site")) {
		let promise;
		try {
			// Not `fn(...args)`: spreading runs the script's Array.prototype[Symbol.iterator], which could swap the args.
			promise = apply(fn, undefined, args);
		} catch (error) {
			throw relocate(error, site);
		}
		return then(promise, undefined, (error) => {
			throw relocate(error, site);
		});
	}

	function callSync(fn, args) {
		try {
			return apply(fn, undefined, args);
		} catch (error) {
			throw relocate(error, new Error("call site"));
		}
	}

	function agent(prompt, options) {
		const site = new Error("call site");
		return callAsync(host.agent, [prompt, options === undefined ? null : options, site.stack], site);
	}

	function parallel(thunks) {
		checkItems("parallel", thunks);
		for (let i = 0; i < thunks.length; i++) {
			if (typeof thunks[i] !== "function") {
				throw new TypeError(
					`\`parallel()\` takes functions; item ${i} is ${describe(thunks[i])}. Pass \`() => agent(…)\``,
				);
			}
		}
		const slots = new Array(thunks.length);
		for (let i = 0; i < thunks.length; i++) {
			let started;
			try {
				started = toPromise(thunks[i]());
			} catch (error) {
				started = NativePromise.reject(error);
			}
			slots[i] = then(started, undefined, (error) => {
				host.slotFailed("parallel", i, messageOf(error));
				return null;
			});
		}
		return settleAll(slots);
	}

	function pipeline(items, ...stages) {
		checkItems("pipeline", items);
		for (let s = 0; s < stages.length; s++) {
			if (typeof stages[s] !== "function") {
				throw new TypeError(`\`pipeline()\` stages must be functions; stage ${s + 1} is ${describe(stages[s])}`);
			}
		}
		const runs = new Array(items.length);
		for (let i = 0; i < items.length; i++) runs[i] = runItem(items[i], i, stages);
		return settleAll(runs);
	}

	// One item through all stages, with no barrier between items.
	async function runItem(item, index, stages) {
		let previous = item;
		for (let s = 0; s < stages.length; s++) {
			try {
				previous = await stages[s](previous, item, index);
			} catch (error) {
				host.slotFailed("pipeline", index, `stage ${s + 1} threw: ${messageOf(error)}`);
				return null;
			}
			if (previous === null || previous === undefined) {
				if (s < stages.length - 1) host.slotFailed("pipeline", index, `stage ${s + 1} returned ${previous}`);
				return null;
			}
		}
		return previous;
	}

	function phase(name, fn) {
		if (typeof name !== "string" || name.trim() === "") {
			throw new TypeError(`\`phase()\` takes a non-empty name, got ${describe(name)}`);
		}
		if (fn === undefined) {
			host.phaseStart(name, false);
			return undefined;
		}
		if (typeof fn !== "function") throw new TypeError(`\`phase(name, fn)\` takes a function, got ${describe(fn)}`);
		host.phaseStart(name, true);
		let result;
		try {
			result = fn();
		} catch (error) {
			host.phaseEnd(name, false);
			throw error;
		}
		if (result === null || typeof result !== "object" || typeof result.then !== "function") {
			host.phaseEnd(name, true);
			return result;
		}
		return then(
			toPromise(result),
			(value) => {
				host.phaseEnd(name, true);
				return value;
			},
			(error) => {
				host.phaseEnd(name, false);
				throw error;
			},
		);
	}

	function log(message, logData) {
		callSync(host.log, ["info", String(message), logData === undefined ? null : logData, logData !== undefined]);
	}

	function consoleMethod(level) {
		return function consoleLog(...parts) {
			let text = "";
			for (let i = 0; i < parts.length; i++) {
				const part = parts[i];
				let piece;
				try {
					piece = typeof part === "string" ? part : stringify(part);
				} catch {
					piece = undefined;
				}
				text += (i > 0 ? " " : "") + (piece === undefined ? String(part) : piece);
			}
			callSync(host.log, [level, text, null, false]);
		};
	}

	function sleep(ms) {
		return callAsync(host.sleep, [ms]);
	}

	function workflow(nameOrPath, workflowArgs) {
		const site = new Error("call site");
		return callAsync(
			host.workflow,
			[nameOrPath, workflowArgs === undefined ? null : workflowArgs, workflowArgs !== undefined, site.stack],
			site,
		);
	}

	// Determinism guards: a resumed run must see the same values, so ambient time and randomness are refused.
	function refuse(what, instead) {
		return codedError("determinism", `\`${what}\` is unavailable: it breaks resume. ${instead}`);
	}
	const TIME = "Pass a timestamp in `args`";
	function Date(...parts) {
		if (new.target === undefined) throw refuse("Date()", TIME);
		if (parts.length === 0) throw refuse("new Date()", TIME);
		return construct(NativeDate, parts, new.target);
	}
	Date.prototype = NativeDate.prototype;
	Date.parse = NativeDate.parse;
	Date.UTC = NativeDate.UTC;
	Date.now = function now() {
		throw refuse("Date.now()", TIME);
	};
	defineProperty(NativeDate.prototype, "constructor", { value: Date, writable: true, configurable: true });
	defineProperty(Math, "random", {
		value: function random() {
			throw refuse("Math.random()", "Put the sample index in the prompt or label instead");
		},
		writable: false,
		configurable: false,
	});

	const budget = freeze({
		get agentCalls() {
			return freeze(callSync(host.budget, []).agentCalls);
		},
		get logs() {
			return freeze(callSync(host.budget, []).logs);
		},
		get tokens() {
			const tokens = callSync(host.budget, []).tokens;
			return freeze({
				total: tokens.total,
				spent: () => callSync(host.budget, []).tokens.spent,
				remaining: () => {
					const now = callSync(host.budget, []).tokens;
					return now.remaining === null ? Number.POSITIVE_INFINITY : now.remaining;
				},
			});
		},
	});

	const globals = {
		agent,
		parallel,
		pipeline,
		phase,
		log,
		workflow,
		sleep,
		budget,
		args: data.hasArgs ? data.args : undefined,
		cwd: data.cwd,
		process: freeze({ cwd: () => data.cwd }),
		console: freeze({
			log: consoleMethod("info"),
			info: consoleMethod("info"),
			warn: consoleMethod("warn"),
			error: consoleMethod("error"),
		}),
		Date,
	};
	for (const name of Object.keys(globals)) {
		defineProperty(G, name, { value: globals[name], writable: false, enumerable: false, configurable: false });
	}
});
