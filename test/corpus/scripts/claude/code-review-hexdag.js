// Equivalent of omniviser/hexDAG .claude/workflows/code-review.js (written for this corpus): a long shared
// CONTEXT template interpolated into every prompt, `effort: 'high'` on every call, finders whose `.then` maps
// findings (an empty list for a null answer), verify-per-finding, and a confirmed-only synthesis.
export const meta = {
  name: 'code-review',
  description: 'Adversarial review of the current git diff across several lenses, with a verify stage before synthesis',
  phases: [{ title: 'Scope' }, { title: 'Find' }, { title: 'Verify' }, { title: 'Synthesize' }],
}

const BASE = 'main'
const CONTEXT = `
Repo: a workflow engine (Python 3.12+). Review the CURRENT change set:
  git diff ${BASE}...HEAD
  git diff HEAD
Read the actual files; always cite file:line for current code.
`
const FINDING_SCHEMA = {
  type: 'object',
  properties: { findings: { type: 'array', items: { type: 'object', properties: {
    title: { type: 'string' }, file: { type: 'string' }, line: { type: 'string' },
    severity: { type: 'string', enum: ['blocker', 'important', 'minor', 'nit'] },
    category: { type: 'string', enum: ['correctness', 'architecture-boundary', 'type-safety', 'coverage', 'simplification'] },
    description: { type: 'string' },
  }, required: ['title', 'file', 'line', 'severity', 'category', 'description'] } } },
  required: ['findings'],
}
const VERDICT_SCHEMA = {
  type: 'object',
  properties: { is_real: { type: 'boolean' }, confidence: { type: 'string', enum: ['high', 'medium', 'low'] }, corrected_severity: { type: 'string', enum: ['blocker', 'important', 'minor', 'nit'] }, suggested_fix: { type: 'string' } },
  required: ['is_real', 'confidence', 'corrected_severity', 'suggested_fix'],
}

phase('Scope')
log(`Reviewing current diff vs ${BASE}`)
const LENSES = [
  { key: 'correctness', focus: 'CORRECTNESS BUGS: None hazards, blocking I/O in async code, off-by-one.' },
  { key: 'architecture-boundary', focus: 'BOUNDARY PURITY: kernel importing drivers, circular imports.' },
  { key: 'type-safety', focus: 'TYPE SAFETY: legacy typing, unsound casts.' },
]

phase('Find')
const finderResults = await parallel(LENSES.map((l) => () =>
  agent(`${CONTEXT}\n\nTASK: Review lens — ${l.key}.\n${l.focus}`, { label: `find:${l.key}`, phase: 'Find', schema: FINDING_SCHEMA, effort: 'high' })
    .then((r) => (r && r.findings ? r.findings.map((f) => ({ ...f, lens: l.key })) : []))))
const allFindings = finderResults.filter(Boolean).flat()
log(`Collected ${allFindings.length} candidate findings across ${LENSES.length} lenses -> verifying`)

phase('Verify')
const verified = await parallel(allFindings.map((f, i) => () =>
  agent(`${CONTEXT}\n\nTASK: Adversarially VERIFY: ${f.title} at ${f.file}:${f.line}`, { label: `verify:${f.lens}#${i}`, phase: 'Verify', schema: VERDICT_SCHEMA, effort: 'high' })
    .then((v) => ({ finding: f, verdict: v }))))
const confirmed = verified.filter((x) => x && x.verdict && x.verdict.is_real)
  .map((x) => ({ ...x.finding, severity: x.verdict.corrected_severity, confidence: x.verdict.confidence, suggested_fix: x.verdict.suggested_fix }))

phase('Synthesize')
const order = { blocker: 0, important: 1, minor: 2, nit: 3 }
const sorted = confirmed.sort((a, b) => (order[a.severity] - order[b.severity]))
const digest = sorted.map((f) => `- [${f.severity}] (${f.category}) ${f.title}\n  ${f.file}:${f.line}\n  FIX: ${f.suggested_fix}`).join('\n\n')
const report = await agent(`${CONTEXT}\n\nWrite the final review from the CONFIRMED findings only:\n${digest || '(none confirmed)'}`, { label: 'synthesize', phase: 'Synthesize', effort: 'high' })
return {
  base: BASE,
  candidates: allFindings.length,
  confirmed: sorted.map((f) => ({ title: f.title, file: f.file, severity: f.severity })),
  verdict: sorted.some((f) => f.severity === 'blocker' || f.severity === 'important') ? 'needs-changes' : 'approve',
  report_markdown: report,
}
