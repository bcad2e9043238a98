// Equivalent of yycholla/pi-dynamic-workflows skills/workflow-authoring/examples/phased-budgets.js (written for
// this corpus): `phase(name, { budget })`, the budget read as `budget.spent()` and `budget.remaining()` (the
// Claude Code shape the peer copies), and a catch that tells the peer's budget error (`TOKEN_BUDGET_EXHAUSTED`)
// from others and rethrows the rest.
export const meta = {
  name: "phased_budgets",
  description: "Bound noisy work with named phase budgets and report shared token spending truthfully",
  phases: [{ title: "Explore" }, { title: "Deliver" }],
};

const work = args && Array.isArray(args.work) ? args.work.slice(0, 8) : [{ id: "sample" }];
const phaseBudget = args && Number.isFinite(args.phaseBudget) ? Math.max(1, Math.min(args.phaseBudget, 100000)) : 2000;
const resultSchema = { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] };
const phases = [];

phase("Explore", { budget: phaseBudget });
const exploreStart = budget.spent();
const explored = [];
const exploreMissing = [];
for (let index = 0; index < work.length; index++) {
  const item = work[index];
  const id = String(item.id);
  try {
    const result = await agent(`Explore this bounded work item: ${JSON.stringify(item)}`, { label: `explore:${index}:${id}`, schema: resultSchema });
    if (result === null) exploreMissing.push(id);
    else explored.push({ id, index, result });
  } catch (error) {
    if (!error || error.code !== "TOKEN_BUDGET_EXHAUSTED") throw error;
    exploreMissing.push(...work.slice(index).map((remaining) => String(remaining.id)));
    break;
  }
}
phases.push({ title: "Explore", startSpent: exploreStart, endSpent: budget.spent(), missing: exploreMissing });

phase("Deliver");
const deliverStart = budget.spent();
const delivered = [];
for (const item of explored) {
  const result = await agent(`Turn this exploration into a deliverable: ${JSON.stringify(item.result)}`, { label: `deliver:${item.index}:${item.id}`, schema: resultSchema });
  if (result !== null) delivered.push({ id: item.id, result });
}
phases.push({ title: "Deliver", startSpent: deliverStart, endSpent: budget.spent() });
return { phases, delivered, totalSpent: budget.spent(), remaining: budget.remaining(), complete: exploreMissing.length === 0 };
