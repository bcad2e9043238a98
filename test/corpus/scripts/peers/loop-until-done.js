// Equivalent of yycholla/pi-dynamic-workflows skills/workflow-authoring/examples/loop-until-done.js (written for
// this corpus): a while loop bounded by rounds and consecutive dry rounds, a Set of stable ids spread into the
// prompt, `continue` on a null answer.
export const meta = {
  name: "loop_until_done",
  description: "Discover unknown-cardinality findings until repeated successful rounds are dry",
  phases: [{ title: "Discover" }],
};

const target = args && typeof args.target === "string" ? args.target : "new findings";
const maxRounds = args && Number.isInteger(args.maxRounds) ? Math.max(1, Math.min(args.maxRounds, 20)) : 6;
const consecutiveDry = 2;
const roundSchema = {
  type: "object",
  properties: { findings: { type: "array", items: { type: "object", properties: { id: { type: "string" }, detail: { type: "string" } }, required: ["id", "detail"] } } },
  required: ["findings"],
};
const failedRounds = [];
const knownIds = new Set();
const findings = [];
let dryRounds = 0;
let roundsRun = 0;

phase("Discover");
while (roundsRun < maxRounds && dryRounds < consecutiveDry) {
  const roundNumber = roundsRun + 1;
  const response = await agent(`Find ${target}. Return only findings not represented by these stable IDs: ${JSON.stringify([...knownIds])}`, { label: `discover:${roundNumber}`, schema: roundSchema });
  roundsRun++;
  if (response === null) { failedRounds.push(roundNumber); dryRounds = 0; continue; }
  const fresh = [];
  for (const finding of response.findings) {
    if (!knownIds.has(finding.id)) { knownIds.add(finding.id); fresh.push(finding); }
  }
  if (fresh.length === 0) dryRounds++;
  else { dryRounds = 0; findings.push(...fresh); }
}
const termination = dryRounds >= consecutiveDry ? "dry" : "max-rounds";
return { findings, failedRounds, roundsRun, termination, complete: failedRounds.length === 0 && termination === "dry" };
