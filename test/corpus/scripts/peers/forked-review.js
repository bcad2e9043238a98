// A peer-style script written for this corpus around pi-dynamic-workflows' `contextMode: "fork"` (the reviewers
// start from the session's conversation, so they know what was decided), on the shape of the adversarial-review
// built-in of YukiRa1n/pi-dynamic-workflows: a forked planner, forked reviewers in parallel, a fresh summary.
export const meta = {
  name: 'forked_review',
  description: 'Review what the session decided, from the session itself',
  phases: [{ title: 'Recall' }, { title: 'Review' }, { title: 'Summarise' }],
}

const focus = (args && args.focus) || 'the plan we agreed on'

phase('Recall')
const recalled = await agent('From our conversation so far, list the decisions made about ' + focus + '.', {
  label: 'recall', contextMode: 'fork',
  schema: { type: 'object', properties: { decisions: { type: 'array', items: { type: 'string' } } }, required: ['decisions'] },
})
const decisions = recalled && Array.isArray(recalled.decisions) ? recalled.decisions : []

phase('Review')
const reviews = await parallel(decisions.map((d, i) => () =>
  agent('Given what we discussed, what could go wrong with this decision?\nDECISION: ' + d, {
    label: 'review ' + (i + 1), contextMode: 'fork',
  })))

phase('Summarise')
// The summary needs no history: it gets the reviews in its prompt and starts fresh.
const summary = await agent('Summarise these reviews in five lines:\n' + reviews.filter(Boolean).join('\n---\n'), {
  label: 'summary', contextMode: 'fresh',
})
return { decisions: decisions.length, summary }
