/**
 * Host-side check that a value is plain JSON data before it is handed to the sandbox (`args`, nested args, a runner's
 * structured output, a journal's answer), naming the path of the first bad value (`args.items[3].fn`). The rule is the
 * sandbox's own (`checkJsonData`); this only makes a bad value the workflow's coded error.
 */
import { valueNotJsonError } from "../errors.ts";
import { checkJsonData } from "../sandbox/index.ts";
import type { JsonValue } from "./types.ts";

/**
 * Throws `value_not_json` with the path of the first value that is not JSON data; returns a copy of it as plain data,
 * so no Proxy trap, getter or later change by whoever handed it over can make it differ from what was checked.
 */
export function assertJsonValue(value: unknown, path: string): JsonValue {
	const checked = checkJsonData(value, path, true);
	if (!checked.ok) throw valueNotJsonError(checked.path, checked.found);
	return checked.value;
}
