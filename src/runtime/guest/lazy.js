// biome-ignore-all lint/suspicious/noShadowRestrictedNames: built-ins are captured under their own names, before a script can replace them.
// Globals whose guest code is evaluated on first use, inside QuickJS (never in Node): `URL` and the other web
// globals are tens of kilobytes a run would otherwise receive and compile before every script, which most never
// read. `kit.lazy` lists each module's names; `host.guestModule(index)` gives its text, a function expression of
// `(host, data, kit)` that puts its globals in `kit.exports`. Reading any of `names` (or `typeof` of one) evaluates it once and turns every name
// still untouched into a plain writable global; assigning one first replaces it as a script's own global would.
// A module runs after the script started, so it takes the built-ins as the script left them: these globals are
// pure guest code with no host functions, so a script that changed a built-in changes only its own results.
(function installLazy(host, data, kit) {
	const G = globalThis;
	const { Object, Reflect } = G;
	const indirectEval = G.eval;
	const defineProperty = Object.defineProperty;
	const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
	const apply = Reflect.apply;

	function plain(name, value) {
		defineProperty(G, name, { value, writable: true, enumerable: false, configurable: true });
	}

	for (let index = 0; index < kit.lazy.length; index++) {
		const names = kit.lazy[index];
		const getters = [];
		let loaded = false;
		const load = () => {
			if (loaded) return;
			loaded = true;
			apply(indirectEval(host.guestModule(index)), undefined, [host, data, kit]);
			const exports = kit.exports;
			kit.exports = undefined;
			for (let i = 0; i < names.length; i++) {
				const name = names[i];
				// A name the script assigned (or deleted) meanwhile is the script's.
				if (getOwnPropertyDescriptor(G, name)?.get === getters[i]) plain(name, exports[name]);
			}
		};
		for (const name of names) {
			const get = () => {
				load();
				const now = getOwnPropertyDescriptor(G, name);
				return now && "value" in now ? now.value : undefined;
			};
			getters.push(get);
			defineProperty(G, name, {
				get,
				set: (value) => plain(name, value),
				enumerable: false,
				configurable: true,
			});
		}
	}
});
