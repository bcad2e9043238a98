// Equivalent of elyxlz/vesta .claude/workflows/bug-hunt.js (written for this corpus): wrapper helpers that
// spread call options over a Claude model name (`model: 'fable'`, `model: 'sonnet'`), a bounded while loop of
// parallel() rounds with `break`, `isolation: 'worktree'`, `type: ['string', 'null']`, `.then` filters, and
// early top-level returns.
export const meta = {
  name: 'bug-hunt',
  description: 'Hunt real bugs with diverse finder lenses; a bug survives only if a failing test proves it',
  whenToUse: 'Recurring correctness pass; complements style and architecture reviews.',
  phases: [
    { title: 'Hunt', detail: 'parallel finder lenses, rounds until dry' },
    { title: 'Prove', detail: 'write a failing test or kill the claim' },
    { title: 'Curate' },
    { title: 'Fix', detail: 'one worktree PR per bug' },
  ],
}

const deep = (prompt, opts) => agent(prompt, { model: 'fable', ...opts })
const run = (prompt, opts) => agent(prompt, { model: 'sonnet', ...opts })
const MAX_ROUNDS = 3
const MAX_FIXES = 4
const LENSES = [
  { key: 'concurrency', focus: 'races, lost wakeups, cancellation' },
  { key: 'error-paths', focus: 'swallowed errors, missing timeouts, leaks' },
  { key: 'boundaries', focus: 'parsing and contracts, edge inputs' },
]

const BUGS_SCHEMA = {
  type: 'object', additionalProperties: false,
  properties: { findings: { type: 'array', items: { type: 'object', additionalProperties: false, properties: {
    title: { type: 'string' }, area: { type: 'string', enum: ['agent', 'cli', 'web'] }, file: { type: 'string' }, line: { type: 'number' },
    severity: { type: 'string', enum: ['low', 'medium', 'high', 'critical'] }, bug: { type: 'string' },
  }, required: ['title', 'area', 'file', 'severity', 'bug'] } } },
  required: ['findings'],
}
const PROOF_SCHEMA = {
  type: 'object', additionalProperties: false,
  properties: { proven: { type: 'boolean' }, testPath: { type: 'string' }, testCommand: { type: 'string' }, reason: { type: 'string' } },
  required: ['proven', 'reason'],
}
const PR_SCHEMA = {
  type: 'object', additionalProperties: false,
  properties: { label: { type: 'string' }, prUrl: { type: ['string', 'null'] }, checksPassed: { type: 'boolean' }, note: { type: 'string' } },
  required: ['label', 'checksPassed', 'note'],
}

phase('Hunt')
const seen = new Set()
const claims = []
let round = 0
while (round < MAX_ROUNDS) {
  round++
  const prior = claims.map((c) => c.title).join('; ')
  const found = (await parallel(LENSES.map((lens) => () =>
    deep(`Hunt for REAL bugs through one lens: ${lens.focus}.\n${round > 1 ? `Round ${round}. Already claimed: ${prior}` : ''}`,
      { phase: 'Hunt', label: `hunt:${lens.key}:r${round}`, schema: BUGS_SCHEMA })))).filter(Boolean).flatMap((r) => r.findings)
  const fresh = found.filter((f) => !seen.has(`${f.file}|${f.title}`))
  fresh.forEach((f) => seen.add(`${f.file}|${f.title}`))
  claims.push(...fresh)
  log(`round ${round}: ${fresh.length} new claims (${claims.length} total)`)
  if (fresh.length === 0) break
}
if (claims.length === 0) return { bugsProven: 0, prs: [] }

phase('Prove')
const proofs = await parallel(claims.map((claim) => () =>
  run(`Prove or kill this bug claim with a failing test: ${JSON.stringify(claim)}`,
    { phase: 'Prove', label: `prove:${claim.title.slice(0, 28)}`, schema: PROOF_SCHEMA, isolation: 'worktree' })
    .then((p) => (p && p.proven ? { ...claim, ...p } : null))))
const proven = proofs.filter(Boolean)
if (proven.length === 0) return { claims: claims.length, bugsProven: 0, prs: [] }

phase('Curate')
const plan = (await deep(`Dedup, rank and cap at ${MAX_FIXES}: ${JSON.stringify(proven)}`, {
  phase: 'Curate', label: 'curate',
  schema: { type: 'object', properties: { bugs: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' }, area: { type: 'string' }, fixHint: { type: 'string' } }, required: ['title', 'area', 'fixHint'] } }, droppedCount: { type: 'number' } }, required: ['bugs', 'droppedCount'] },
})) || { bugs: [], droppedCount: 0 }

phase('Fix')
const prs = await parallel(plan.bugs.map((bug, i) => () =>
  run(`Fix ONE proven bug on branch fix/bug-${i}: ${JSON.stringify(bug)}`, { phase: 'Fix', label: `fix:${bug.area}-${i}`, schema: PR_SCHEMA, isolation: 'worktree' })))
const opened = prs.filter(Boolean).filter((r) => r.prUrl)
log(`Done: ${opened.length} fix PR(s) opened`)
return { claims: claims.length, bugsProven: proven.length, prs: opened.map((r) => ({ label: r.label, url: r.prUrl })), dropped: plan.droppedCount }
