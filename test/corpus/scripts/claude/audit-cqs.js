// Equivalent of jamie8johnson/cqs .claude/workflows/audit.js (written for this corpus): tuples destructured in
// map parameters, `model: 'opus'` chosen per category, a custom agent type, parallel(...).then(filter), an
// object `args` read defensively, a pure-JS tiering function, and a `phase()` the header does not list
// ('Disposition').
export const meta = {
  name: 'audit',
  description: 'Category code-audit fan-out in one parallel stage, then a synthesize stage that triages the findings',
  whenToUse: 'The discovery and synthesis half of an audit; optional args.churn names recently-changed areas.',
  phases: [{ title: 'Audit' }, { title: 'Synthesize' }],
}

const AUDITOR_MODEL = 'opus'
const FINDINGS_SCHEMA = {
  type: 'object',
  properties: {
    findings: { type: 'array', items: { type: 'object', properties: {
      title: { type: 'string', description: 'Short finding title' },
      difficulty: { type: 'string', enum: ['easy', 'medium', 'hard'] },
      impact: { type: 'string', enum: ['high', 'medium', 'low'] },
      location: { type: 'string' },
      existing_issue: { type: 'string' },
    }, required: ['title', 'difficulty', 'impact', 'location'] } },
    cleared: { type: 'string' },
  },
  required: ['findings', 'cleared'],
}
const CATEGORIES = [
  ['Code Quality', 'Dead code, duplication, complexity.', 'Run the dead-code report.'],
  ['Error Handling', 'Swallowed errors, lost context.', 'Grep for unwrap_or_default.'],
  ['Security', 'Injection, traversal, permissions.', 'Read SECURITY.md first.'],
  ['Performance', 'Quadratic loops, redundant clones.', 'Scrutinize hot loops.'],
]
const churn = (typeof args === 'object' && args && args.churn) ? String(args.churn) : 'Scrutinize the most recently-changed subsystems hardest.'

phase('Audit')
const results = await parallel(
  CATEGORIES.map(([cat, scope, mand]) => () =>
    agent(`You are the **${cat}** auditor.\n\nScope: ${scope}\n\nMandatory first step: ${mand}\n\nChurn focus: ${churn}`, {
      agentType: 'auditor',
      model: cat === 'Security' ? 'opus' : AUDITOR_MODEL,
      label: `audit:${cat}`,
      phase: 'Audit',
      schema: FINDINGS_SCHEMA,
    }).then((r) => ({ cat, ...r })))
).then((rs) => rs.filter(Boolean))

const findings = results.flatMap((r) => (r.findings || []).map((f) => ({ category: r.cat, ...f })))
log(`audit discovery: ${findings.length} findings across ${results.length} categories`)

function proposeTier(f) {
  if ((f.existing_issue || '').trim()) return 'P4'
  const hi = f.impact === 'high', easy = f.difficulty === 'easy', hard = f.difficulty === 'hard'
  if (easy && hi) return 'P1'
  if (hi && !hard) return 'P2'
  if (easy) return 'P3'
  return 'P4'
}
const proposed = findings.map((f) => ({ ...f, proposed_tier: proposeTier(f) }))

phase('Synthesize')
const TRIAGE_SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    rows: { type: 'array', items: { type: 'object', properties: {
      id: { type: 'string' }, title: { type: 'string' }, tier: { type: 'string', enum: ['P1', 'P2', 'P3', 'P4'] },
      route: { type: 'string', enum: ['auto-fix', 'issue', 'tracked', 'inline', 'drop'] }, fix_approach: { type: 'string' },
    }, required: ['id', 'title', 'tier', 'route', 'fix_approach'] } },
  },
  required: ['summary', 'rows'],
}
const synthesis = await agent(`Refine the tiers of these findings and write the triage:\n\n${JSON.stringify(proposed)}`, { model: 'opus', label: 'synthesize', phase: 'Synthesize', schema: TRIAGE_SCHEMA })
const rows = synthesis.rows || []

phase('Disposition')
const wantImplement = !!(args && args.implement)
const fixRows = rows.filter((r) => r.route === 'auto-fix')
log(`disposition: ${fixRows.length} auto-fix${wantImplement ? ' (implement ON)' : ' (prepare-only)'}`)
const specs = await parallel(fixRows.map((r) => () =>
  agent(`Produce a fix SPECIFICATION (data only) for ${r.id}: ${r.fix_approach}`, { agentType: 'Explore', label: `spec:${r.id}`, phase: 'Disposition' })))
return { summary: synthesis.summary, rows, specs: specs.filter(Boolean).length }
