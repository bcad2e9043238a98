/**
 * ajv, ajv-formats and re2js, loaded on first use: together they are most of what importing the runtime costs
 * (about 60 ms of a cold import), and a run needs them only when it checks a header or a schema. All three ship
 * CommonJS, so `require` loads them synchronously where the callers need them, from the same files an `import`
 * would.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

let ajv: typeof import("ajv") | undefined;
let ajv2020: typeof import("ajv/dist/2020.js") | undefined;
let formats: typeof import("ajv-formats") | undefined;
let formatList: typeof import("ajv-formats/dist/formats.js") | undefined;
let re2: typeof import("re2js") | undefined;

/** `ajv`'s `Ajv` class. */
export function loadAjv(): typeof import("ajv").Ajv {
	ajv ??= require("ajv") as typeof import("ajv");
	return ajv.Ajv;
}

/** `ajv/dist/2020`'s `Ajv2020` class. */
export function loadAjv2020(): typeof import("ajv/dist/2020.js").Ajv2020 {
	ajv2020 ??= require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
	return ajv2020.Ajv2020;
}

/** ajv-formats' plugin and its full format list. */
export function loadAjvFormats(): {
	addFormats: typeof import("ajv-formats")["default"];
	fullFormats: typeof import("ajv-formats/dist/formats.js")["fullFormats"];
} {
	// CommonJS under NodeNext: `module.exports` is the plugin, with the plugin again as `default`.
	formats ??= require("ajv-formats") as typeof import("ajv-formats");
	formatList ??= require("ajv-formats/dist/formats.js") as typeof import("ajv-formats/dist/formats.js");
	return { addFormats: formats.default, fullFormats: formatList.fullFormats };
}

/** re2js's `RE2JS`. */
export function loadRe2(): typeof import("re2js").RE2JS {
	re2 ??= require("re2js") as typeof import("re2js");
	return re2.RE2JS;
}
