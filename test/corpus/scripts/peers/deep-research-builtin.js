// Equivalent of the deep-research built-in of YukiRa1n/pi-dynamic-workflows (dist/deep-research.js generates it;
// written for this corpus): inputs read from `args` with `&&`/`||` defaults, inline schemas, a planner whose
// null answer falls back to the question, and parallel() gathering with `.filter(Boolean)`.
export const meta = {
  name: 'deep_research',
  description: 'Deep research with web search and cross-checked claims',
  phases: [{ title: 'Queries' }, { title: 'Gather' }, { title: 'Verify' }, { title: 'Report' }],
}

const question = (args && args.question) || ''
const angles = (args && args.angles) || 4
const minSupport = (args && args.minSupport) || 2

phase('Queries')
const plan = await agent('Plan web research for:\n' + question + '\n\nProduce ' + angles + ' diverse search queries.', {
  label: 'plan queries', schema: { type: 'object', properties: { queries: { type: 'array', items: { type: 'string' } } }, required: ['queries'] },
})
const planned = plan && Array.isArray(plan.queries) ? plan.queries.filter((q) => typeof q === 'string' && q.trim().length > 0) : []
const queries = (planned.length > 0 ? planned : [question]).slice(0, angles)

phase('Gather')
const gathered = await parallel(queries.map((q, i) => () =>
  agent('Research this query with web_search and web_fetch.\nQuery: ' + q, {
    label: 'research ' + (i + 1),
    schema: { type: 'object', properties: { sources: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' }, claims: { type: 'array', items: { type: 'string' } } }, required: ['url', 'claims'] } } }, required: ['sources'] },
  })))
const allSources = gathered.filter(Boolean).flatMap((g) => (g && g.sources) || [])

phase('Verify')
const verdict = await agent('Keep claims supported by at least ' + minSupport + ' sources.\n\nSOURCES JSON:\n' + JSON.stringify(allSources), {
  label: 'cross-check',
  schema: { type: 'object', properties: { supported: { type: 'array', items: { type: 'object', properties: { claim: { type: 'string' }, sources: { type: 'array', items: { type: 'string' } } }, required: ['claim', 'sources'] } }, discarded: { type: 'array', items: { type: 'string' } } }, required: ['supported'] },
})

phase('Report')
const report = await agent('Write a report answering: ' + question + '\n\n' + JSON.stringify((verdict && verdict.supported) || []), { label: 'write report' })
return { question, queries, supported: (verdict && verdict.supported) || [], report }
