// Equivalent of samfoy/pi-workflows tests/fixtures/workflows/vote.workflow.js (written for this corpus): a body
// that reads that runtime's `ctx` object without declaring it — `ctx.agent(...)` promises passed to
// `ctx.vote(candidates, judge)` — a global this runtime does not have.
const a = ctx.agent("draft A", { id: "a" });
const b = ctx.agent("draft B", { id: "b" });
const c = ctx.agent("draft C", { id: "c" });

function judge(responses) {
  let best = responses[0];
  for (let i = 1; i < responses.length; i++) {
    if (responses[i].length > best.length) best = responses[i];
  }
  return best;
}

const result = await ctx.vote([a, b, c], judge);
return result;
