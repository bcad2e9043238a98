// Equivalent of zhaow-de/healthchecks .claude/workflows/review.js (written for this corpus): the inputs
// destructured from an object `args`, and `throw new Error('args: {...}')` when the required ones are missing
// (run here without them, so the run fails for the reason the script's own code gives), lens validation with a
// regex, a Map union of findings and a conditional spread of `model`.
export const meta = {
  name: 'review',
  description: 'The wide review of a whole branch: two lenses, one skeptic per Critical or Important',
  whenToUse: 'The wide review a branch owes once it is complete. args: {repo, range, tip, reportDir, lenses?, model?}',
  phases: [
    { title: 'Read', detail: 'one read-only reader per lens, in parallel' },
    { title: 'Refute', detail: 'one skeptic per Critical and Important' },
  ],
}

const { repo, range, tip, reportDir, model } = args || {}
const badModel = model != null && model !== 'opus' && model !== 'fable'
if (!repo || !range || !tip || !reportDir || badModel) throw new Error('args: {repo, range, tip, reportDir, lenses?, model?: opus or fable}')
const DEFAULT_LENSES = [
  { name: 'behaviour', brief: 'What the range changes, driven through the tests that reach it.' },
  { name: 'guards', brief: 'Every test the range adds: does it fail when the behaviour it names breaks?' },
]
const lenses = Array.isArray(args.lenses) && args.lenses.length ? args.lenses : DEFAULT_LENSES
for (const l of lenses) {
  if (!l.name || !l.brief || !/^[a-z0-9-]+$/.test(l.name)) throw new Error(`lens needs a slug name and a brief: ${JSON.stringify(l)}`)
}
const FINDING = {
  type: 'object',
  properties: { severity: { type: 'string', enum: ['Critical', 'Important', 'Minor'] }, path: { type: 'string' }, line: { type: 'integer' }, claim: { type: 'string' } },
  required: ['severity', 'path', 'line', 'claim'],
}
const REPORT = { type: 'object', properties: { verdict: { type: 'string' }, findings: { type: 'array', items: FINDING } }, required: ['verdict', 'findings'] }
const VERDICT = { type: 'object', properties: { refuted: { type: 'boolean' }, reason: { type: 'string' } }, required: ['refuted', 'reason'] }
const opts = (label, phaseName, effort) => ({ label, phase: phaseName, agentType: 'general-purpose', effort, ...(model ? { model } : {}) })

phase('Read')
const reports = (await parallel(lenses.map((l) => () => agent(`Read git log ${range} at ${tip} in ${repo} through the ${l.name} lens: ${l.brief}`, { ...opts(`read:${l.name}`, 'Read', 'high'), schema: REPORT })))).map((r, i) => (r ? { ...r, lens: lenses[i].name } : null))
const live = reports.filter(Boolean)
if (!live.length) throw new Error('no reader returned a report')
const RANK = { Critical: 3, Important: 2, Minor: 1 }
const union = new Map()
for (const r of live) for (const f of r.findings) {
  const k = `${f.path}:${f.line}`
  const prev = union.get(k)
  if (!prev) union.set(k, { ...f, lenses: [r.lens] })
  else { prev.lenses.push(r.lens); if (RANK[f.severity] > RANK[prev.severity]) Object.assign(prev, { severity: f.severity, claim: f.claim }) }
}
const findings = [...union.values()].sort((a, b) => RANK[b.severity] - RANK[a.severity]).map((f, i) => ({ ...f, id: i + 1 }))

phase('Refute')
const graded = (await parallel(findings.map((f) => () =>
  f.severity === 'Minor'
    ? Promise.resolve({ ...f, refuted: false, skeptic: null })
    : agent(`Try to REFUTE: ${f.path}:${f.line} — ${f.claim}`, { ...opts(`refute:${f.id}`, 'Refute', 'medium'), schema: VERDICT }).then((v) => ({ ...f, refuted: Boolean(v && v.refuted), skeptic: v }))))).filter(Boolean)
return { findings: graded.filter((f) => !f.refuted), refuted: graded.filter((f) => f.refuted).length }
