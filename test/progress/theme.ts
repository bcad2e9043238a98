/**
 * A real pi `Theme` for widget tests, built from pi's own dark theme file (pi exports the class, not its loaded
 * instance), rendering truecolor escapes so width checks see real ANSI sequences.
 */
import { readFileSync } from "node:fs";
import { Theme } from "@earendil-works/pi-coding-agent";

const DARK_THEME = new URL(
	"../../node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme/dark.json",
	import.meta.url,
);

/** pi's dark theme. */
export function darkTheme(): Theme {
	const json = JSON.parse(readFileSync(DARK_THEME, "utf8")) as {
		vars?: Record<string, string>;
		colors: Record<string, string>;
	};
	const resolved: Record<string, string> = {};
	for (const [token, value] of Object.entries(json.colors)) resolved[token] = json.vars?.[value] ?? value;
	// The constructor merges both maps and splits them again by token slot, so one map with every token is enough.
	type Colors = ConstructorParameters<typeof Theme>[0];
	type Backgrounds = ConstructorParameters<typeof Theme>[1];
	return new Theme(resolved as Colors, {} as Backgrounds, "truecolor", { name: "dark", appearance: "dark" });
}
