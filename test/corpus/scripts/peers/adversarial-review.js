// Equivalent of the adversarial-review built-in of YukiRa1n/pi-dynamic-workflows (dist/adversarial-review.js;
// written for this corpus): parallel() nested inside parallel() per finding, `Array.from({ length })` reviewer
// panels, and a `.then` that turns votes into a ratio against a threshold from `args`.
export const meta = {
  name: 'adversarial_review',
  description: 'Adversarial review: findings cross-checked by independent skeptics',
  phases: [{ title: 'Investigate' }, { title: 'Refute' }, { title: 'Consensus' }],
}

const task = (args && args.task) || ''
const reviewers = (args && args.reviewers) || 2
const threshold = (args && args.threshold) || 0.5

phase('Investigate')
const investigation = await agent('Investigate and list concrete, individually-checkable findings:\n' + task, {
  label: 'investigate', schema: { type: 'object', properties: { findings: { type: 'array', items: { type: 'string' } } }, required: ['findings'] },
})
const findings = investigation && Array.isArray(investigation.findings) ? investigation.findings : []

phase('Refute')
const judged = await parallel(findings.map((f, i) => () =>
  parallel(Array.from({ length: reviewers }, (_, r) => () =>
    agent('You are a skeptical reviewer. Try to REFUTE this finding.\nTASK: ' + task + '\nFINDING: ' + f, {
      label: 'refute ' + (i + 1) + '.' + (r + 1),
      schema: { type: 'object', properties: { real: { type: 'boolean' }, reason: { type: 'string' } }, required: ['real'] },
    }))).then((votes) => {
    const valid = votes.filter(Boolean)
    const realCount = valid.filter((v) => v && v.real).length
    const ratio = valid.length ? realCount / valid.length : 0
    return { finding: f, realVotes: realCount, totalVotes: valid.length, survives: ratio >= threshold }
  })))
const survivors = judged.filter((j) => j && j.survives)

phase('Consensus')
const report = await agent('Write a final review report of the surviving findings:\n' + JSON.stringify(survivors), { label: 'consensus' })
return { total: findings.length, survivors, report }
