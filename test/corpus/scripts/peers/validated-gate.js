// Equivalent of yycholla/pi-dynamic-workflows skills/workflow-authoring/examples/validated-gate.js (written for
// this corpus): the peer's `gate(produce, validate, { attempts })` helper global, which runs `produce(feedback,
// attempt)` until `validate(value)` returns `{ ok: true }`. This runtime has no such helper.
export const meta = {
  name: "validated_gate",
  description: "Use validator feedback to steer bounded structured attempts through gate()",
  phases: [{ title: "Validate" }],
};

const task = args && typeof args.task === "string" ? args.task : "Produce an acceptable answer.";
const maxAttempts = args && Number.isInteger(args.maxAttempts) ? Math.max(1, Math.min(args.maxAttempts, 5)) : 3;
const resultSchema = {
  type: "object",
  properties: { acceptable: { type: "boolean" }, answer: { type: "string" }, feedback: { type: "string" } },
  required: ["acceptable", "answer", "feedback"],
};
const ledger = [];

phase("Validate");
const outcome = await gate(
  async (feedback, attempt) => {
    const value = await agent(`${task}${feedback ? ` Address this validator feedback: ${feedback}` : ""}`, { label: `gate-attempt:${attempt + 1}`, schema: resultSchema });
    ledger.push({ attempt: attempt + 1, feedbackReceived: feedback ?? null, value });
    return value;
  },
  (value) => {
    const ok = value !== null && value.acceptable === true && value.answer.trim().length > 0;
    return ok ? { ok: true } : { ok: false, feedback: value === null ? "No usable result." : value.feedback };
  },
  { attempts: maxAttempts },
);
return { ok: outcome.ok, value: outcome.value, attempts: outcome.attempts, ledger };
