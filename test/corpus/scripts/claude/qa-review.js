// Equivalent of TheArchitectit/openagentplatform .claude/workflows/qa-review.js (written for this corpus):
// top-level `var`, string concatenation prompts, `model: 'haiku'`/'sonnet', and review agents started without
// `await` whose promises are passed to JSON.stringify later (the original does this; it runs, the report just
// sees "{}" for each) while the run goes on to later phases.
export const meta = {
  name: 'qa-review',
  description: 'QA review of delivered sprints: code quality, security, integration, docs',
  phases: [
    { title: 'Structure', detail: 'Filesystem audit' },
    { title: 'Review', detail: 'Parallel domain reviews' },
    { title: 'CrossCut' },
    { title: 'Report' },
  ],
}

log('QA review starting')
var repoRoot = '/srv/git/platform'
var FINDING_SCHEMA = {
  type: 'object',
  properties: {
    findings: { type: 'array', items: { type: 'object', properties: {
      severity: { type: 'string', enum: ['critical', 'high', 'medium', 'low', 'info'] },
      category: { type: 'string', enum: ['bug', 'security', 'perf', 'style', 'missing', 'integration', 'docs'] },
      file: { type: 'string' }, line: { type: 'number' }, title: { type: 'string' },
    }, required: ['severity', 'category', 'title'] } },
  },
  required: ['findings'],
}

phase('Structure')
var structure = await agent('Audit the filesystem structure of ' + repoRoot + '.\n' + 'Report file counts by language.', { label: 'structure-audit', phase: 'Structure', model: 'haiku' })

phase('Review')
var backendReview = agent('Review the backend at ' + repoRoot + '/internal/.', { label: 'review-backend', phase: 'Review', model: 'sonnet', schema: FINDING_SCHEMA })
var frontendReview = agent('Review the frontend at ' + repoRoot + '/web/src/.', { label: 'review-frontend', phase: 'Review', model: 'sonnet', schema: FINDING_SCHEMA })
var securityReview = agent('Security review of ' + repoRoot + '.', { label: 'review-security', phase: 'Review', model: 'sonnet', schema: FINDING_SCHEMA })

phase('CrossCut')
var crossCut = await agent('Cross-cutting integration analysis at ' + repoRoot + '.', { label: 'cross-cut', phase: 'CrossCut', model: 'haiku' })

phase('Report')
var report = await agent(
  'Synthesize all QA findings into a prioritized report.\n' +
  'Backend review: ' + JSON.stringify(backendReview) + '\n' +
  'Frontend review: ' + JSON.stringify(frontendReview) + '\n' +
  'Security review: ' + JSON.stringify(securityReview) + '\n' +
  'Structure audit: ' + JSON.stringify(structure) + '\n' +
  'Cross-cut: ' + JSON.stringify(crossCut),
  { label: 'synthesis-report', phase: 'Report', model: 'sonnet' }
)

return { status: 'QA review complete', phases: { structure: structure, crossCut: crossCut, report: report } }
