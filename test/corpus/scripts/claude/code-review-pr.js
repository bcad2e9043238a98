// Equivalent of EqualExperts/nam-2026-conference .claude/workflows/code-review.js (written for this corpus): a
// hoisted `async function publish()` that the top level calls in `return publish(...)` before its declaration,
// `phase()` called inside that function, `args` as a number or `{ pr, workdir }`, async thunks in parallel()
// (`async () => first[i] || lens(...)`), `Math.min(...spread)`, a Map built from entries, and `effort`.
export const meta = {
  name: 'code-review',
  description: 'Review a pull request: independent lenses, a skeptic per blocker, one comment and a verdict with a confidence',
  whenToUse: 'Reviewing a pull request against its ticket and CLAUDE.md — /code-review 42.',
  phases: [
    { title: 'Context', detail: 'the PR, its ticket, what humans said' },
    { title: 'Review', detail: 'criteria · rules · logic · tests' },
    { title: 'Verify', detail: 'a skeptic per blocker' },
    { title: 'Publish', detail: 'one comment, one verdict line' },
  ],
}

const pr = Number(typeof args === 'object' && args ? args.pr : args)
if (!Number.isInteger(pr) || pr <= 0) return { verdict: 'error', reason: `code-review needs a PR number, got ${JSON.stringify(args)}` }
const WORKDIR = typeof args === 'object' && args && args.workdir
const HERE = WORKDIR ? `Work in ${WORKDIR}, a checkout of the pull request.\n\n` : ''
const MAX_FINDINGS = 3

const CONTEXT = {
  type: 'object', required: ['issue', 'title', 'doneWhen', 'base', 'files', 'amendments'],
  properties: {
    issue: { type: 'integer' }, title: { type: 'string' }, doneWhen: { type: 'array', items: { type: 'string' } },
    base: { type: 'string' }, files: { type: 'array', items: { type: 'string' } }, amendments: { type: 'array', items: { type: 'string' } },
  },
}
const FINDINGS = {
  type: 'object', required: ['confidence', 'covered', 'findings'],
  properties: {
    confidence: { enum: ['high', 'medium', 'low'] }, covered: { type: 'string' },
    findings: { type: 'array', maxItems: 3, items: { type: 'object', required: ['severity', 'category', 'file', 'line', 'claim'], properties: {
      severity: { enum: ['blocker', 'note'] }, category: { enum: ['criterion-unmet', 'claude-md', 'logic', 'test-proves-nothing'] },
      file: { type: 'string' }, line: { type: 'integer' }, claim: { type: 'string' },
    } } },
  },
}
const REFUTATION = { type: 'object', required: ['refuted', 'why'], properties: { refuted: { type: 'boolean' }, why: { type: 'string' } } }
const POSTED = { type: 'object', required: ['ok', 'url'], properties: { ok: { type: 'boolean' }, url: { type: 'string' } } }

phase('Context')
const ctx = await agent(`${HERE}Gather what a review of pull request #${pr} needs: its ticket, Done-when criteria, human amendments.`, { phase: 'Context', label: 'context', schema: CONTEXT, effort: 'low' })
if (!ctx) return publish({ verdict: 'none', why: 'could not read the pull request' })
const ticket = ctx.issue ? `Pull request #${pr} for issue #${ctx.issue}: ${ctx.title}\nDone when:\n${ctx.doneWhen.map(c => `- ${c}`).join('\n')}` : `Pull request #${pr}: ${ctx.title}`

const LENSES = [
  { key: 'criteria', ask: 'For each Done-when criterion, find what satisfies it and the test that proves it.' },
  { key: 'rules', ask: 'Does the diff contradict a decision CLAUDE.md records?' },
  { key: 'logic', ask: 'Find logic errors the diff introduces, each with an input and the wrong output.' },
]
phase('Review')
const lens = (l, retry) => agent(`${HERE}${ticket}\n\nFiles: ${ctx.files.join(', ')}. Your lens only: ${l.ask}`, { phase: 'Review', label: `review:${l.key}${retry}`, schema: FINDINGS })
const first = await parallel(LENSES.map(l => () => lens(l, '')))
const reports = await parallel(LENSES.map((l, i) => async () => first[i] || lens(l, '-retry')))
const missing = LENSES.filter((l, i) => !reports[i]).map(l => l.key)
const done = reports.filter(Boolean)

const key = f => `${f.category}|${f.file}|${Math.floor((f.line || 0) / 10)}`
const raised = [...new Map(done.flatMap(r => r.findings).map(f => [key(f), f])).values()]
const blockers = raised.filter(f => f.severity === 'blocker')
phase('Verify')
const judged = await parallel(blockers.map(f => () =>
  agent(`${ticket}\n\nTry to REFUTE this blocker: [${f.category}] ${f.file}:${f.line} — ${f.claim}`, { phase: 'Verify', label: `skeptic:${f.category}`, schema: REFUTATION, effort: 'medium' })
    .then(v => (v && v.refuted ? null : f))))
const RANK = ['criterion-unmet', 'logic', 'claude-md', 'test-proves-nothing']
const confirmed = judged.filter(Boolean).sort((a, b) => RANK.indexOf(a.category) - RANK.indexOf(b.category))
const shown = confirmed.slice(0, MAX_FINDINGS)
const LEVELS = ['low', 'medium', 'high']
const confidence = missing.length ? 'low' : LEVELS[Math.min(...done.map(r => LEVELS.indexOf(r.confidence)))]
const covered = done.map(r => r.covered).join(' · ')

return publish(shown.length ? { verdict: 'fail', findings: shown, covered } : { verdict: 'pass', confidence, covered, notes: raised.filter(f => f.severity === 'note').slice(0, 2) })

async function publish(r) {
  const CALLOUT = { high: ['TIP', '●●●'], medium: ['NOTE', '●●○'], low: ['WARNING', '●○○'] }
  let body
  if (r.verdict === 'fail') body = `> [!CAUTION]\n> ### Code review · blocker\n\n` + r.findings.map(f => `**\`${f.file}:${f.line}\`** — ${f.claim}`).join('\n\n')
  else if (r.verdict === 'pass') {
    const [kind, meter] = CALLOUT[r.confidence]
    body = `> [!${kind}]\n> ### Code review · ${r.confidence} confidence \`${meter}\`\n> Nothing to flag. Judged: ${r.covered}`
  } else body = `> [!WARNING]\n> ### Code review · did not finish\n> ${r.why}.`
  phase('Publish')
  const posted = await agent(`Post this as ONE comment on pull request #${pr}:\n\n${body}`, { phase: 'Publish', label: 'publish', schema: POSTED, effort: 'low' })
  return { verdict: r.verdict, confidence: r.confidence, pr, comment: posted ? posted.url : null, findings: r.findings || [] }
}
