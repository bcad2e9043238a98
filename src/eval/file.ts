/**
 * Reading an eval file (`<name>.eval.json`) and its cases (inline, or a JSONL file beside it): every field checked,
 * defaults filled in, and each mistake an `eval_file_invalid` error naming the file, the line where there is one,
 * the field, and what to write instead.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { errorMessage, WorkflowError } from "../errors.ts";
import type { JsonValue } from "../runtime/core/types.ts";
import {
	DEFAULT_EVAL_CONCURRENCY,
	DEFAULT_TRIALS,
	type EvalArm,
	type EvalCase,
	type EvalSpec,
	MAX_EVAL_TRIALS,
} from "./spec.ts";

const TOP_KEYS = ["name", "cases", "arms", "baseline", "trials", "grader", "pairwise", "maxCostUsd", "concurrency"];
const ARM_KEYS = ["workflow", "rev", "model", "modelTiers", "concurrency", "args"];
const CASE_KEYS = ["id", "args", "expect", "cluster"];

/** `where` is `file` or `file:line`; the message says what is wrong, then what to do. */
export function evalFileError(where: string, message: string): WorkflowError {
	return new WorkflowError("eval_file_invalid", `${where}: ${message}`, { details: { file: where } });
}

/**
 * The eval file `target` names: a path (it ends in `.json` or has a `/`), or a saved workflow's name, whose eval is
 * saved beside it: `.pi/workflows/<name>.eval.json`, then `<agentDir>/workflows/<name>.eval.json`.
 */
export function findEvalFile(target: string, places: { cwd: string; agentDir: string }): string {
	if (target.endsWith(".json") || target.includes("/") || target.includes("\\")) return resolve(places.cwd, target);
	const candidates = [
		join(places.cwd, ".pi", "workflows", `${target}.eval.json`),
		join(places.agentDir, "workflows", `${target}.eval.json`),
	];
	const found = candidates.find((path) => existsSync(path));
	if (found === undefined) {
		throw evalFileError(
			target,
			`no eval saved for the workflow "${target}" (looked for ${candidates.join(" and ")}). Save it beside the workflow as ${target}.eval.json, or give the eval file's path`,
		);
	}
	return found;
}

/** Reads and checks the eval file at `path` (relative to `cwd`). */
export function readEvalFile(path: string, cwd: string): EvalSpec {
	const file = resolve(cwd, path);
	const text = readText(file, "the eval file", "Give the path of an existing <name>.eval.json");
	const value = parseJson(text, file);
	return checkEvalSpec(value, file);
}

/** Checks an eval file's parsed JSON; `file` is where it came from (its folder anchors relative paths). */
export function checkEvalSpec(value: unknown, file: string): EvalSpec {
	const top = objectAt(value, file, "the eval file", '{ "cases": [...], "arms": {...} }');
	unknownKeys(top, TOP_KEYS, file, "");
	const arms = readArms(top.arms, file);
	const names = Object.keys(arms);
	const baseline = top.baseline === undefined ? names[0] : top.baseline;
	if (typeof baseline !== "string" || !Object.hasOwn(arms, baseline)) {
		throw evalFileError(file, `"baseline" must name one of the arms (${names.join(", ")}), got ${shown(baseline)}`);
	}
	const trials = wholeNumber(top.trials, file, "trials", 1, 1000) ?? DEFAULT_TRIALS;
	const cases = readCases(top.cases, file);
	if (cases.length * names.length * trials > MAX_EVAL_TRIALS) {
		throw evalFileError(
			file,
			`${cases.length} cases × ${names.length} arms × ${trials} trials is over ${MAX_EVAL_TRIALS} runs. Use fewer cases or trials`,
		);
	}
	const grader = optionalText(top.grader, file, "grader", '"grade.js"');
	const pairwise = checkPairwise(top.pairwise, grader, names, file);
	const maxCostUsd = top.maxCostUsd;
	if (maxCostUsd !== undefined && !(typeof maxCostUsd === "number" && maxCostUsd > 0 && Number.isFinite(maxCostUsd))) {
		throw evalFileError(
			file,
			`"maxCostUsd" must be a positive number of US dollars such as 10, got ${shown(maxCostUsd)}`,
		);
	}
	const name = optionalText(top.name, file, "name", '"review-ab"') ?? basename(file).replace(/(\.eval)?\.json$/, "");
	return {
		name,
		file,
		cases,
		arms,
		baseline,
		trials,
		...(grader !== undefined ? { grader } : {}),
		...(pairwise ? { pairwise } : {}),
		...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
		concurrency: wholeNumber(top.concurrency, file, "concurrency", 1, 64) ?? DEFAULT_EVAL_CONCURRENCY,
	};
}

/** `pairwise`: a boolean, and true only with a grader and exactly two arms to compare. */
function checkPairwise(value: unknown, grader: string | undefined, arms: string[], file: string): true | undefined {
	if (value === undefined || value === false) return undefined;
	if (value !== true) throw evalFileError(file, `"pairwise" must be true or false, got ${shown(value)}`);
	if (grader === undefined) {
		throw evalFileError(file, '"pairwise" needs a "grader" to compare the two outputs: add "grader": "judge.js"');
	}
	if (arms.length !== 2) {
		throw evalFileError(
			file,
			`"pairwise" compares two arms, and this file has ${arms.length} (${arms.join(", ")}). Keep two`,
		);
	}
	return true;
}

function readArms(value: unknown, file: string): Record<string, EvalArm> {
	const arms = objectAt(value, file, '"arms"', '{ "A": { "workflow": "review.js" }, "B": { ... } }');
	const names = Object.keys(arms);
	if (names.length === 0) {
		throw evalFileError(file, '"arms" is empty. Name at least one arm: { "A": { "workflow": "review.js" } }');
	}
	const checked: Record<string, EvalArm> = {};
	for (const name of names) {
		if (!/^[A-Za-z0-9._-]{1,40}$/.test(name)) {
			throw evalFileError(
				file,
				`arm name ${shown(name)} must be 1 to 40 letters, digits, ".", "_" or "-" (it is used in --arms and file names)`,
			);
		}
		const field = `arms.${name}`;
		const arm = objectAt(arms[name], file, `"${field}"`, '{ "workflow": "review.js" }');
		unknownKeys(arm, ARM_KEYS, file, `${field}.`);
		const workflow = optionalText(arm.workflow, file, `${field}.workflow`, '"review.js" or a saved workflow\'s name');
		if (workflow === undefined) {
			throw evalFileError(
				file,
				`"${field}" has no "workflow". Add "workflow": "review.js" (a path or a saved name)`,
			);
		}
		const rev = optionalText(arm.rev, file, `${field}.rev`, '"HEAD" or "main"');
		const model = optionalText(arm.model, file, `${field}.model`, '"provider/id"');
		const modelTiers = optionalText(
			arm.modelTiers,
			file,
			`${field}.modelTiers`,
			'"small=provider/id,big=provider/id"',
		);
		const concurrency = wholeNumber(arm.concurrency, file, `${field}.concurrency`, 1, 64);
		checked[name] = {
			workflow,
			...(rev !== undefined ? { rev } : {}),
			...(model !== undefined ? { model } : {}),
			...(modelTiers !== undefined ? { modelTiers } : {}),
			...(concurrency !== undefined ? { concurrency } : {}),
			...(arm.args !== undefined ? { args: arm.args as JsonValue } : {}),
		};
	}
	return checked;
}

/** Inline cases, or the path of a JSONL file (one case a line) relative to the eval file. */
function readCases(value: unknown, file: string): EvalCase[] {
	if (typeof value === "string") {
		const casesFile = resolve(dirname(file), value);
		const text = readText(casesFile, "the cases file", `Fix "cases" in ${file}, or create the file`);
		const cases: EvalCase[] = [];
		const ids = new Set<string>();
		text.split("\n").forEach((line, index) => {
			if (line.trim() === "") return;
			const where = `${casesFile}:${index + 1}`;
			let parsed: unknown;
			try {
				parsed = JSON.parse(line);
			} catch (error) {
				throw evalFileError(
					where,
					`not JSON (${errorMessage(error)}). Write one case a line: {"id":"c1","args":{...}}`,
				);
			}
			cases.push(checkCase(parsed, where, "the case", ids));
		});
		return nonEmpty(cases, file);
	}
	if (!Array.isArray(value)) {
		throw evalFileError(
			file,
			`"cases" must be an array of cases or the path of a JSONL file, got ${shown(value)}. Write "cases": "cases.jsonl" or "cases": [{ "id": "c1", "args": {...} }]`,
		);
	}
	const ids = new Set<string>();
	return nonEmpty(
		value.map((item, index) => checkCase(item, file, `cases[${index}]`, ids)),
		file,
	);
}

function checkCase(value: unknown, where: string, field: string, ids: Set<string>): EvalCase {
	const item = objectAt(value, where, field, '{ "id": "c1", "args": {...} }');
	unknownKeys(item, CASE_KEYS, where, `${field === "the case" ? "" : `${field}.`}`);
	const id = typeof item.id === "number" ? String(item.id) : item.id;
	if (typeof id !== "string" || id === "" || id.includes(",")) {
		throw evalFileError(where, `${field} needs an "id": a non-empty string without commas, got ${shown(item.id)}`);
	}
	if (ids.has(id)) throw evalFileError(where, `case id "${id}" is used twice. Give each case its own id`);
	ids.add(id);
	const cluster = item.cluster === undefined ? undefined : String(item.cluster);
	return {
		id,
		...(item.args !== undefined ? { args: item.args as JsonValue } : {}),
		...(item.expect !== undefined ? { expect: item.expect as JsonValue } : {}),
		...(cluster !== undefined ? { cluster } : {}),
	};
}

function nonEmpty(cases: EvalCase[], file: string): EvalCase[] {
	if (cases.length === 0) throw evalFileError(file, "there are no cases. Add at least one case to run the arms on");
	return cases;
}

function readText(path: string, what: string, fix: string): string {
	try {
		return readFileSync(path, "utf8");
	} catch (error) {
		throw evalFileError(path, `cannot read ${what} (${errorMessage(error)}). ${fix}`);
	}
}

/** JSON, or an error at the line (and column) where the parser stopped. */
function parseJson(text: string, file: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		const message = errorMessage(error);
		const position = /position (\d+)/.exec(message)?.[1];
		const where = position === undefined ? file : `${file}:${lineColumn(text, Number(position))}`;
		const why = message.replace(/ in JSON at position \d+.*$/, "");
		throw evalFileError(where, `not valid JSON (${why}). Fix the file there`);
	}
}

function lineColumn(text: string, offset: number): string {
	const before = text.slice(0, offset).split("\n");
	return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

function objectAt(value: unknown, where: string, field: string, example: string): Record<string, unknown> {
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		throw evalFileError(where, `${field} must be an object such as ${example}, got ${shown(value)}`);
	}
	return value as Record<string, unknown>;
}

function unknownKeys(value: Record<string, unknown>, known: readonly string[], where: string, prefix: string): void {
	const unknown = Object.keys(value).find((key) => !known.includes(key));
	if (unknown !== undefined) {
		throw evalFileError(
			where,
			`unknown field "${prefix}${unknown}". The fields here are ${known.map((key) => `"${key}"`).join(", ")}`,
		);
	}
}

function optionalText(value: unknown, where: string, field: string, example: string): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "string" || value.trim() === "") {
		throw evalFileError(where, `"${field}" must be a non-empty string such as ${example}, got ${shown(value)}`);
	}
	return value;
}

function wholeNumber(value: unknown, where: string, field: string, min: number, max: number): number | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
		throw evalFileError(where, `"${field}" must be a whole number from ${min} to ${max}, got ${shown(value)}`);
	}
	return value;
}

function shown(value: unknown): string {
	return value === undefined ? "nothing" : JSON.stringify(value).slice(0, 60);
}
