// Equivalent of snowzhaozhj/claude-devtools-rs .claude/workflows/bug-hunt.js (written for this corpus): an
// object `args` read without a guard (`args.scope`), spreads of two mapped lists into one parallel() array,
// `agentType` taken from data, integer schemas with minimum/maximum, parallel().then(filter), and an object
// destructured from a pure-JS classifier's result.
export const meta = {
  name: 'bug-hunt',
  description: 'Fan-out lenses plus batch gate verification for structured bug hunting',
  phases: [
    { title: 'Scan', detail: 'lenses and domain reviewers scan in parallel' },
    { title: 'Gate', detail: 'batch verify candidates per lens' },
  ],
}

const ALL_LENSES = [
  { id: 'L1', name: 'silent-failures', prompt: 'Find swallowed errors and discarded results.' },
  { id: 'L2', name: 'boundaries', prompt: 'Find off-by-one errors and empty-collection panics.' },
  { id: 'L3', name: 'concurrency', prompt: 'Find races, leaked tasks and blocking calls in async code.' },
  { id: 'L6', name: 'test-pseudo-coverage', prompt: 'Find tests that do not verify what they claim.' },
]
const CANDIDATE_SCHEMA = {
  type: 'object', additionalProperties: false,
  properties: { lens: { type: 'string' }, candidates: { type: 'array', items: { type: 'object', additionalProperties: false, properties: {
    antipattern: { type: 'string' }, file: { type: 'string' }, line: { type: 'integer' }, guess: { type: 'string' },
  }, required: ['antipattern', 'file', 'line', 'guess'] } } },
  required: ['lens', 'candidates'],
}
const GATED_SCHEMA = {
  type: 'object', additionalProperties: false,
  properties: { lens: { type: 'string' }, gatedFindings: { type: 'array', items: { type: 'object', additionalProperties: false, properties: {
    file: { type: 'string' }, line: { type: 'integer' }, gatesPassed: { type: 'integer', minimum: 0, maximum: 4 },
    confidence: { type: 'string', enum: ['confirmed', 'high', 'medium', 'low'] }, severity: { type: 'string', enum: ['critical', 'major', 'minor', 'nit'] },
  }, required: ['file', 'line', 'gatesPassed', 'confidence', 'severity'] } } },
  required: ['lens', 'gatedFindings'],
}

function getMatchedReviewers(scope, scopeType) {
  const reviewers = []
  if (scope.includes('src-tauri/')) reviewers.push({ type: 'tauri-config-reviewer', prompt: `Review Tauri configuration in ${scope}.` })
  if (scopeType === 'capability') reviewers.push({ type: 'spec-fidelity-reviewer', prompt: `Review spec coverage for ${scope}.` })
  reviewers.push({ type: 'rust-conventions-reviewer', prompt: `Review Rust conventions in ${scope}.` })
  return reviewers
}
function filterByRisk(lenses, riskLevel) {
  if (riskLevel === 'low') return lenses.filter(l => l.id === 'L1' || l.id === 'L2')
  if (riskLevel === 'medium') return lenses.filter(l => l.id !== 'L6')
  return lenses
}
function classifyByMatrix(gatedResults) {
  const findings = [], openQuestions = [], discarded = []
  for (const lensResult of gatedResults.filter(Boolean)) {
    for (const f of lensResult.gatedFindings) {
      if (f.severity === 'nit') { discarded.push(f); continue }
      if (f.confidence === 'confirmed' || f.confidence === 'high') findings.push(f)
      else if (f.confidence === 'medium') openQuestions.push(f)
      else discarded.push(f)
    }
  }
  const severityOrder = { critical: 0, major: 1, minor: 2, nit: 3 }
  findings.sort((a, b) => severityOrder[a.severity] - severityOrder[b.severity])
  return { findings, openQuestions, discarded }
}

const scope = args.scope
const scopeType = args.scopeType || 'crate'
const riskLevel = args.riskLevel || 'high'
const skipLenses = args.skipLenses || []
const lensesToRun = filterByRisk(ALL_LENSES, riskLevel).filter(l => !skipLenses.includes(l.id))
const matchedReviewers = getMatchedReviewers(scope, scopeType)

phase('Scan')
log(`Scanning scope: ${scope} (${scopeType}) with ${lensesToRun.length} lenses + ${matchedReviewers.length} domain reviewers`)
const scanResults = await parallel([
  ...lensesToRun.map(lens => () => agent(`${lens.prompt}\n\nScope to scan: ${scope}`, { label: `lens:${lens.id}:${lens.name}`, phase: 'Scan', schema: CANDIDATE_SCHEMA })),
  ...matchedReviewers.map(r => () => agent(r.prompt, { label: `reviewer:${r.type}`, phase: 'Scan', agentType: r.type, schema: CANDIDATE_SCHEMA })),
]).then(results => results.filter(Boolean))

const totalCandidates = scanResults.reduce((sum, r) => sum + (r.candidates ? r.candidates.length : 0), 0)
if (totalCandidates === 0) return { findings: [], openQuestions: [], discarded: [], metadata: { scope, totalCandidates: 0 } }

phase('Gate')
const gatedResults = await parallel(scanResults.filter(r => r.candidates && r.candidates.length > 0).map(lensResult => () =>
  agent(`Apply the 4 gates to each candidate from lens ${lensResult.lens}:\n${JSON.stringify(lensResult.candidates, null, 2)}`, { label: `gate:${lensResult.lens}`, phase: 'Gate', schema: GATED_SCHEMA })))
const { findings, openQuestions, discarded } = classifyByMatrix(gatedResults)
log(`Gate complete: ${findings.length} confirmed findings, ${openQuestions.length} open questions, ${discarded.length} discarded`)
return { findings, openQuestions, discarded: discarded.length, metadata: { scope, scopeType, riskLevel, totalCandidates } }
