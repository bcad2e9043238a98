/** The three-call workflow the blame tests plant bad answers in, and the grader that judges its runs. */

/** research → draft (from the notes) → check (the notes): a swap of `research` changes both later prompts. */
export const WORKFLOW = `export const meta = { name: "write", description: "research, draft, check" };
const notes = await agent("research " + args.topic, { label: "research" });
const draft = await agent("draft " + args.topic + " from: " + notes, { label: "draft" });
const verdict = await agent("check " + args.topic + " against: " + notes, { label: "check" });
return { notes, draft, verdict };
`;

/** What a person would check: no bad part, and the checker said ok. */
export const GRADER = `export const meta = { name: "grade", description: "no bad part, checked ok" };
const o = args.output;
if (args.status !== "completed" || o === null) return { pass: false, reason: "the run " + args.status };
const bad = ["notes", "draft"].filter((part) => String(o[part]).includes("BAD"));
if (o.verdict !== "ok") bad.push("verdict");
return { pass: bad.length === 0, reason: bad.length ? "bad: " + bad.join(", ") : "good" };
`;
