// biome-ignore-all lint/suspicious/noShadowRestrictedNames: built-ins are captured under their own names.
// `setTimeout`, `clearTimeout` and `queueMicrotask`, evaluated inside QuickJS (never in Node) when a script first
// reads one (see lazy.js). A timer is a host sleep (`host.timer`) bound to the script's lifetime: it cannot keep a
// run alive, it ends when the script does (a callback still pending then never runs), and `clearTimeout` ends the
// host's timer at once (`host.timerCancel`). An exception in a callback has no caller to reach: it is logged as
// an error, as a browser reports it, and the run goes on. The id is a number, as in browsers (Node's `Timeout`
// object and its `unref()` do not exist here: nothing is kept alive to unref).
(function installTimers(host, _data, kit) {
	const G = globalThis;
	const { TypeError, RangeError, Number, String, Reflect, Map, Promise } = G;
	// The host's bounds (globals.ts), checked here too so the script gets the error where it called.
	const MAX_DELAY_MS = 24 * 60 * 60 * 1000;
	const MAX_PENDING = 10000;
	const apply = Reflect.apply;
	const then = Promise.prototype.then;
	const resolved = Promise.resolve();
	const mapDelete = Map.prototype.delete;
	const mapSet = Map.prototype.set;
	const pending = new Map();
	let nextId = 1;

	function report(what, error) {
		let text;
		try {
			text =
				error !== null && typeof error === "object" && "message" in error
					? `${error.name}: ${error.message}`
					: String(error);
		} catch {
			text = "a value that cannot be printed";
		}
		host.log(
			"error",
			`${what} threw ${text}; nothing catches an exception there, so the run goes on without it`,
			null,
			false,
		);
	}

	function setTimeout(callback, delay = 0, ...args) {
		if (typeof callback !== "function") {
			throw new TypeError(
				"`setTimeout()` takes a function (a string of code is not run here): write `setTimeout(() => …, ms)`",
			);
		}
		// NaN and negative delays are 0, as in browsers; a delay over a day is almost certainly a unit mistake.
		// biome-ignore lint/complexity/useMathMinMax: Math.max(NaN, 0) is NaN, and NaN must be 0.
		const ms = Number(delay) > 0 ? Number(delay) : 0;
		if (ms > MAX_DELAY_MS) {
			throw new RangeError(`\`setTimeout()\` takes a delay from 0 to ${MAX_DELAY_MS} ms, got ${ms}`);
		}
		if (pending.size >= MAX_PENDING) {
			throw new RangeError(
				`\`setTimeout()\`: ${MAX_PENDING} timers are pending already, the most a script may have; clear the ones it no longer needs (\`clearTimeout(id)\`)`,
			);
		}
		const id = nextId++;
		const timer = host.timer(id, ms);
		apply(mapSet, pending, [id, true]);
		apply(then, timer, [
			(fired) => {
				if (!apply(mapDelete, pending, [id]) || fired !== true) return;
				try {
					apply(callback, undefined, args);
				} catch (error) {
					report("A `setTimeout()` callback", error);
				}
			},
			() => apply(mapDelete, pending, [id]),
		]);
		return id;
	}

	function clearTimeout(id) {
		if (apply(mapDelete, pending, [id])) host.timerCancel(id);
	}

	function queueMicrotask(callback) {
		if (typeof callback !== "function") throw new TypeError("`queueMicrotask()` takes a function");
		apply(then, resolved, [
			() => {
				try {
					callback();
				} catch (error) {
					report("A `queueMicrotask()` callback", error);
				}
			},
		]);
	}

	kit.exports = { setTimeout, clearTimeout, queueMicrotask };
});
