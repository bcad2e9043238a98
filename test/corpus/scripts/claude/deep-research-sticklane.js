// Equivalent of sticklane/claude .claude/workflows/deep-research.js (written for this corpus): `log()` as the
// first statement, Claude Code's `effort: 'low'` on the fan-out stages, `new URL(u)` in try/catch twice, and a
// 3-vote panel per claim (`Array.from({ length: VOTES_PER_CLAIM }, ...)`) with a quorum rule in `.then`.
export const meta = {
  name: 'deep-research',
  description: 'Repo-owned deep research: fan out searches, fetch sources, 3-vote adversarial verification, cited synthesis.',
  whenToUse: 'When the user wants a deep, fact-checked research report; pass the refined question as args.',
  phases: [{ title: 'Scope' }, { title: 'Search', detail: 'effort:low' }, { title: 'Fetch', detail: 'effort:low' }, { title: 'Verify' }, { title: 'Synthesize' }],
}

log('[repo-deep-research]')
const VOTES_PER_CLAIM = 3
const REFUTATIONS_REQUIRED = 2
const MAX_FETCH = 4
const MAX_VERIFY_CLAIMS = 4
const SCOPE_SCHEMA = {
  type: 'object', required: ['question', 'angles', 'summary'],
  properties: { question: { type: 'string' }, summary: { type: 'string' }, angles: { type: 'array', minItems: 3, maxItems: 6, items: { type: 'object', required: ['label', 'query'], properties: { label: { type: 'string' }, query: { type: 'string' } } } } },
}
const SEARCH_SCHEMA = { type: 'object', required: ['results'], properties: { results: { type: 'array', maxItems: 6, items: { type: 'object', required: ['url', 'title', 'relevance'], properties: { url: { type: 'string' }, title: { type: 'string' }, relevance: { enum: ['high', 'medium', 'low'] } } } } } }
const EXTRACT_SCHEMA = { type: 'object', required: ['claims', 'sourceQuality'], properties: { sourceQuality: { enum: ['primary', 'secondary', 'blog', 'forum', 'unreliable'] }, claims: { type: 'array', maxItems: 5, items: { type: 'object', required: ['claim', 'quote', 'importance'], properties: { claim: { type: 'string' }, quote: { type: 'string' }, importance: { enum: ['central', 'supporting', 'tangential'] } } } } } }
const VERDICT_SCHEMA = { type: 'object', required: ['refuted', 'evidence', 'confidence'], properties: { refuted: { type: 'boolean' }, evidence: { type: 'string' }, confidence: { enum: ['high', 'medium', 'low'] } } }

phase('Scope')
const QUESTION = (typeof args === 'string' && args.trim()) || ''
if (!QUESTION) return { error: "No research question provided. Pass it as args: Workflow({name: 'deep-research', args: '<question>'})." }
const scope = await agent('Decompose into search angles:\n' + QUESTION, { label: 'scope', schema: SCOPE_SCHEMA })
if (!scope) return { error: 'Scope agent returned no result.' }

const normURL = u => {
  try {
    const p = new URL(u)
    return (p.hostname.replace(/^www\./, '') + p.pathname.replace(/\/$/, '')).toLowerCase()
  } catch { return u.toLowerCase() }
}
const seen = new Map()
let fetchSlots = MAX_FETCH

const searchResults = await pipeline(
  scope.angles,
  angle => agent('Web search: ' + angle.query, { label: 'search:' + angle.label, phase: 'Search', schema: SEARCH_SCHEMA, effort: 'low' })
    .then(r => (r ? { angle: angle.label, results: r.results } : null)),
  searchResult => parallel(searchResult.results.filter(r => {
    const key = normURL(r.url)
    if (seen.has(key) || fetchSlots <= 0) return false
    seen.set(key, true)
    fetchSlots--
    return true
  }).map(source => () => {
    let host = 'unknown'
    try { host = new URL(source.url).hostname.replace(/^www\./, '') } catch {}
    return agent('Fetch and extract claims: ' + source.url, { label: 'fetch:' + host, phase: 'Fetch', schema: EXTRACT_SCHEMA, effort: 'low' })
      .then(ext => (ext ? { url: source.url, sourceQuality: ext.sourceQuality, claims: ext.claims.map(c => ({ ...c, sourceUrl: source.url })) } : null))
      .catch(e => ({ url: source.url, sourceQuality: 'unreliable', claims: [], error: String(e.message || e) }))
  })),
)
const allSources = searchResults.flat().filter(Boolean)
const impRank = { central: 0, supporting: 1, tangential: 2 }
const rankedClaims = allSources.flatMap(s => s.claims).sort((a, b) => impRank[a.importance] - impRank[b.importance]).slice(0, MAX_VERIFY_CLAIMS)
if (rankedClaims.length === 0) return { question: QUESTION, summary: 'No claims extracted.', findings: [] }

phase('Verify')
const voted = (await parallel(rankedClaims.map(claim => () =>
  parallel(Array.from({ length: VOTES_PER_CLAIM }, (_, v) => () =>
    agent('Voter ' + (v + 1) + '/' + VOTES_PER_CLAIM + ': try to REFUTE "' + claim.claim + '"', { label: 'v' + v + ':' + claim.claim.slice(0, 40), phase: 'Verify', schema: VERDICT_SCHEMA })))
    .then(verdicts => {
      const valid = verdicts.filter(Boolean)
      const refuted = valid.filter(v => v.refuted).length
      return { ...claim, survives: valid.length >= REFUTATIONS_REQUIRED && refuted < REFUTATIONS_REQUIRED, isRefuted: refuted >= REFUTATIONS_REQUIRED }
    })))).filter(Boolean)
const confirmed = voted.filter(c => c.survives)
if (confirmed.length === 0) return { question: QUESTION, summary: 'All ' + voted.filter(c => c.isRefuted).length + ' claims refuted. Research inconclusive.', findings: [] }

phase('Synthesize')
const report = await agent('Synthesize a cited report:\n' + JSON.stringify(confirmed), { label: 'synthesize' })
return { question: QUESTION, report, findings: confirmed }
