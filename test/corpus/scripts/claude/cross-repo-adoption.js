// Equivalent of sticklane/claude .claude/workflows/cross-repo-beads-adoption.js (written for this corpus): a
// fixed list of repositories, pipeline() whose second stage receives (result, item), custom agent types,
// enum-only schema properties, template-literal prompts and optional chaining over possibly-null stage results.
export const meta = {
  name: 'cross-repo-adoption',
  description: 'Install the issue tracker and convert existing task state in each listed repository, then verify each',
  phases: [{ title: 'Adopt' }, { title: 'Verify' }],
}

const REPOS = [
  { name: 'automation', path: '/home/dev/automation' },
  { name: 'portfolio', path: '/home/dev/portfolio' },
  { name: 'interview-prep', path: '/home/dev/interview-prep' },
]

const RESULT_SCHEMA = {
  type: 'object',
  properties: {
    status: { enum: ['DONE', 'BLOCKED', 'DEFERRED'] },
    summary: { type: 'string' },
    issues_created: { type: 'number' },
    commits: { type: 'array', items: { type: 'string' } },
    pushed: { type: 'boolean' },
  },
  required: ['status', 'summary'],
}
const VERIFY_SCHEMA = {
  type: 'object',
  properties: { pass: { type: 'boolean' }, failures: { type: 'array', items: { type: 'string' } } },
  required: ['pass'],
}

function adoptPrompt(repo) {
  return `Do a complete tracker cutover in ${repo.path}. Chain "cd ${repo.path} && ..." in every shell call.
Convert every task file into an issue, count both sides and compare, then commit and push.`
}

function verifyPrompt(repo, implResult) {
  return `Fresh-eyes verification of the cutover in ${repo.path}. The worker reported: ${JSON.stringify(implResult)}
Recount the source material yourself; report pass:true only if every check holds.`
}

const results = await pipeline(
  REPOS,
  (repo) => agent(adoptPrompt(repo), { label: `adopt:${repo.name}`, phase: 'Adopt', agentType: 'implementation-worker', schema: RESULT_SCHEMA }),
  (implResult, repo) =>
    agent(verifyPrompt(repo, implResult), { label: `verify:${repo.name}`, phase: 'Verify', agentType: 'verifier', schema: VERIFY_SCHEMA })
      .then((verify) => ({ repo: repo.name, implResult, verify })),
)

return {
  summary: results.map((r) => ({
    repo: r?.repo,
    status: r?.implResult?.status,
    issues_created: r?.implResult?.issues_created,
    verified: r?.verify?.pass,
    failures: r?.verify?.failures || [],
  })),
}
