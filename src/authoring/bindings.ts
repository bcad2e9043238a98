/** A script's scopes, their bindings and the identifiers that refer to them, as scope.ts builds them. */
import type { Node } from "acorn";
import type { GuardLink } from "./guards.ts";

/** acorn's nodes, read by field name; the walker checks `type` before reading a field. */
// biome-ignore lint/suspicious/noExplicitAny: ESTree nodes are read by field after a `type` check.
export type AnyNode = Node & Record<string, any>;

/** What declared a binding. */
export type BindingKind = "var" | "let" | "const" | "function" | "class" | "param" | "catch";

export interface Binding {
	name: string;
	kind: BindingKind;
	/** The declaring identifier. */
	node: AnyNode;
	/** A `const` declarator's initializer, when the binding is the declarator's whole target; a function declaration's function. */
	init?: AnyNode;
}

/** An identifier in an expression: read, written, or the operand of `typeof`. */
export interface Reference {
	node: AnyNode;
	/** The node holding it (a member access, a call, a template…). */
	parent: AnyNode;
	scope: Scope;
	/** Written (`x = …`, `x++`, `for (x of …)`): the body runs in strict mode, so an undeclared one throws too. */
	write: boolean;
	/** `typeof x`: reading an undeclared name this way is legal. */
	typeofOperand: boolean;
	/** Set by resolution; undefined for a global (or undeclared) name. */
	binding?: Binding;
	/** The innermost construct around it that may keep an undeclared name from throwing (see `Guard`). */
	guard?: GuardLink;
	/** The innermost array or object literal it stands in (at any depth), and those around it. */
	literals?: LiteralLink;
}

/**
 * An array or object literal and the node holding it, with the literals around it, innermost first: shared by
 * every reference inside, so a held promise can be followed outwards to where its literal goes (unawaited.ts).
 */
export interface LiteralLink {
	literal: AnyNode;
	holder: AnyNode;
	outer: LiteralLink | undefined;
}

export class Scope {
	/** Made on the first declaration: most block scopes declare nothing. */
	#bindings: Map<string, Binding> | undefined;
	readonly parent: Scope | undefined;
	/** A function's (or the program's) scope: where `var` declarations land. */
	readonly isFunction: boolean;
	constructor(parent: Scope | undefined, isFunction: boolean) {
		this.parent = parent;
		this.isFunction = isFunction;
	}

	declare(name: string, kind: BindingKind, node: AnyNode, init?: AnyNode): void {
		this.#bindings ??= new Map();
		if (this.#bindings.has(name)) return;
		const binding: Binding = { name, kind, node, init };
		this.#bindings.set(name, binding);
	}

	/** The binding `name` has in this scope itself. */
	own(name: string): Binding | undefined {
		return this.#bindings?.get(name);
	}

	/** The nearest enclosing function (or program) scope. */
	get functionScope(): Scope {
		let scope: Scope = this;
		while (!scope.isFunction && scope.parent) scope = scope.parent;
		return scope;
	}

	/** The binding `name` has here, looking outwards. */
	lookup(name: string): Binding | undefined {
		for (let scope: Scope | undefined = this; scope; scope = scope.parent) {
			const binding = scope.#bindings?.get(name);
			if (binding) return binding;
		}
		return undefined;
	}
}
