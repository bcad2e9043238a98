// Equivalent of veuzebio/ihero .claude/workflows/refactor.js (written for this corpus): a list of thunks built
// up front and extended conditionally (`checkThunks.push(...)`) before one parallel(), object `args` with
// defaults, `.every`/`.flatMap` over schema results, and a report prompt in Portuguese with emoji.
export const meta = {
  name: 'refactor',
  description: 'Quality gate after a refactoring: type check, tests, a reviewer and an a11y check in parallel, then one report.',
  whenToUse: 'After completing a refactoring. Pass { files: string[], description: string } via args.',
  phases: [
    { title: 'Check', detail: 'all checks in parallel' },
    { title: 'Report', detail: 'consolidate results in pt-BR' },
  ],
}

const files = (args && args.files) ? args.files : []
const description = (args && args.description) ? args.description : 'No description provided.'
const htmlFiles = files.filter(f => f.endsWith('.html'))
const hasHtml = htmlFiles.length > 0
log(`Checking ${files.length} file(s): ${files.join(', ')}`)

const RESULT_SCHEMA = {
  type: 'object',
  properties: {
    passed: { type: 'boolean' },
    summary: { type: 'string' },
    items: { type: 'array', items: { type: 'object', properties: { severity: { type: 'string', enum: ['error', 'warning', 'info'] }, message: { type: 'string' }, location: { type: 'string' } }, required: ['severity', 'message'] } },
  },
  required: ['passed', 'summary', 'items'],
}

phase('Check')
const checkThunks = [
  () => agent('Run the type checker: npx tsc --noEmit. Map each error line to an item.', { label: 'tsc', phase: 'Check', schema: RESULT_SCHEMA }),
  () => agent('Run the unit tests: npx vitest run. Map failing tests to errors.', { label: 'vitest', phase: 'Check', schema: RESULT_SCHEMA }),
  () => agent(`Review these files after a refactoring: ${JSON.stringify(files)}\nGoal: ${description}`, { label: 'refactor-reviewer', phase: 'Check', schema: RESULT_SCHEMA }),
]
if (hasHtml) {
  checkThunks.push(() => agent(`Accessibility audit of: ${JSON.stringify(htmlFiles)}`, { label: 'a11y-check', phase: 'Check', schema: RESULT_SCHEMA }))
}
const checkResults = await parallel(checkThunks)

phase('Report')
const results = checkResults.filter(Boolean)
const allPassed = results.every(r => r.passed)
const errors = results.flatMap(r => r.items.filter(i => i.severity === 'error'))
const warnings = results.flatMap(r => r.items.filter(i => i.severity === 'warning'))
const checkLabels = ['tsc', 'vitest', 'refactor-reviewer']
if (hasHtml) checkLabels.push('a11y-check')
const report = await agent(`Produza um relatório de qualidade pós-refatoração em português (pt-BR):\n\nObjetivo: ${description}\n${results.map((r, i) => `${checkLabels[i]}: ${JSON.stringify(r)}`).join('\n')}\n\n1. Status geral (✅ todos os checks passaram OU ❌ X erros encontrados)`, { label: 'report', phase: 'Report' })
return { passed: allPassed, errorCount: errors.length, warningCount: warnings.length, report }
