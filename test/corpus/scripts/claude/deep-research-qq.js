// Equivalent of hypermemetic-ai/qq .claude/workflows/deep-research.js (written for this corpus, not copied):
// the question as a string `args`, a top-level `return` for a missing question, schemas with enum-only
// properties and minItems/maxItems, pipeline() whose stages return parallel() of `.then`/`.catch` chains, and
// `new URL(u)` inside try/catch (the catch handles a runtime without URL).
export const meta = {
  name: 'deep-research',
  description: 'Fan out web searches, fetch sources, adversarially verify the central claims, synthesize a cited report.',
  whenToUse: 'When the user wants a multi-source, fact-checked research report; pass the refined question as args.',
  phases: [{ title: 'Scope', detail: 'angles' }, { title: 'Search' }, { title: 'Fetch' }, { title: 'Verify' }, { title: 'Synthesize' }],
}

const MAX_FETCH = 6
const SCOPE_SCHEMA = {
  type: 'object', required: ['question', 'angles'],
  properties: {
    question: { type: 'string' },
    angles: { type: 'array', minItems: 3, maxItems: 6, items: {
      type: 'object', required: ['label', 'query'],
      properties: { label: { type: 'string' }, query: { type: 'string' } },
    } },
  },
}
const SEARCH_SCHEMA = {
  type: 'object', required: ['results'],
  properties: { results: { type: 'array', maxItems: 4, items: {
    type: 'object', required: ['url', 'title', 'relevance'],
    properties: { url: { type: 'string' }, title: { type: 'string' }, relevance: { enum: ['high', 'medium', 'low'] } },
  } } },
}
const EXTRACT_SCHEMA = {
  type: 'object', required: ['claims', 'sourceQuality'],
  properties: {
    sourceQuality: { enum: ['primary', 'secondary', 'blog', 'forum', 'unreliable'] },
    claims: { type: 'array', maxItems: 3, items: {
      type: 'object', required: ['claim', 'quote', 'importance'],
      properties: { claim: { type: 'string' }, quote: { type: 'string' }, importance: { enum: ['central', 'supporting', 'tangential'] } },
    } },
  },
}
const VERDICT_SCHEMA = {
  type: 'object', required: ['refuted', 'evidence'],
  properties: { refuted: { type: 'boolean' }, evidence: { type: 'string' }, confidence: { enum: ['high', 'medium', 'low'] } },
}

phase('Scope')
const QUESTION = (typeof args === 'string' && args.trim()) || ''
if (!QUESTION) {
  return { error: "No research question provided. Pass it as args: Workflow({name: 'deep-research', args: '<question>'})." }
}
const scope = await agent('Decompose this research question into 3-6 search angles.\n\n' + QUESTION, { label: 'scope', schema: SCOPE_SCHEMA })
if (!scope) return { error: 'Scope agent returned no result.' }
log('Decomposed into ' + scope.angles.length + ' angles: ' + scope.angles.map(a => a.label).join(', '))

const normURL = u => {
  try {
    const p = new URL(u)
    return (p.hostname.replace(/^www\./, '') + p.pathname.replace(/\/$/, '')).toLowerCase()
  } catch { return u.toLowerCase() }
}
const seen = new Map()
const relRank = { high: 0, medium: 1, low: 2 }
let fetchSlots = MAX_FETCH

const results = await pipeline(
  scope.angles,
  angle => agent('Search the web for: ' + angle.query, { label: 'search:' + angle.label, phase: 'Search', schema: SEARCH_SCHEMA })
    .then(r => (r ? { angle: angle.label, results: r.results } : null)),
  found => {
    const novel = [...found.results].sort((a, b) => relRank[a.relevance] - relRank[b.relevance]).filter(r => {
      const key = normURL(r.url)
      if (seen.has(key) || fetchSlots <= 0) return false
      seen.set(key, found.angle)
      fetchSlots--
      return true
    })
    return parallel(novel.map(source => () => {
      let host = 'unknown'
      try { host = new URL(source.url).hostname.replace(/^www\./, '') } catch {}
      return agent('Fetch ' + source.url + ' and extract falsifiable claims about: ' + QUESTION, {
        label: 'fetch:' + host, phase: 'Fetch', schema: EXTRACT_SCHEMA,
      }).then(ext => (ext ? { url: source.url, sourceQuality: ext.sourceQuality, claims: ext.claims.map(c => ({ ...c, sourceUrl: source.url })) } : null))
        .catch(e => {
          log('fetch failed: ' + source.url + ' — ' + (e.message || e))
          return { url: source.url, sourceQuality: 'unreliable', claims: [] }
        })
    }))
  },
)

const sources = results.flat().filter(Boolean)
const claims = sources.flatMap(s => s.claims)
const central = claims.filter(c => c.importance === 'central').slice(0, 6)
log('Fetched ' + sources.length + ' sources → ' + claims.length + ' claims → verifying ' + central.length)
if (claims.length === 0) return { question: QUESTION, summary: 'No claims extracted.', findings: [] }

phase('Verify')
const voted = await parallel(central.map(claim => () =>
  agent('Try to REFUTE this claim: "' + claim.claim + '" (source ' + claim.sourceUrl + ')', {
    label: 'verify:' + claim.claim.slice(0, 40), phase: 'Verify', schema: VERDICT_SCHEMA,
  }).then(v => ({ ...claim, survives: !!v && !v.refuted, refuted: !!v && v.refuted }))))
const confirmed = voted.filter(c => c && c.survives)

phase('Synthesize')
const report = await agent('Write a cited report for: ' + QUESTION + '\n\nConfirmed claims:\n' + JSON.stringify(confirmed), { label: 'synthesize' })
return { question: QUESTION, report, confirmed: confirmed.length, refuted: voted.filter(c => c && c.refuted).length, sources: sources.map(s => s.url) }
