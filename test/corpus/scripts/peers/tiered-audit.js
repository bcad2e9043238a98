// Equivalent written for this corpus from the routing rules of mschulkind/pi-dynamic-workflows
// (skills/workflow-authoring/SKILL.md: route a call with `tier`, names set by `/workflows-models` in
// .pi/workflows/model-tiers.json): `tier: 'small' | 'medium' | 'big'` on every call, a text answer split into
// lines to drive the fan-out, and `return await agent(...)`.
export const meta = {
  name: 'tiered_audit',
  description: 'List route files cheaply, audit each on a mid tier, synthesize the top risks on the big tier',
  phases: [{ title: 'Map' }, { title: 'Review' }, { title: 'Synthesize' }],
}

phase('Map')
const files = (await agent('List the route files under src/routes, one path per line, no prose.', { label: 'map-routes', tier: 'small' }))
  .split('\n').map((line) => line.trim()).filter(Boolean).slice(0, 6)
phase('Review')
const found = await parallel(files.map((f, i) => () => agent(`Audit ${f} for missing auth checks. Be specific.`, { label: `audit:${i}`, tier: 'medium' })))
phase('Synthesize')
return await agent('Synthesize these audit findings into the top risks:\n' + found.filter(Boolean).join('\n\n'), { label: 'synthesize', tier: 'big' })
