/**
 * pi's dialogs and notices with the text they show made visible (`visibleText`): run names, labels, questions,
 * choices and failures come from scripts and their children, and pi draws what it is given on the terminal.
 */
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { visibleText } from "../../progress/visible-text.ts";

type Dialogs = Pick<ExtensionUIContext, "notify" | "select" | "input" | "confirm">;

/** `ctx` whose `ui` shows its text visible; everything else of `ctx` is `ctx`'s own. */
export function withVisibleUi<C extends { ui: ExtensionUIContext }>(ctx: C): C {
	const ui = visibleUi(ctx.ui);
	return new Proxy(ctx, { get: (target, key) => (key === "ui" ? ui : own(target, key)) });
}

/** `ui` whose notices and dialogs show their text visible; a select still answers with the option it was given. */
export function visibleUi(ui: ExtensionUIContext): ExtensionUIContext {
	const dialogs: Dialogs = {
		notify: (message, type) => ui.notify(visibleText(message), type),
		select: async (title, options, opts) => {
			const shown = options.map(visibleText);
			const picked = await ui.select(visibleText(title), shown, opts);
			return picked === undefined ? undefined : options[shown.indexOf(picked)];
		},
		input: (title, placeholder, opts) =>
			ui.input(visibleText(title), placeholder === undefined ? undefined : visibleText(placeholder), opts),
		confirm: (title, message, opts) => ui.confirm(visibleText(title), visibleText(message), opts),
	};
	return new Proxy(ui, {
		get: (target, key) => (Object.hasOwn(dialogs, key) ? dialogs[key as keyof Dialogs] : own(target, key)),
	});
}

/** `target[key]`, a method bound to `target` (so a class's private fields still answer). */
function own(target: object, key: string | symbol): unknown {
	const value = Reflect.get(target, key, target);
	return typeof value === "function" ? value.bind(target) : value;
}
