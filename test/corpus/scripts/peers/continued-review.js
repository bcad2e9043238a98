// A peer-style script written for this corpus around the pi peers' `resume: "<label>"` (a child goes on with the
// conversation of an earlier child of the same run), on the shape of the adversarial-review built-in of
// YukiRa1n/pi-dynamic-workflows: a reviewer reads the code, then the same reviewer fixes what it found, then checks.
export const meta = {
  name: 'continued_review',
  description: 'Review, then have the same reviewer fix what it found',
  phases: [{ title: 'Review' }, { title: 'Fix' }, { title: 'Check' }],
}

const target = (args && args.target) || 'src/'

phase('Review')
const review = await agent('Review ' + target + ' for bugs. List each finding on its own line.', {
  label: 'reviewer', readOnly: true,
})

phase('Fix')
// The reviewer already read the code and knows what it said: it goes on from there instead of reading it again.
const fixed = await agent('Now fix what you found. Say which findings you fixed.', { resume: 'reviewer' })

phase('Check')
const verdict = await agent('Look again at your fixes: is anything you listed still open? Answer yes or no first.', {
  resume: 'reviewer',
})
return { findings: String(review).split('\n').filter(Boolean).length, fixed, verdict }
