// Equivalent of samfoy/pi-workflows examples/codebase-audit/codebase-audit.js (written for this corpus): that
// runtime's dialect, a module whose `export default async function main(ctx, input)` the host calls, with
// `ctx.agent(prompt, { id })` promises handed to `ctx.phase(name, [...])`, `ctx.cache`, `ctx.log` and
// `ctx.run.cwd`. Scripts here are a body with globals (agent, parallel, phase, log, cwd), not a module.
export default async function main(ctx, input) {
  ctx.log(`codebase-audit starting on ${ctx.run.cwd}; input="${input}"`);
  const [recon] = await ctx.phase("recon", [
    ctx.agent(`Survey the repo at ${ctx.run.cwd}. Output a JSON array of areas: [{"area": "...", "paths": ["..."]}].`, { id: "recon", inheritSkills: true }),
  ]);
  let areas;
  try {
    areas = JSON.parse(recon.text.match(/\[[\s\S]*\]/)[0]);
  } catch (e) {
    throw new Error(`recon agent did not return parseable JSON: ${e.message}`);
  }
  await ctx.cache.set("areas", areas);
  const analyses = await ctx.phase("analyze", areas.map((area, i) =>
    ctx.agent(`Audit area "${area.area}" (paths: ${area.paths.join(", ")}). Output findings as JSON.`, { id: `analyze-${i}`, cacheKeyExtra: { area: area.area } })));
  const [summary] = await ctx.phase("summarize", [ctx.agent(`Write a 1-page audit report:\n${analyses.map((a) => a.text).join("\n")}`, { id: "summarize", thinking: "high" })]);
  return { runId: ctx.run.id, cwd: ctx.run.cwd, report: summary.text };
}
