/**
 * Scope analysis of a parsed workflow script: every binding (var/let/const, functions, classes, parameters, catch
 * bindings, destructuring) in the scope it belongs to, and every identifier read or written, resolved to its binding
 * or left unresolved (a global, or a mistake: the body is strict, so writing an undeclared name throws too). Declarations are collected over the whole tree before anything is
 * resolved, so hoisting and use-before-declaration in closures resolve as the engine resolves them.
 */
import type { Node } from "acorn";
import { type AnyNode, type Binding, type BindingKind, type LiteralLink, type Reference, Scope } from "./bindings.ts";
import { type Guard, type GuardLink, guardAfter, literalTruth } from "./guards.ts";

export {
	type AnyNode,
	type Binding,
	type BindingKind,
	type LiteralLink,
	type Reference,
	Scope,
} from "./bindings.ts";

/** A call expression and the node holding it, for the checks that look at how a result is used. */
export interface CallSite {
	node: AnyNode;
	parent: AnyNode;
	scope: Scope;
	/** The reference of the callee, when it is a plain name (`agent(…)`, `main()`). */
	callee?: Reference;
	/** The global a call (not a `new`) names, set once names are resolved: the checks dispatch on it. */
	global?: string;
}

export interface ScopeAnalysis {
	program: Scope;
	references: Reference[];
	/**
	 * The references a binding has, in source order. Made on the first question: most scripts never ask (a held
	 * promise, a function nothing calls), and an array per binding was a tenth of what the pass allocated.
	 */
	referencesOf(binding: Binding): readonly Reference[];
	/** References no binding declares: globals, or names nobody declared. */
	unresolved: Reference[];
	/** The reference of each identifier in an expression. */
	referenceOf: Map<AnyNode, Reference>;
	calls: CallSite[];
	/** Every declared name, for "did you mean". */
	declaredNames: Set<string>;
}

/** Whether a block's own statements declare a `let`, `const`, class or function: only then is it a scope. */
function declaresLexically(statements: AnyNode[]): boolean {
	for (const statement of statements) {
		const type = statement.type;
		if (type === "FunctionDeclaration" || type === "ClassDeclaration") return true;
		if (type === "VariableDeclaration" && statement.kind !== "var") return true;
	}
	return false;
}

/**
 * Analyses `program`; `params` are names the body is given (the runtime's wrapper passes `meta`). Recursive: a
 * tree deep enough to overflow throws a RangeError, which the caller treats as "nothing to report".
 */
export function analyzeScopes(program: Node, params: readonly string[] = []): ScopeAnalysis {
	const walker = new Walker();
	const top = new Scope(undefined, true);
	for (const name of params) top.declare(name, "param", program as AnyNode);
	walker.statements((program as AnyNode).body, program as AnyNode, top);
	return walker.resolve(top);
}

/** `ScopeAnalysis.referencesOf`: every binding's references, gathered in one pass when first asked. */
function referencesByBinding(references: readonly Reference[]): (binding: Binding) => readonly Reference[] {
	let byBinding: Map<Binding, Reference[]> | undefined;
	return (binding) => {
		if (!byBinding) {
			byBinding = new Map();
			for (const reference of references) {
				if (!reference.binding) continue;
				const list = byBinding.get(reference.binding);
				if (list) list.push(reference);
				else byBinding.set(reference.binding, [reference]);
			}
		}
		return byBinding.get(binding) ?? [];
	};
}

/** Nodes that hold no names to bind or read. */
const NO_NAMES = new Set([
	"ThisExpression",
	"Super",
	"EmptyStatement",
	"DebuggerStatement",
	"MetaProperty",
	"PrivateIdentifier",
	"BreakStatement",
	"ContinueStatement",
	"TemplateElement",
	// Refused before the body runs.
	"ImportDeclaration",
	"ExportAllDeclaration",
]);

/** A function's body, a field initializer, a static block: code that runs on its own, where no `try` reaches. */
const LATER: Guard = { kind: "function" };

class Walker {
	readonly references: Reference[] = [];
	readonly calls: CallSite[] = [];
	readonly declaredNames = new Set<string>();
	/** The guards around the node being walked. */
	guard: GuardLink | undefined;
	/**
	 * The literals around the node being walked. A link per literal, not a map of every literal and property to its
	 * holder: most scripts hold no promise in a literal, and a map keyed by nodes was a fifth of the walk's time.
	 */
	literal: LiteralLink | undefined;

	/** Walks what `walk` walks with `guard` around it (`function`: code that runs later, which no `try` guards). */
	within(guard: Guard, walk: () => void): void {
		const outer = this.guard;
		this.guard = { guard, outer };
		try {
			walk();
		} finally {
			this.guard = outer;
		}
	}

	/** A branch taken when `test` is `truth`: never, when the test is a literal that says otherwise. */
	branch(test: AnyNode, truth: boolean, node: AnyNode | null | undefined, parent: AnyNode, scope: Scope): void {
		const dead = literalTruth(test) === !truth;
		const guard: Guard = dead ? { kind: "dead", node: test, why: "literal" } : { kind: "when", test, truth };
		this.within(guard, () => this.node(node, parent, scope));
	}

	resolve(top: Scope): ScopeAnalysis {
		const unresolved: Reference[] = [];
		const referenceOf = new Map<AnyNode, Reference>();
		for (const reference of this.references) {
			referenceOf.set(reference.node, reference);
			const binding = reference.scope.lookup(reference.node.name);
			if (binding) reference.binding = binding;
			else unresolved.push(reference);
		}
		for (const site of this.calls) {
			if (site.callee && !site.callee.binding && site.node.type === "CallExpression")
				site.global = site.callee.node.name;
		}
		return {
			program: top,
			references: this.references,
			referencesOf: referencesByBinding(this.references),
			unresolved,
			referenceOf,
			calls: this.calls,
			declaredNames: this.declaredNames,
		};
	}

	statements(list: AnyNode[], parent: AnyNode, scope: Scope): void {
		const outer = this.guard;
		for (const statement of list) {
			// A function declared after a `return` is hoisted and may be called from before it: it is not guarded.
			const guard = this.guard;
			if (statement.type === "FunctionDeclaration") this.guard = outer;
			this.node(statement, parent, scope);
			this.guard = guard;
			const after = guardAfter(statement);
			if (after) this.guard = { guard: after, outer: this.guard };
		}
		this.guard = outer;
	}

	declare(scope: Scope, name: string, kind: BindingKind, node: AnyNode, init?: AnyNode): void {
		this.declaredNames.add(name);
		scope.declare(name, kind, node, init);
	}

	reference(node: AnyNode, parent: AnyNode, scope: Scope, write = false): Reference {
		const typeofOperand = parent.type === "UnaryExpression" && parent.operator === "typeof";
		// Every field written here, resolution's `binding` too: one shape, all in the object, for the ~16,000
		// references of a 500 KB script (fields added later moved to a second allocation per reference).
		const reference: Reference = {
			node,
			parent,
			scope,
			write,
			typeofOperand,
			binding: undefined,
			guard: this.guard,
			literals: this.literal,
		};
		this.references.push(reference);
		return reference;
	}

	/** Binds the names of a declaration pattern; default values and computed keys are expressions in `scope`. */
	pattern(node: AnyNode, parent: AnyNode, scope: Scope, target: Scope, kind: BindingKind, init?: AnyNode): void {
		switch (node.type) {
			case "Identifier":
				this.declare(target, node.name, kind, node, init);
				return;
			case "ObjectPattern":
				for (const property of node.properties) {
					if (property.type === "RestElement") this.pattern(property.argument, property, scope, target, kind);
					else {
						if (property.computed) this.node(property.key, property, scope);
						this.pattern(property.value, property, scope, target, kind);
					}
				}
				return;
			case "ArrayPattern":
				for (const element of node.elements) if (element) this.pattern(element, node, scope, target, kind);
				return;
			case "RestElement":
				this.pattern(node.argument, node, scope, target, kind);
				return;
			case "AssignmentPattern":
				this.pattern(node.left, node, scope, target, kind);
				this.node(node.right, node, scope);
				return;
			default:
				// Only reachable through invalid code acorn refused already; read it as an expression.
				this.node(node, parent, scope);
		}
	}

	/** An assignment target: identifiers in it are written, member expressions are read. */
	target(node: AnyNode, parent: AnyNode, scope: Scope): void {
		switch (node.type) {
			case "Identifier":
				this.reference(node, parent, scope, true);
				return;
			case "ObjectPattern":
				for (const property of node.properties) {
					if (property.type === "RestElement") this.target(property.argument, property, scope);
					else {
						if (property.computed) this.node(property.key, property, scope);
						this.target(property.value, property, scope);
					}
				}
				return;
			case "ArrayPattern":
				for (const element of node.elements) if (element) this.target(element, node, scope);
				return;
			case "RestElement":
				this.target(node.argument, node, scope);
				return;
			case "AssignmentPattern":
				this.target(node.left, node, scope);
				this.node(node.right, node, scope);
				return;
			default:
				this.node(node, parent, scope);
		}
	}

	function(node: AnyNode, scope: Scope): void {
		// Strict code: a function declared in a block is bound in that block only.
		if (node.type === "FunctionDeclaration" && node.id) this.declare(scope, node.id.name, "function", node.id, node);
		this.within(LATER, () => this.functionBody(node, scope));
	}

	functionBody(node: AnyNode, scope: Scope): void {
		const inner = new Scope(scope, true);
		if (node.type === "FunctionExpression" && node.id) this.declare(inner, node.id.name, "function", node.id);
		if (node.type !== "ArrowFunctionExpression") inner.declare("arguments", "param", node);
		for (const param of node.params) this.pattern(param, node, inner, inner, "param");
		if (node.body.type === "BlockStatement") this.statements(node.body.body, node.body, inner);
		else this.node(node.body, node, inner);
	}

	class(node: AnyNode, scope: Scope): void {
		if (node.type === "ClassDeclaration" && node.id) this.declare(scope, node.id.name, "class", node.id);
		const inner = new Scope(scope, false);
		if (node.id) this.declare(inner, node.id.name, "class", node.id);
		if (node.superClass) this.node(node.superClass, node, scope);
		for (const member of node.body.body) {
			if (member.type === "StaticBlock") {
				this.within(LATER, () => this.statements(member.body, member, new Scope(inner, true)));
				continue;
			}
			if (member.computed) this.node(member.key, member, inner);
			// Field initializers run like methods: `this` and `arguments` of their own, when an instance is made.
			if (member.value && member.type === "PropertyDefinition") {
				this.within(LATER, () => this.node(member.value, member, new Scope(inner, true)));
			} else if (member.value) this.node(member.value, member, inner);
		}
	}

	node(node: AnyNode | null | undefined, parent: AnyNode, scope: Scope): void {
		if (!node) return;
		// The commonest nodes first: a switch on strings compares case by case.
		const type: string = node.type;
		if (type === "Identifier") {
			this.reference(node, parent, scope);
			return;
		}
		if (type === "Literal") return;
		if (type === "MemberExpression") {
			this.node(node.object, node, scope);
			if (node.computed) this.node(node.property, node, scope);
			return;
		}
		if (NO_NAMES.has(type)) return;
		if (this.expression(node, parent, scope) || this.statement(node, scope) || this.binder(node, scope)) return;
		this.generic(node, scope);
	}

	/** An expression other than the three `node` takes first; false when `node` is not one. */
	expression(node: AnyNode, parent: AnyNode, scope: Scope): boolean {
		switch (node.type) {
			case "SpreadElement":
			case "YieldExpression":
			case "AwaitExpression":
			case "UnaryExpression":
				this.node(node.argument, node, scope);
				return true;
			case "UpdateExpression":
				this.target(node.argument, node, scope);
				return true;
			case "ConditionalExpression":
				this.conditional(node, scope);
				return true;
			case "ArrayExpression": {
				const outer = this.literal;
				this.literal = { literal: node, holder: parent, outer };
				for (const element of node.elements) this.node(element, node, scope);
				this.literal = outer;
				return true;
			}
			case "ObjectExpression": {
				const outer = this.literal;
				this.literal = { literal: node, holder: parent, outer };
				for (const property of node.properties) {
					if (property.type === "SpreadElement") {
						this.node(property, node, scope);
						continue;
					}
					if (property.computed) this.node(property.key, property, scope);
					// A shorthand `{ x }` reads `x` through its value; a key is never a reference.
					this.node(property.value, property, scope);
				}
				this.literal = outer;
				return true;
			}
			case "BinaryExpression":
				this.node(node.left, node, scope);
				this.node(node.right, node, scope);
				return true;
			case "LogicalExpression":
				this.node(node.left, node, scope);
				// `a && b` reads b only when a is true, `a || b` only when it is false.
				if (node.operator === "??") this.node(node.right, node, scope);
				else this.branch(node.left, node.operator === "&&", node.right, node, scope);
				return true;
			case "AssignmentExpression":
				this.target(node.left, node, scope);
				this.node(node.right, node, scope);
				return true;
			case "ChainExpression":
			case "ParenthesizedExpression":
				this.node(node.expression, node, scope);
				return true;
			case "CallExpression":
			case "NewExpression":
				// A direct `eval` cannot declare names here: the body is strict, so its code gets a scope of its own.
				if (node.callee.type === "Identifier") {
					const callee = this.reference(node.callee, node, scope);
					this.calls.push({ node, parent, scope, callee, global: undefined });
				} else {
					this.calls.push({ node, parent, scope, callee: undefined, global: undefined });
					this.node(node.callee, node, scope);
				}
				for (const argument of node.arguments) this.node(argument, node, scope);
				return true;
			case "SequenceExpression":
			case "TemplateLiteral":
				for (const expression of node.expressions) this.node(expression, node, scope);
				return true;
			case "TaggedTemplateExpression":
				this.node(node.tag, node, scope);
				this.node(node.quasi, node, scope);
				return true;
			case "ImportExpression":
				this.node(node.source, node, scope);
				this.node(node.options, node, scope);
				return true;
			default:
				return false;
		}
	}

	/** A statement that declares nothing itself (blocks, loops, `switch` and `catch` make scopes); false when not one. */
	statement(node: AnyNode, scope: Scope): boolean {
		switch (node.type) {
			case "ExpressionStatement":
				this.node(node.expression, node, scope);
				return true;
			case "BlockStatement":
				this.statements(node.body, node, declaresLexically(node.body) ? new Scope(scope, false) : scope);
				return true;
			case "ReturnStatement":
			case "ThrowStatement":
				this.node(node.argument, node, scope);
				return true;
			case "LabeledStatement":
				this.node(node.body, node, scope);
				return true;
			case "IfStatement":
				this.conditional(node, scope);
				return true;
			case "SwitchStatement": {
				this.node(node.discriminant, node, scope);
				const inner = new Scope(scope, false);
				for (const item of node.cases) {
					this.node(item.test, item, inner);
					this.statements(item.consequent, item, inner);
				}
				return true;
			}
			case "TryStatement":
				this.try(node, scope);
				return true;
			case "WhileStatement":
			case "DoWhileStatement":
				this.node(node.test, node, scope);
				this.node(node.body, node, scope);
				return true;
			case "ForStatement": {
				const inner = node.init?.type === "VariableDeclaration" ? new Scope(scope, false) : scope;
				this.node(node.init, node, inner);
				this.node(node.test, node, inner);
				this.node(node.update, node, inner);
				this.node(node.body, node, inner);
				return true;
			}
			case "ForInStatement":
			case "ForOfStatement": {
				const inner = new Scope(scope, false);
				if (node.left.type === "VariableDeclaration") this.node(node.left, node, inner);
				else this.target(node.left, node, inner);
				this.node(node.right, node, inner);
				this.node(node.body, node, inner);
				return true;
			}
			case "WithStatement":
				// Refused by the parse (strict code); read for completeness.
				this.node(node.object, node, scope);
				this.node(node.body, node, scope);
				return true;
			default:
				return false;
		}
	}

	/** What binds names: variables, functions, classes, and the exports around them; false when `node` is not one. */
	binder(node: AnyNode, scope: Scope): boolean {
		switch (node.type) {
			case "VariableDeclaration": {
				const target = node.kind === "var" ? scope.functionScope : scope;
				for (const declarator of node.declarations) {
					const init = node.kind === "const" && declarator.id.type === "Identifier" ? declarator.init : undefined;
					this.pattern(declarator.id, declarator, scope, target, node.kind, init ?? undefined);
					this.node(declarator.init, declarator, scope);
				}
				return true;
			}
			case "FunctionDeclaration":
			case "FunctionExpression":
			case "ArrowFunctionExpression":
				this.function(node, scope);
				return true;
			case "ClassDeclaration":
			case "ClassExpression":
				this.class(node, scope);
				return true;
			case "ExportNamedDeclaration":
				// The header (`export const meta = {…}`) is checked by the header reader and blanked from the body: its
				// names are bound, its literal is not read here. Other exports are refused before the body runs.
				if (node.declaration?.type === "VariableDeclaration") {
					for (const declarator of node.declaration.declarations) {
						this.pattern(declarator.id, declarator, scope, scope, node.declaration.kind);
					}
				} else this.node(node.declaration, node, scope);
				return true;
			case "ExportDefaultDeclaration":
				this.node(node.declaration, node, scope);
				return true;
			default:
				return false;
		}
	}

	/** `if` and `?:`: the test is read, and each branch under the guard of the test's outcome. */
	conditional(node: AnyNode, scope: Scope): void {
		this.node(node.test, node, scope);
		this.branch(node.test, true, node.consequent, node, scope);
		this.branch(node.test, false, node.alternate, node, scope);
	}

	/** The block runs guarded by the `catch` (when there is one), whose parameter binds in a scope of its own. */
	try(node: AnyNode, scope: Scope): void {
		if (node.handler) this.within({ kind: "try", node }, () => this.node(node.block, node, scope));
		else this.node(node.block, node, scope);
		if (node.handler) {
			const inner = new Scope(scope, false);
			if (node.handler.param) this.pattern(node.handler.param, node.handler, inner, inner, "catch");
			this.node(node.handler.body, node.handler, inner);
		}
		this.node(node.finalizer, node, scope);
	}

	/** A node type this walker does not name (from a newer acorn): read every child as an expression. */
	generic(node: AnyNode, scope: Scope): void {
		for (const key of Object.keys(node)) {
			if (key === "loc" || key === "type" || key === "start" || key === "end") continue;
			const value = node[key];
			if (Array.isArray(value)) {
				for (const item of value) if (item && typeof item.type === "string") this.node(item, node, scope);
			} else if (value && typeof value.type === "string") this.node(value, node, scope);
		}
	}
}
