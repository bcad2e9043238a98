// Equivalent of matt-metivier/zk-flow-oss .claude/workflows/review-council.js (written for this corpus): review
// depths in a table, `in` checks with a thrown Error for an unknown depth, a switch that routes verdicts,
// draft-07 schemas with `$schema`/`title`/`description`, and one reviewer per perspective in parallel().
export const meta = {
  name: 'review',
  description: 'Multi-perspective code review with depth modes (none/light/standard/full)',
  phases: [{ title: 'Perspectives' }, { title: 'Synthesis' }],
}

const REVIEW_DEPTHS = {
  none: [],
  light: ['correctness', 'obvious-bugs'],
  standard: ['correctness', 'obvious-bugs', 'security', 'error-handling'],
  full: ['correctness', 'obvious-bugs', 'security', 'error-handling', 'performance', 'maintainability'],
}
const DEFAULT_PERSPECTIVES = ['advocate', 'critic', 'security', 'simplify']
function validPerspectives(list) {
  const filtered = list.filter(p => DEFAULT_PERSPECTIVES.includes(p) || ['persona', 'repo-conventions'].includes(p))
  return filtered.length ? filtered : DEFAULT_PERSPECTIVES
}
function criteriaForDepth(depth) {
  if (!(depth in REVIEW_DEPTHS)) throw new Error(`unknown review depth: ${depth}`)
  return REVIEW_DEPTHS[depth]
}
function routeVerdict(verdict) {
  switch (verdict) {
    case 'APPROVE': return 'done'
    case 'REQUEST_CHANGES': return 'impl'
    case 'BLOCK': return 'needs_human'
    default: return 'needs_human'
  }
}

const SCHEMAS = {
  perspective: {
    $schema: 'http://json-schema.org/draft-07/schema#', title: 'PerspectiveReview',
    description: 'One reviewer perspective on the change.',
    type: 'object', required: ['perspective', 'verdict', 'findings'],
    properties: {
      perspective: { type: 'string' },
      verdict: { type: 'string', enum: ['APPROVE', 'REQUEST_CHANGES', 'BLOCK'] },
      findings: { type: 'array', items: { type: 'object', required: ['severity', 'summary'], properties: { severity: { type: 'string', enum: ['low', 'medium', 'high'] }, summary: { type: 'string' }, file: { type: 'string' } } } },
    },
  },
  synthesis: {
    $schema: 'http://json-schema.org/draft-07/schema#', title: 'ReviewSynthesis', type: 'object',
    required: ['verdict', 'summary'],
    properties: { verdict: { type: 'string', enum: ['APPROVE', 'REQUEST_CHANGES', 'BLOCK'] }, summary: { type: 'string' } },
  },
}

const input = (args && typeof args === 'object') ? args : {}
const depth = input.depth || 'standard'
const criteria = criteriaForDepth(depth)
const perspectives = validPerspectives(Array.isArray(input.perspectives) ? input.perspectives : [])
if (criteria.length === 0) return { verdict: 'APPROVE', route: 'done', note: 'depth none: review skipped' }

phase('Perspectives')
const reviews = await parallel(perspectives.map(p => () =>
  agent(`Review the current diff as the ${p} perspective. Evaluate only: ${criteria.join(', ')}.`, {
    label: `review:${p}`, phase: 'Perspectives', agentType: 'reviewer', schema: SCHEMAS.perspective,
  })))

phase('Synthesis')
const synthesis = await agent(`Synthesize these reviews into one verdict:\n${JSON.stringify(reviews.filter(Boolean))}`, {
  label: 'review:synthesis', phase: 'Synthesis', schema: SCHEMAS.synthesis,
})
return { ...synthesis, route: routeVerdict(synthesis.verdict), depth, perspectives }
