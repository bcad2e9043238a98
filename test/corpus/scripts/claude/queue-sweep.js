// Equivalent of sticklane/claude .claude/workflows/ultracode-queue-sweep.js (written for this corpus): a task
// list worked strictly in dependency order with for...of and `continue`, a phase per task named with a template
// (`phase(\`Task ${t.n}\`)`, each listed in meta), a `let` verifier result reassigned after one bounded fix round.
export const meta = {
  name: 'queue-sweep',
  description: 'Work the remaining task queue in dependency order: implement, verify, fix once, close per task',
  phases: [{ title: 'Task 10' }, { title: 'Task 02' }, { title: 'Task 03' }, { title: 'Task 05' }],
}

const TASKS = [
  { n: '10', slug: '10-adapters-retirement', deps: [] },
  { n: '02', slug: '02-package-init', deps: [] },
  { n: '03', slug: '03-ready-resume', deps: ['02'] },
  { n: '05', slug: '05-shadow-sync', deps: ['03', '04'] },
]
const IMPL_SCHEMA = {
  type: 'object',
  properties: { status: { enum: ['DONE', 'BLOCKED', 'DEFERRED'] }, summary: { type: 'string' }, deferred_questions: { type: 'array', items: { type: 'string' } } },
  required: ['status', 'summary'],
}
const VERIFY_SCHEMA = { type: 'object', properties: { pass: { type: 'boolean' }, failures: { type: 'array', items: { type: 'string' } } }, required: ['pass'] }

const done = new Set()
const results = []
for (const t of TASKS) {
  const missing = t.deps.filter((d) => !done.has(d))
  if (missing.length) {
    log(`task ${t.n}: SKIPPED — unmet deps: ${missing.join(', ')}`)
    results.push({ task: t.n, skipped: true, reason: `unmet deps ${missing.join(',')}` })
    continue
  }
  phase(`Task ${t.n}`)
  const impl = await agent(`Execute task ${t.n}: specs/tasks/${t.slug}.md`, { label: `impl:${t.n}`, phase: `Task ${t.n}`, agentType: 'implementation-worker', schema: IMPL_SCHEMA })
  if (!impl || impl.status !== 'DONE') { results.push({ task: t.n, impl: impl || { status: 'NULL' }, verified: false }); continue }
  let verify = await agent(`Fresh-eyes verification of task ${t.n}`, { label: `verify:${t.n}`, phase: `Task ${t.n}`, agentType: 'verifier', schema: VERIFY_SCHEMA })
  if (verify && !verify.pass) {
    const fix = await agent(`Fix round for task ${t.n}:\n${(verify.failures || []).map((f) => '- ' + f).join('\n')}`, { label: `fix:${t.n}`, phase: `Task ${t.n}`, agentType: 'implementation-worker', schema: IMPL_SCHEMA })
    if (fix && fix.status === 'DONE') verify = await agent(`Verification round 2 of task ${t.n}`, { label: `verify2:${t.n}`, phase: `Task ${t.n}`, agentType: 'verifier', schema: VERIFY_SCHEMA })
  }
  const ok = !!(verify && verify.pass)
  if (ok) done.add(t.n)
  results.push({ task: t.n, impl, verified: ok, deferred: impl.deferred_questions || [] })
}
return {
  verified: results.filter((r) => r.verified).map((r) => r.task),
  skipped: results.filter((r) => r.skipped).map((r) => r.task),
  deferred_questions: results.flatMap((r) => (r.deferred || []).map((q) => `task ${r.task}: ${q}`)),
}
