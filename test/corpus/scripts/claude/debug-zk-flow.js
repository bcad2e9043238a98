// Equivalent of matt-metivier/zk-flow-oss .claude/workflows/debug.js (written for this corpus): an inlined
// "fragment" helper with a destructured parameter object and defaults, a grade-gated bounded loop, conditional
// spreads (`...(model !== undefined && { model })`), a SCHEMAS table of draft-07 schemas with `$schema`, `title`
// and `const`, a fail-fast `throw new Error` on misconfiguration, and model tiers kept in a table (the original
// takes them from its model-tiers fragment; the values here are Claude Code's short names).
export const meta = {
  name: 'debug',
  description: 'Debug lifecycle: reproduce and root-cause, then fix, then test. Starts from a symptom.',
  phases: [{ title: 'Reproduce' }, { title: 'RootCause' }, { title: 'Fix' }, { title: 'Test' }],
}

const MODEL_TIERS = { fast: 'haiku', standard: 'sonnet', deep: 'opus' }
const PHASE_BUDGETS = { research: 2, impl: 2, testing: 2, backtrack: 0 }
const SCHEMAS = {
  review: {
    $schema: 'http://json-schema.org/draft-07/schema#', title: 'Review', type: 'object',
    required: ['verdict', 'weighted_score', 'findings'],
    properties: {
      verdict: { type: 'string', enum: ['APPROVE', 'REQUEST_CHANGES', 'BLOCK'] },
      weighted_score: { type: 'number', minimum: 0, maximum: 10 },
      findings: { type: 'array', items: { type: 'string' } },
    },
  },
  reproduce: {
    $schema: 'http://json-schema.org/draft-07/schema#', title: 'ReproduceOutput', type: 'object',
    required: ['outcome', 'steps'],
    properties: { outcome: { type: 'string', const: 'reproduced' }, steps: { type: 'array', items: { type: 'string' } } },
  },
  implementation: {
    $schema: 'http://json-schema.org/draft-07/schema#', title: 'ImplementationOutput', type: 'object',
    required: ['outcome', 'files_changed', 'tests_run'],
    properties: {
      outcome: { type: 'string', enum: ['lifecycle_complete', 'branch_updated'] },
      files_changed: { type: 'array', items: { type: 'object', required: ['file', 'change_type'], properties: { file: { type: 'string' }, change_type: { type: 'string', enum: ['add', 'modify', 'delete'] } } } },
      tests_run: { type: 'boolean' },
    },
  },
}

async function runPhase({ phasePrompt, phaseSchema, agentType, label, maxIterations, gradePrompt, model, gradeModel, posture = '', isolation = null, canEscalate = false, startTier = null }) {
  const WRITER_AGENT_TYPES = ['scope-locked-editor', 'pr-author']
  const enforcedIsolation = (!isolation && WRITER_AGENT_TYPES.includes(agentType)) ? 'worktree' : isolation
  const iso = enforcedIsolation ? { isolation: enforcedIsolation } : {}
  if (canEscalate && !startTier) throw new Error('runPhase: canEscalate=true requires startTier to be set')
  const withPosture = (p) => posture ? `${posture}\n\n${p}` : p
  const phaseName = label.split(':')[0]
  let out, grade, feedback = ''
  for (let i = 1; i <= maxIterations; i++) {
    out = await agent(withPosture(phasePrompt(i, feedback)), { schema: phaseSchema, agentType, label: `${label}:${i}`, ...(model !== undefined && { model }), ...iso })
    grade = await agent(`Phase: ${phaseName}. Rubric: prompts/rubrics/${phaseName}-rubric.md\n\n` + gradePrompt(out, i), {
      schema: SCHEMAS.review, agentType: 'grader', label: `${label}-grade:${i}`, ...(gradeModel !== undefined && { model: gradeModel }),
    })
    if (grade && grade.verdict === 'APPROVE') return { out, grade, ok: true, iterations: i }
    feedback = JSON.stringify((grade && grade.findings) || grade || {})
  }
  return { out, grade, ok: false, iterations: maxIterations, backtrackEligible: true }
}

const symptom = (typeof args === 'string' && args) || (args && args.symptom) || 'the reported failure'

phase('Reproduce')
const repro = await runPhase({
  phasePrompt: (i, fb) => `Reproduce: ${symptom}. Attempt ${i}. ${fb}`,
  phaseSchema: SCHEMAS.reproduce, agentType: 'investigator', label: 'reproduce', maxIterations: PHASE_BUDGETS.research,
  gradePrompt: (out) => `Grade this reproduction: ${JSON.stringify(out)}`, model: MODEL_TIERS.standard, gradeModel: MODEL_TIERS.fast,
})
if (!repro.ok) return { status: 'needs_human', phase: 'Reproduce', grade: repro.grade }

phase('RootCause')
const cause = await agent(`Find the root cause of: ${symptom}\nReproduction: ${JSON.stringify(repro.out)}`, { label: 'root-cause', agentType: 'investigator', model: MODEL_TIERS.deep })

phase('Fix')
const fix = await runPhase({
  phasePrompt: (i, fb) => `Fix the root cause: ${cause}. Attempt ${i}. ${fb}`,
  phaseSchema: SCHEMAS.implementation, agentType: 'scope-locked-editor', label: 'impl', maxIterations: PHASE_BUDGETS.impl,
  gradePrompt: (out) => `Grade this fix: ${JSON.stringify(out)}`, gradeModel: MODEL_TIERS.fast,
})

phase('Test')
const tested = await agent(`Run the tests for ${fix.out.files_changed.map(f => f.file).join(', ')}`, { label: 'test', agentType: 'tester', model: MODEL_TIERS.fast })
return { status: fix.ok ? 'done' : 'needs_human', cause, files: fix.out.files_changed, tested }
