// Equivalent of yycholla/pi-dynamic-workflows skills/workflow-authoring/examples/fan-out-and-synthesize.js
// (written for this corpus): plain-text fan-out over `args.work`, a ledger that keeps every identity (null
// answers marked failed), and a small synthesis schema. Also the nested workflow of saved-nested-workflows.js.
export const meta = {
  name: "fan_out_and_synthesize",
  description: "Run bounded independent work, retain a complete coverage ledger, then synthesize",
  phases: [{ title: "Fan out" }, { title: "Synthesize" }],
};

const work = args && Array.isArray(args.work) ? args.work : [{ id: args && args.id ? args.id : "single" }];

phase("Fan out");
const fanOutResults = await parallel(work.map((unit, index) => () =>
  agent(`Complete this independent work unit. Return only evidence relevant to it.\n\n${JSON.stringify(unit)}`, { label: `fanout:${index}:${String(unit.id)}` })));
const ledger = work.map((unit, index) => ({ id: String(unit.id), status: fanOutResults[index] === null ? "failed" : "complete", result: fanOutResults[index] }));

phase("Synthesize");
const synthesis = await agent(`Synthesize the complete fan-out ledger below.\n\n${JSON.stringify(ledger)}`, {
  label: "synthesize-complete-set",
  schema: { type: "object", properties: { summary: { type: "string" }, coveredIds: { type: "array", items: { type: "string" } }, failedIds: { type: "array", items: { type: "string" } } }, required: ["summary", "coveredIds", "failedIds"] },
});
return { ledger, synthesis };
