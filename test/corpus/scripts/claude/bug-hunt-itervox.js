// Equivalent of vnovick/itervox .claude/workflows/bug-hunt.js (written for this corpus): `args` that may arrive
// stringified (`JSON.parse(args)`), Claude Code's `effort: 'low'`, a guarded read of Claude Code's `budget.total`
// and `budget.remaining()`, a numeric separator (60_000), rounds until two dry rounds, a nested parallel() of two
// refuters per finding, and `.then` chains that map findings.
export const meta = {
  name: 'bug-hunt',
  description: 'Multi-lens defect hunt with adversarial verification, looping until two consecutive rounds find nothing new.',
  whenToUse: 'Repo-wide or diff-scoped defect discovery. Args: { scope?: string[] | "diff", lenses?: string[], maxRounds?: number }.',
  phases: [
    { title: 'Seed', detail: 'deterministic signal' },
    { title: 'Hunt', detail: 'one finder per lens per round' },
    { title: 'Verify', detail: 'two adversarial refuters per fresh finding' },
  ],
}

const LENSES = {
  concurrency: 'writes to shared state from the wrong goroutine; channel sends that can block forever',
  correctness: 'nil maps, aliasing appends, captured loop variables, shadowed errors',
  'silent-failures': 'errors discarded or logged and ignored',
}
const FINDINGS_SCHEMA = {
  type: 'object', required: ['findings'],
  properties: { findings: { type: 'array', items: { type: 'object', required: ['title', 'file', 'line', 'evidence', 'severity'], properties: {
    title: { type: 'string' }, file: { type: 'string' }, line: { type: 'integer' }, evidence: { type: 'string' }, severity: { type: 'string', enum: ['blocking', 'major', 'minor'] },
  } } } },
}
const VERDICT_SCHEMA = { type: 'object', required: ['refuted', 'reason'], properties: { refuted: { type: 'boolean' }, reason: { type: 'string' } } }

const input = typeof args === 'string' ? JSON.parse(args) : args || {}
const rawScope = input.scope || ['internal/', 'cmd/']
const scope = typeof rawScope === 'string' && rawScope !== 'diff' ? [rawScope] : Array.isArray(rawScope) && rawScope.length === 0 ? ['internal/', 'cmd/'] : rawScope
const asArr = (v, d) => (v == null ? d : Array.isArray(v) ? v : [v])
const lensArg = asArr(input.lenses, null)
const lensKeys = lensArg && lensArg.length ? lensArg : Object.keys(LENSES)
const maxRounds = input.maxRounds || 3
const scopeDesc = scope === 'diff' ? 'ONLY the change under review' : `these paths: ${scope.join(', ')}`

phase('Seed')
const seed = await agent(`Read-only. Gather deterministic defect signal for ${scopeDesc}: vet, lint, race, greps.`, { label: 'seed:deterministic', phase: 'Seed', effort: 'low' })

const seen = new Set()
const confirmed = [], suspected = [], refutedTrail = []
const key = (f) => `${f.file}:${(f.title || '').toLowerCase().slice(0, 60)}`
let dry = 0
let round = 0
while (dry < 2 && round < maxRounds) {
  if (budget.total && budget.remaining() < 60_000) {
    log(`Budget floor reached after round ${round} - stopping early; coverage is PARTIAL.`)
    break
  }
  round += 1
  const found = (await parallel(lensKeys.map((lens) => () =>
    agent(`Defect finder, lens = ${lens}: ${LENSES[lens]}\nSeed:\n${(seed || '(none)').slice(0, 4000)}\nAlready known:\n${[...seen].join('\n') || '(none yet)'}`, {
      label: `find:${lens}:r${round}`, phase: 'Hunt', schema: FINDINGS_SCHEMA,
    }).then((r) => (r ? r.findings.map((f) => ({ ...f, lens })) : []))))).flat()
  const fresh = found.filter((f) => !seen.has(key(f)))
  fresh.forEach((f) => seen.add(key(f)))
  log(`Round ${round}: ${found.length} reported, ${fresh.length} fresh`)
  if (fresh.length === 0) { dry += 1; continue }
  dry = 0
  const judged = await parallel(fresh.map((f) => () =>
    parallel([
      () => agent(`Adversarial refuter: prove ${f.file}:${f.line} [${f.lens}] ${f.title} is a false positive.`, { label: `refute:${f.file.split('/').pop()}`, phase: 'Verify', schema: VERDICT_SCHEMA }),
      () => agent(`Construct the concrete failure for ${f.file}:${f.line}: ${f.evidence}`, { label: `repro:${f.file.split('/').pop()}`, phase: 'Verify', schema: VERDICT_SCHEMA }),
    ]).then((votes) => ({ f, votes: votes.filter(Boolean) }))))
  for (const { f, votes } of judged.filter(Boolean)) {
    const refutations = votes.filter((v) => v.refuted)
    const entry = { ...f, round, verdicts: votes.map((v) => v.reason) }
    if (votes.length < 2) suspected.push(entry)
    else if (refutations.length === votes.length) refutedTrail.push({ ...entry, killedBy: refutations.map((v) => v.reason) })
    else if (refutations.length > 0) suspected.push(entry)
    else confirmed.push(entry)
  }
}
return { confirmed, suspected, refutedTrail, rounds: round, exhaustive: dry >= 2 }
