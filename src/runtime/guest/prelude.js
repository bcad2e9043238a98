// biome-ignore-all lint/suspicious/noShadowRestrictedNames: the prelude shadows globals on purpose, with copies taken before the script can replace them.
// The guest half of the workflow globals, evaluated inside QuickJS before the script (never in Node).
// The sandbox calls the function below with `host` (one function per host call) and `data` (JSON facts).
// It installs read-only globals. Everything it relies on is captured here first, because the script may replace
// Promise, Array.prototype.map, JSON… afterwards. Orchestration stays on the host; only what must call guest
// functions (parallel, pipeline, phase with fn) lives here.
(function installWorkflowGlobals(host, data) {
	const G = globalThis;
	const { Error, TypeError, Reflect, Object, Array, String, JSON, Math, WeakMap, RegExp } = G;
	const NativeDate = G.Date;
	const NativePromise = G.Promise;
	const promiseThen = NativePromise.prototype.then;
	const defineProperty = Object.defineProperty;
	const freeze = Object.freeze;
	const isArray = Array.isArray;
	const stringify = JSON.stringify;
	const apply = Reflect.apply;
	const construct = Reflect.construct;
	const reflectGet = Reflect.get;
	const createObject = Object.create;
	const getPrototypeOf = Object.getPrototypeOf;
	const setPrototypeOf = Object.setPrototypeOf;
	const weakGet = WeakMap.prototype.get;
	const weakSet = WeakMap.prototype.set;
	const split = String.prototype.split;
	const stringIncludes = String.prototype.includes;
	const stringSlice = String.prototype.slice;
	const toUpperCase = String.prototype.toUpperCase;
	const regexpExec = RegExp.prototype.exec;
	const maxItems = data.maxItems;
	// Above this many agents in one parallel()/pipeline() call the host asks a person first (0: never).
	const fanOutAbove = data.fanOutAbove;
	// Set once the host said yes: later calls need not ask again this run.
	let fanOutCleared = false;

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

	// ---- Promises used as results: refused where they show up, naming the call that made them ----

	// The call site of each promise agent()/parallel()/pipeline()/workflow()/ask() returned.
	const launches = new WeakMap();
	const framePosition = /:(\d+):(\d+)\)?$/;

	function isPromise(value) {
		return value instanceof NativePromise;
	}

	// " (2:11)": the first frame of a call site that is not ours.
	function sitePosition(site) {
		const frames = apply(split, String(site.stack), ["\n"]);
		for (let i = 0; i < frames.length; i++) {
			if (frames[i] === "" || apply(stringIncludes, frames[i], ["<prelude>"])) continue;
			const match = apply(regexpExec, framePosition, [frames[i]]);
			if (match !== null) return ` (${match[1]}:${match[2]})`;
		}
		return "";
	}

	// `readField`: the field read, when that was the use (`await f().x` would read it of the promise still).
	function notAwaited(what, name, promise, readField) {
		const site = apply(weakGet, launches, [promise]);
		const source = name ? `the Promise that \`${name}()\`${site ? sitePosition(site) : ""} returns` : "a Promise";
		const text = what(source);
		const fix = name ? `write \`await ${name}(…)\`` : "`await` the call that made it";
		const where = readField && `, or await it where it is read, in parentheses: \`(await …).${readField}\``;
		const sentence = apply(toUpperCase, text[0], []) + apply(stringSlice, text, [1]);
		return codedError("not_awaited", `${sentence}: ${fix} before using its result${where || ""}`, TypeError);
	}

	// One prototype per call name, between the promise and Promise.prototype: reading a field that promises lack,
	// or turning the promise into text or JSON, throws; \`await\`, \`.then\`, \`Promise.all\` read only what promises have.
	function guardPrototype(name) {
		const traps = createObject(null);
		traps.get = (target, key, receiver) => {
			if (typeof key === "symbol" || key in target) return reflectGet(target, key, receiver);
			throw notAwaited((source) => `\`.${key}\` was read on ${source}, not on its result`, name, receiver, key);
		};
		const proto = createObject(new G.Proxy(createObject(NativePromise.prototype), traps));
		const method = (fn) => ({ value: fn, writable: true, enumerable: false, configurable: true });
		defineProperty(proto, "constructor", method(NativePromise));
		defineProperty(
			proto,
			"toString",
			method(function toString() {
				throw notAwaited((source) => `${source} was turned into text (\`\${…}\` or \`+\`)`, name, this);
			}),
		);
		defineProperty(
			proto,
			"toJSON",
			method(function toJSON() {
				throw notAwaited((source) => `\`JSON.stringify\` got ${source}`, name, this);
			}),
		);
		return proto;
	}
	// No prototype: a script's own `Object.prototype` keys must not show up among the guards.
	const guards = {
		__proto__: null,
		agent: guardPrototype("agent"),
		parallel: guardPrototype("parallel"),
		pipeline: guardPrototype("pipeline"),
		workflow: guardPrototype("workflow"),
		ask: guardPrototype("ask"),
		tool: guardPrototype("tool"),
	};

	function guard(promise, name, site) {
		setPrototypeOf(promise, guards[name]);
		apply(weakSet, launches, [promise, site]);
		return promise;
	}

	// A promise agent()/parallel()/… returned whose `then` is still the engine's: wrapping it would add two jobs.
	function ownCall(value) {
		if (value === null || typeof value !== "object") return false;
		for (const key in guards)
			if (getPrototypeOf(value) === guards[key]) return reflectGet(value, "then") === promiseThen;
		return false;
	}

	// A Promise given where a value is expected (a prompt, a log message): named, at the call that got it. Where a
	// function goes (`phase()`'s), awaiting would give a value, no function either: `startedFix` says what to pass.
	function refusePromise(what, value, startedFix) {
		if (value === null || typeof value !== "object" || !isPromise(value)) return;
		let name;
		for (const key in guards) if (getPrototypeOf(value) === guards[key]) name = key;
		if (startedFix === undefined) throw notAwaited((source) => `${what} is ${source}`, name, value);
		const site = name && apply(weakGet, launches, [value]);
		const call = name ? `a call of \`${name}()\`${site ? sitePosition(site) : ""} already started` : "a Promise";
		const text = `${what} is ${call}, not a function: a call written there starts at once. ${startedFix}`;
		throw codedError("not_awaited", `${text} (\`await\` gives a value, which is not a function either)`, TypeError);
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

	// What to pass instead: of something that is not an array, per combinator; of a stage or phase function.
	const FIX = {
		parallel:
			"Pass an array of functions that make the calls: `parallel([() => agent(…), () => agent(…)])`, or `parallel(items.map((item) => () => agent(…)))`",
		pipeline:
			"Pass the items as an array: `pipeline(items, (item) => agent(…))`; for a list an agent finds, give that `agent()` a `schema` with an array property and pass the property",
		stage: "Pass a function, which `pipeline()` calls for each item with the previous stage's result, the item and its index: `(prev, item, i) => agent(…)`",
		phase: "Pass a function instead: `phase(name, () => agent(…))`",
		fn: "Pass one, which `phase()` calls inside the phase: `phase(name, () => agent(…))`; or call `phase(name)` alone to start a phase that the calls after it belong to",
	};

	function checkItems(fnName, items) {
		if (!isArray(items)) {
			throw new TypeError(`\`${fnName}()\` takes an array, got ${describe(items)}. ${FIX[fnName]}`);
		}
		if (items.length > maxItems) {
			const error = codedError(
				"limit_items",
				`\`${fnName}()\` got ${items.length} items (limit: ${maxItems}). Split the work into batches (a \`for\` loop over \`items.slice(i, i + ${maxItems})\`) or raise \`limits.maxItems\``,
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

	// A host call whose promise the script must await: its call site goes last (the host reads the script's line
	// from it) and names the call when its promise is used as a value. No spread: see callAsync.
	function guardedCall(fn, name, args) {
		const site = new Error("call site");
		args[args.length] = site.stack;
		return guard(callAsync(fn, args, site), name, site);
	}

	function agent(prompt, options) {
		refusePromise("`agent()` prompt", prompt);
		return guardedCall(host.agent, "agent", [prompt, options === undefined ? null : options]);
	}

	// Undefined when the call may start at once; else a promise that resolves once the host allows it.
	function fanOutGate(kind, items, agents, site) {
		if (fanOutCleared || !(fanOutAbove > 0) || agents <= fanOutAbove) return undefined;
		return then(callAsync(host.fanOut, [kind, items, agents], site), () => {
			fanOutCleared = true;
		});
	}

	function parallel(thunks) {
		const site = new Error("call site");
		checkItems("parallel", thunks);
		for (let i = 0; i < thunks.length; i++) {
			if (typeof thunks[i] !== "function") {
				throw new TypeError(
					`\`parallel()\` takes functions; item ${i} is ${describe(thunks[i])}. Pass \`() => agent(…)\``,
				);
			}
		}
		host.fanOutStarted("parallel", thunks.length);
		const gate = fanOutGate("parallel", thunks.length, thunks.length, site);
		const run = () => settleAll(startSlots(thunks));
		return guard(gate === undefined ? run() : then(gate, run), "parallel", site);
	}

	function startSlots(thunks) {
		const slots = new Array(thunks.length);
		for (let i = 0; i < thunks.length; i++) {
			const failed = (error) => {
				host.slotFailed("parallel", i, messageOf(error));
				return null;
			};
			try {
				const started = thunks[i]();
				// A call's own promise is followed as it is, when its `then` is the engine's (else as any thenable).
				slots[i] = then(ownCall(started) ? started : toPromise(started), undefined, failed);
			} catch (error) {
				slots[i] = then(NativePromise.reject(error), undefined, failed);
			}
		}
		return slots;
	}

	function pipeline(items, ...stages) {
		const site = new Error("call site");
		checkItems("pipeline", items);
		for (let s = 0; s < stages.length; s++) {
			if (typeof stages[s] !== "function") {
				throw new TypeError(
					`\`pipeline()\` stages must be functions; stage ${s + 1} is ${describe(stages[s])}. ${FIX.stage}`,
				);
			}
		}
		host.fanOutStarted("pipeline", items.length);
		const gate = fanOutGate("pipeline", items.length, items.length * (stages.length > 0 ? stages.length : 1), site);
		const run = () => {
			const runs = new Array(items.length);
			for (let i = 0; i < items.length; i++) runs[i] = runItem(items[i], i, stages);
			return settleAll(runs);
		};
		return guard(gate === undefined ? run() : then(gate, run), "pipeline", site);
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

	// phase(name), phase(name, fn), phase(name, options), phase(name, options, fn).
	function phase(name, optionsOrFn, maybeFn) {
		if (typeof name !== "string" || name.trim() === "") {
			throw new TypeError(`\`phase()\` takes a non-empty name, got ${describe(name)}`);
		}
		refusePromise("`phase()`'s function", maybeFn === undefined ? optionsOrFn : maybeFn, FIX.phase);
		let fn = maybeFn;
		let options = optionsOrFn;
		if (typeof optionsOrFn === "function") {
			if (maybeFn !== undefined) {
				throw new TypeError("`phase()` takes its options before the function: write `phase(name, { budget }, fn)`");
			}
			fn = optionsOrFn;
			options = undefined;
		} else if (maybeFn === undefined && (typeof optionsOrFn !== "object" || isArray(optionsOrFn))) {
			// A second argument that is neither a function nor an options object was meant as the function
			// (`phase(name, answer)`): it gets the function's message, which says what to pass.
			fn = optionsOrFn;
			options = undefined;
		}
		refusePromise("`phase()` options", options);
		if (options !== undefined && options !== null) callSync(host.phaseOptions, [name, options]);
		if (fn === undefined) {
			host.phaseStart(name, false);
			return undefined;
		}
		if (typeof fn !== "function")
			throw new TypeError(`\`phase(name, fn)\` takes a function, got ${describe(fn)}. ${FIX.fn}`);
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
		refusePromise("`log()` message", message);
		callSync(host.log, ["info", String(message), logData === undefined ? null : logData, logData !== undefined]);
	}

	function consoleMethod(level, name) {
		return function consoleLog(...parts) {
			let text = "";
			for (let i = 0; i < parts.length; i++) {
				const part = parts[i];
				refusePromise(`\`console.${name}()\` argument ${i + 1}`, part);
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

	function ask(question, options) {
		refusePromise("`ask()` question", question);
		return guardedCall(host.ask, "ask", [question, options === undefined ? null : options]);
	}

	function tool(name, params, options) {
		refusePromise("`tool()` name", name);
		refusePromise("`tool()` params", params);
		const args = [name, params === undefined ? null : params, options === undefined ? null : options];
		return guardedCall(host.tool, "tool", args);
	}

	function workflow(nameOrPath, workflowArgs) {
		const args = [nameOrPath, workflowArgs === undefined ? null : workflowArgs, workflowArgs !== undefined];
		return guardedCall(host.workflow, "workflow", args);
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
		get total() {
			return callSync(host.budget, []).tokens.total;
		},
		spent: () => budget.tokens.spent(),
		remaining: () => budget.tokens.remaining(),
		get agentCalls() {
			return freeze(callSync(host.budget, []).agentCalls);
		},
		get logs() {
			return freeze(callSync(host.budget, []).logs);
		},
		get tokens() {
			return freeze({
				total: callSync(host.budget, []).tokens.total,
				spent: () => callSync(host.budget, []).tokens.spent,
				remaining: () => callSync(host.budget, []).tokens.remaining ?? Number.POSITIVE_INFINITY,
			});
		},
		get cost() {
			return freeze({
				limit: callSync(host.budget, []).cost.limit,
				spent: () => callSync(host.budget, []).cost.spent,
				remaining: () => callSync(host.budget, []).cost.remaining ?? Number.POSITIVE_INFINITY,
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
		ask,
		tool,
		sleep,
		budget,
		args: data.hasArgs ? data.args : undefined,
		cwd: data.cwd,
		process: freeze({ cwd: () => data.cwd }),
		console: freeze({
			log: consoleMethod("info", "log"),
			info: consoleMethod("info", "info"),
			warn: consoleMethod("warn", "warn"),
			error: consoleMethod("error", "error"),
		}),
		Date,
	};
	for (const name of Object.keys(globals)) {
		defineProperty(G, name, { value: globals[name], writable: false, enumerable: false, configurable: false });
	}
});
