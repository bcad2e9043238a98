// Equivalent of sticklane/claude .claude/workflows/full-cutover-and-health-check.js (written for this corpus):
// three independent tracks in one parallel() destructured into three names: a pipeline() of two agent stages,
// an agent whose `.then(async ...)` awaits a second agent conditionally, and a plain schema call.
export const meta = {
  name: 'full-cutover-and-health-check',
  description: 'Cut the remaining repositories over, retire two skills, and health-check the skill set',
  phases: [{ title: 'Repo cutover' }, { title: 'Repo verify' }, { title: 'Retire skills' }, { title: 'Skill health' }],
}

const REPOS = [
  { name: 'hub', path: '/home/dev/hub' },
  { name: 'notes', path: '/home/dev/notes' },
]
const RESULT_SCHEMA = {
  type: 'object',
  properties: { status: { enum: ['DONE', 'BLOCKED', 'DEFERRED'] }, summary: { type: 'string' }, issues_created: { type: 'number' } },
  required: ['status', 'summary'],
}
const VERIFY_SCHEMA = { type: 'object', properties: { pass: { type: 'boolean' }, failures: { type: 'array', items: { type: 'string' } } }, required: ['pass'] }
const HEALTH_SCHEMA = {
  type: 'object',
  properties: { gate_result: { type: 'string' }, skills_missing_trigger_phrases: { type: 'array', items: { type: 'string' } } },
  required: ['gate_result'],
}

const [repoResults, retireResult, healthResult] = await parallel([
  () => pipeline(
    REPOS,
    (repo) => agent(`Cut ${repo.path} over to the issue tracker without losing data.`, { label: `adopt:${repo.name}`, phase: 'Repo cutover', agentType: 'implementation-worker', schema: RESULT_SCHEMA }),
    (implResult, repo) => agent(`Verify the cutover in ${repo.path}. Worker reported: ${JSON.stringify(implResult)}`, { label: `verify:${repo.name}`, phase: 'Repo verify', agentType: 'verifier', schema: VERIFY_SCHEMA })
      .then((verify) => ({ repo: repo.name, implResult, verify })),
  ),
  () => agent('Retire the two superseded skills, following the retirement checklist.', { label: 'retire:skills', phase: 'Retire skills', agentType: 'implementation-worker', schema: RESULT_SCHEMA })
    .then(async (implResult) => {
      if (!implResult || implResult.status !== 'DONE') return { implResult, critic: null }
      const critic = await agent('Review the just-committed retirement diff against the checklist.', { label: 'critic:retirement', phase: 'Retire skills', agentType: 'critic' })
      return { implResult, critic }
    }),
  () => agent('Health-check the skill set: run the evals and sweep every SKILL.md description.', { label: 'skill-health-check', phase: 'Skill health', schema: HEALTH_SCHEMA }),
])

return { repoResults, retireResult, healthResult }
