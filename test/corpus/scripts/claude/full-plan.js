// Equivalent of TheArchitectit/openagentplatform .claude/workflows/full-plan.js (written for this corpus):
// Claude Code's short model names (`model: 'haiku'`, `model: 'sonnet'`), parallel() over Object.entries with
// destructured pairs, plain-text answers joined into later prompts, and a string returned as the result.
export const meta = {
  name: 'full-implementation-plan',
  description: 'Exhaustive implementation plan covering subsystems, data models, APIs, infra, testing and docs',
  phases: [
    { title: 'Analyze', detail: 'read the research report and the codebase' },
    { title: 'Domain Plans', detail: 'parallel plans for each domain' },
    { title: 'Cross-Cut' },
    { title: 'Sequencing' },
    { title: 'Synthesize' },
  ],
}

phase('Analyze')
const reportArtifacts = await agent('Read docs/RESEARCH_REPORT.md and extract every implementable artifact.', { label: 'analyze:report', phase: 'Analyze', model: 'haiku' })
const codebaseState = await agent('List every directory and key file and whether to keep, extend or replace it.', { label: 'analyze:codebase', phase: 'Analyze', model: 'haiku' })
log('Analysis complete')

phase('Domain Plans')
const domainSpecs = {
  'core': 'Plan the core subsystem: models, REST endpoints, background tasks.',
  'gateway': 'Plan the gateway: task lifecycle state machine, routing, auth.',
  'frontend': 'Plan the frontend: routes, server state, dashboards.',
}
const domainPlans = await parallel(Object.entries(domainSpecs).map(([domain, spec]) => () =>
  agent(`You are a senior architect planning the "${domain}" domain.\n\n${spec}\n\nContext:\n${reportArtifacts}\n${codebaseState}`, {
    label: `plan:${domain}`,
    phase: 'Domain Plans',
    model: 'sonnet',
  })))
log(`Domain plans complete: ${domainPlans.filter(Boolean).length} domains planned`)

phase('Cross-Cut')
const crossCutSpecs = { auth: 'Plan auth and RBAC.', testing: 'Plan the testing strategy.' }
const crossCutPlans = await parallel(Object.entries(crossCutSpecs).map(([area, spec]) => () =>
  agent(`Plan the "${area}" cross-cutting concern.\n\n${spec}`, { label: `plan:${area}`, phase: 'Cross-Cut', model: 'sonnet' })))

phase('Sequencing')
const sequencingPlan = await agent(`Create a phased roadmap from these plans:\n${domainPlans.filter(Boolean).map((p, i) => `--- Domain ${i}: ${p.slice(0, 200)}...`).join('\n')}`, {
  label: 'plan:sequencing', phase: 'Sequencing', model: 'sonnet',
})

phase('Synthesize')
const masterPlan = await agent(`Synthesize the master plan.\n\nDOMAIN PLANS:\n${domainPlans.filter(Boolean).join('\n\n---\n\n')}\n\nCROSS-CUT:\n${crossCutPlans.filter(Boolean).join('\n\n')}\n\nSEQUENCING:\n${sequencingPlan}`, {
  label: 'synthesize:master-plan',
  phase: 'Synthesize',
})

return masterPlan
