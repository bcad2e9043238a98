// Equivalent of yycholla/pi-dynamic-workflows skills/workflow-authoring/examples/bounded-semantic-retry.js
// (written for this corpus): a for loop of semantic attempts with `break`, feedback threaded into the next
// prompt, and the `retries` option for transport retries (clamped from `args`).
export const meta = {
  name: "bounded_semantic_retry",
  description: "Separate recoverable transport retries from a visible bounded semantic attempt ledger",
  phases: [{ title: "Attempt" }],
};

const maxSemanticAttempts = args && Number.isInteger(args.maxSemanticAttempts) ? Math.max(1, Math.min(args.maxSemanticAttempts, 5)) : 3;
const transportRetries = args && Number.isInteger(args.transportRetries) ? Math.max(0, Math.min(args.transportRetries, 3)) : 0;
const resultSchema = {
  type: "object",
  properties: { accepted: { type: "boolean" }, answer: { type: "string" }, feedback: { type: "string" } },
  required: ["accepted", "answer", "feedback"],
};
const attempts = [];
let feedback = "";
let acceptedResult = null;

phase("Attempt");
for (let attempt = 1; attempt <= maxSemanticAttempts; attempt++) {
  const result = await agent(`Produce an acceptable answer.${feedback ? ` Address this prior feedback: ${feedback}` : ""}`, {
    label: `semantic-attempt:${attempt}`,
    schema: resultSchema,
    retries: transportRetries,
  });
  if (result === null) { attempts.push({ attempt, status: "missing", result: null }); feedback = "No usable coverage."; continue; }
  attempts.push({ attempt, status: result.accepted ? "accepted" : "rejected", result });
  if (result.accepted) { acceptedResult = result; break; }
  feedback = result.feedback;
}
return { ok: acceptedResult !== null, exhausted: acceptedResult === null && attempts.length === maxSemanticAttempts, result: acceptedResult, attempts };
