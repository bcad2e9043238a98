// Equivalent of getfacet/facet .claude/workflows/code-review.js (written for this corpus): an `enum` built from
// a runtime array (`enum: DIM_KEYS`), custom review agent types per dimension, pipeline() whose second stage
// destructures `({ dim, findings })`, a vote panel from `Array.from({ length: n }, ...)` inside parallel(),
// strict-majority `.then` logic returning null, Map dedup and reduce counters.
export const meta = {
  name: 'code-review',
  description: 'Scope the diff, fan out one reviewer per dimension, verify every finding with a severity-tiered vote panel, compute the verdict.',
  whenToUse: 'Before shipping a change; pass args.scope="repo" to review the whole tree.',
  phases: [
    { title: 'Scope', detail: 'changed files and which dimensions to run' },
    { title: 'Find', detail: 'one reviewer per dimension' },
    { title: 'Verify', detail: '3 votes for P0/P1, 1 for P2/P3' },
    { title: 'Synthesize' },
  ],
}

const DIMENSIONS = [
  { key: 'bugs', agentType: 'review-bugs', focus: 'logic and correctness bugs' },
  { key: 'types', agentType: 'review-types', focus: 'type safety and public API contracts' },
  { key: 'security', agentType: 'review-security', focus: 'untrusted input and injection' },
]
const DIM_KEYS = DIMENSIONS.map(d => d.key)
const BLOCKING = new Set(['P0', 'P1', 'P2'])
const HIGH_SEV = new Set(['P0', 'P1'])
const sevRank = { P0: 0, P1: 1, P2: 2, P3: 3 }

const cfg = (args && typeof args === 'object') ? args : {}
const wantScope = cfg.scope === 'repo' ? 'repo' : (cfg.scope === 'diff' ? 'diff' : null)
const baseRef = typeof cfg.base === 'string' && cfg.base.trim() ? cfg.base.trim() : 'main'
const VOTES_HIGH = Number.isInteger(cfg.votes) && cfg.votes > 0 ? cfg.votes : 3
const votesFor = sev => (cfg.thorough || HIGH_SEV.has(sev)) ? VOTES_HIGH : 1

const SCOPE_SCHEMA = {
  type: 'object', required: ['mode', 'changedFiles', 'dimensions'],
  properties: { mode: { enum: ['diff', 'repo'] }, changedFiles: { type: 'array', items: { type: 'string' } }, dimensions: { type: 'array', items: { enum: DIM_KEYS } } },
}
const FINDINGS_SCHEMA = {
  type: 'object', required: ['findings'],
  properties: { findings: { type: 'array', items: { type: 'object', required: ['title', 'file', 'line', 'severity'], properties: {
    title: { type: 'string' }, file: { type: 'string' }, line: { type: 'number' }, severity: { enum: ['P0', 'P1', 'P2', 'P3'] },
  } } } },
}
const VERDICT_SCHEMA = { type: 'object', required: ['isReal', 'severity', 'reason'], properties: { isReal: { type: 'boolean' }, severity: { enum: ['P0', 'P1', 'P2', 'P3'] }, reason: { type: 'string' } } }

phase('Scope')
const scope = await agent('Determine the review scope against `' + baseRef + '` and pick dimensions from: ' + DIM_KEYS.join(', '), { label: 'scope', phase: 'Scope', schema: SCOPE_SCHEMA })
const mode = wantScope || (scope && scope.mode) || 'diff'
const changedFiles = (scope && scope.changedFiles) || []
const runDims = DIMENSIONS.filter(d => (scope && scope.dimensions && scope.dimensions.length ? scope.dimensions : DIM_KEYS).includes(d.key))
if (mode === 'diff' && changedFiles.length === 0) return { verdict: 'PASS', findings: [], note: 'No changes detected against ' + baseRef + '.' }

const verifyFinding = (f, dim) => {
  const n = votesFor(f.severity)
  return parallel(Array.from({ length: n }, (_, i) => () =>
    agent('Try to REFUTE ' + f.title + ' at ' + f.file + ':' + f.line + ' (skeptic ' + (i + 1) + '/' + n + ')', {
      agentType: 'review-verifier', label: (n > 1 ? 'v' + i + ':' : 'verify:') + dim.key + ':' + f.file.split('/').pop(), phase: 'Verify', schema: VERDICT_SCHEMA,
    }))).then(votes => {
    const valid = votes.filter(Boolean)
    if (valid.length === 0) return null
    const real = valid.filter(v => v.isReal)
    if (!(real.length > valid.length / 2)) return null
    return { ...f, dimension: dim.key, votes: real.length + '/' + valid.length }
  })
}

const reviewed = await pipeline(
  runDims,
  dim => agent('Review dimension ' + dim.key + ': ' + dim.focus, { agentType: dim.agentType, label: 'find:' + dim.key, phase: 'Find', schema: FINDINGS_SCHEMA })
    .then(r => ({ dim, findings: r && Array.isArray(r.findings) ? r.findings : [] })),
  ({ dim, findings }) => parallel(findings.map(f => () => verifyFinding(f, dim))),
)

const byKey = new Map()
for (const f of reviewed.flat().filter(Boolean)) {
  const k = (f.file + ':' + f.line + ':' + f.title).toLowerCase()
  const prev = byKey.get(k)
  if (!prev || sevRank[f.severity] < sevRank[prev.severity]) byKey.set(k, f)
}
const confirmed = [...byKey.values()].sort((a, b) => sevRank[a.severity] - sevRank[b.severity])
const counts = confirmed.reduce((acc, f) => { acc[f.severity]++; return acc }, { P0: 0, P1: 0, P2: 0, P3: 0 })
const verdict = confirmed.some(f => BLOCKING.has(f.severity)) ? 'FAIL' : 'PASS'
if (confirmed.length === 0) return { verdict: 'PASS', findings: [], counts }

phase('Synthesize')
const synth = await agent('Propose a concrete fix per confirmed finding:\n' + JSON.stringify(confirmed), {
  label: 'synthesize', phase: 'Synthesize',
  schema: { type: 'object', required: ['findings', 'summary'], properties: { summary: { type: 'string' }, findings: { type: 'array', items: { type: 'object', required: ['file', 'line', 'fix'], properties: { file: { type: 'string' }, line: { type: 'number' }, fix: { type: 'string' } } } } } },
})
return { verdict, counts, summary: synth && synth.summary, findings: confirmed }
