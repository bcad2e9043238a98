/**
 * The command line of one command: its flags (each declared, so a misspelled one is an error rather than a
 * positional) and its positionals, with `--flag value`, `--flag=value` and repeated flags.
 */
import { WorkflowError } from "../errors.ts";

/** One flag a command takes. */
export interface FlagSpec {
	/** Long name without the dashes. */
	name: string;
	/** One-letter alias without the dash. */
	short?: string;
	/** True when the flag takes a value. */
	value?: boolean;
	/** True when it may be given more than once (values collect in order). */
	repeat?: boolean;
}

/** What was given. */
export interface ParsedArgs {
	positionals: string[];
	/** Flag name → its values (a boolean flag holds one empty string per use). */
	flags: Map<string, string[]>;
}

/** An error the person fixes by changing the command line: one line, exit code 2. */
export function usageError(message: string): WorkflowError {
	return new WorkflowError("cli_usage", message);
}

/** Parses `argv` (the words after the command) against `specs`; `command` names the command in messages. */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[], command: string): ParsedArgs {
	const positionals: string[] = [];
	const flags = new Map<string, string[]>();
	for (let i = 0; i < argv.length; i++) {
		const word = argv[i] ?? "";
		if (word === "--") {
			positionals.push(...argv.slice(i + 1));
			break;
		}
		if (!word.startsWith("-") || word === "-") {
			positionals.push(word);
			continue;
		}
		const eq = word.indexOf("=");
		const written = eq > 0 ? word.slice(0, eq) : word;
		const spec = word.startsWith("--")
			? specs.find((s) => s.name === written.slice(2))
			: specs.find((s) => s.short === written.slice(1));
		if (!spec) {
			throw usageError(`\`${command}\` has no option ${written}. See \`pi-workflows ${command} --help\``);
		}
		let value = "";
		if (spec.value) {
			const next = eq > 0 ? word.slice(eq + 1) : argv[++i];
			if (next === undefined) throw usageError(`${written} needs a value. See \`pi-workflows ${command} --help\``);
			value = next;
		} else if (eq > 0) {
			throw usageError(`${written} takes no value. See \`pi-workflows ${command} --help\``);
		}
		const values = flags.get(spec.name) ?? [];
		if (values.length > 0 && !spec.repeat) throw usageError(`${written} was given twice; give it once`);
		values.push(value);
		flags.set(spec.name, values);
	}
	return { positionals, flags };
}

/** The one value of flag `name`, if given. */
export function flagValue(args: ParsedArgs, name: string): string | undefined {
	return args.flags.get(name)?.[0];
}

/** A positive amount of US dollars given as `--name` (`0.5`, `12`), or undefined when the flag is absent. */
export function dollarsFlag(args: ParsedArgs, name: string): number | undefined {
	const text = flagValue(args, name);
	if (text === undefined) return undefined;
	const value = Number(text.replace(/^\$/, ""));
	if (!/^\$?\d+(\.\d+)?$/.test(text) || !(value > 0) || !Number.isFinite(value)) {
		throw usageError(`--${name} must be a positive amount of US dollars such as 0.5 or 12, got "${text}"`);
	}
	return value;
}

/** A whole number from `min` to `max` given as `--name`, or undefined when the flag is absent. */
export function integerFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
	const text = flagValue(args, name);
	if (text === undefined) return undefined;
	const value = Number(text);
	if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
		throw usageError(`--${name} must be a whole number from ${min} to ${max}, got "${text}"`);
	}
	return value;
}

/**
 * A number above `floor` given as `--name` (`1.5`, `10`), or undefined when the flag is absent; `meaning` says in
 * the message what the number does.
 */
export function numberAboveFlag(args: ParsedArgs, name: string, floor: number, meaning: string): number | undefined {
	const text = flagValue(args, name);
	if (text === undefined) return undefined;
	const value = Number(text);
	if (!/^\d+(\.\d+)?$/.test(text) || !(value > floor) || !Number.isFinite(value)) {
		throw usageError(`--${name} must be a number above ${floor} such as ${floor + 2} (${meaning}), got "${text}"`);
	}
	return value;
}
