/** Shared table helpers for the meta tests: the minimal header each case varies, and the row assertion. */
import { expect } from "vitest";
import { isWorkflowError, type WorkflowError, type WorkflowErrorCode } from "../../../src/errors.ts";
import { parseWorkflowSource } from "../../../src/runtime/meta/read.ts";

/** The shared minimal header; each case adds one line (line 4, starting at column 2 after a tab). */
export function withLine(line: string): string {
	return `export const meta = {\n\tname: "t",\n\tdescription: "d",\n\t${line}\n};\nreturn 1;\n`;
}

/** A valid header followed by one line of body (line 2). */
export function withBody(line: string): string {
	return `export const meta = { name: "t", description: "d" };\n${line}\n`;
}

/** One row of a rejection table; `message` is the full message, position included. */
export type Rejection = [source: string, code: WorkflowErrorCode, message: string, line: number, column: number];

/** Names each row by what it expects, so a failing row is easy to find. */
export function named(rows: Rejection[]): { name: string; row: Rejection }[] {
	return rows.map((row) => ({ name: `${row[1]}: ${row[2]}`, row }));
}

/** Parses the row's source and checks the code, the full message and the location of what it throws. */
export function expectRejection([source, code, message, line, column]: Rejection): void {
	let thrown: unknown;
	try {
		parseWorkflowSource(source);
	} catch (error) {
		thrown = error;
	}
	if (!isWorkflowError(thrown)) throw new Error(`expected a WorkflowError, got ${String(thrown)}`);
	expect({ code: thrown.code, message: thrown.message, location: thrown.location }).toEqual({
		code,
		message,
		location: { line, column },
	});
}

/** Runs `fn` and returns the WorkflowError it throws; fails when it throws nothing or something else. */
export function catchError(fn: () => unknown): WorkflowError {
	try {
		fn();
	} catch (error) {
		if (isWorkflowError(error)) return error;
		throw error;
	}
	throw new Error("expected a WorkflowError, nothing was thrown");
}
