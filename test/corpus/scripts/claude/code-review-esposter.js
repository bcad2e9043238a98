// Equivalent of Esposter/Esposter .claude/workflows/code-review.js (written for this corpus): "[mode] <level>
// [target]" parsed from a string `args` with a named-group regex (`(?<word>\S+)`, flag `u`), Object.hasOwn,
// Array.prototype.toSorted and String.prototype.replaceAll, Claude Code's `effort` option at levels up to
// 'xhigh' and 'max', `model: 'opus'`, a top-level `return` for a probe, and find → verify-per-file → synthesize.
export const meta = {
  name: 'code-review',
  description: 'Code review in two modes (diff or area), an independent verifier per file, and a ranked report of what survived.',
  whenToUse: 'Pass args as "[mode] <level> [target]": mode is diff (default) or area; level is low, high, xhigh or max.',
  phases: [{ title: 'Scope' }, { title: 'Find' }, { title: 'Verify' }, { title: 'Synthesize' }],
}

const LEVEL_PARAMS = {
  low: { angles: 2, effort: 'medium', perAngle: 4 },
  high: { angles: 3, effort: 'high', perAngle: 6 },
  xhigh: { angles: 4, effort: 'xhigh', perAngle: 8 },
  max: { angles: 4, effort: 'max', perAngle: 12 },
}
const MODE_NAMES = new Set(['diff', 'area'])
const RAW_ARGS = (typeof args === 'string' ? args : '').trim()
const takeLeadingWord = (input, isWanted) => {
  const match = /^(?<word>\S+)(?<gap>\s*)/u.exec(input)
  return match && isWanted(match.groups.word) ? { rest: input.slice(match[0].length), word: match.groups.word } : { rest: input, word: '' }
}
const isLevelWord = (w) => Object.hasOwn(LEVEL_PARAMS, w)
const modeParse = takeLeadingWord(RAW_ARGS, (w) => MODE_NAMES.has(w))
const levelAfterMode = takeLeadingWord(modeParse.rest, isLevelWord)
const IS_MODE_INTENDED = modeParse.word !== '' && (modeParse.rest.trim() === '' || levelAfterMode.word !== '')
const levelParse = IS_MODE_INTENDED ? levelAfterMode : takeLeadingWord(RAW_ARGS, isLevelWord)
const MODE = IS_MODE_INTENDED ? modeParse.word : 'diff'
const LEVEL = levelParse.word || 'low'
const TARGET = levelParse.rest.trim()
const P = LEVEL_PARAMS[LEVEL]
const AGENT_MODEL = 'opus'

if (RAW_ARGS === 'probe') return { probe: true }
if (MODE === 'area' && !TARGET) return { error: 'Area mode needs a target, e.g. args: "area high packages/app/cache".' }
log(`${MODE} mode, ${LEVEL} effort, target: ${TARGET ? `"${TARGET.replaceAll(/\s+/gu, ' ').slice(0, 120)}"` : '(the working diff)'}`)

const CANDIDATES_SCHEMA = {
  type: 'object', required: ['candidates'],
  properties: { candidates: { type: 'array', items: { type: 'object', required: ['file', 'line', 'claim', 'kind'], properties: {
    file: { type: 'string' }, line: { type: 'integer' }, claim: { type: 'string' }, kind: { type: 'string', enum: ['correctness', 'conventions', 'cleanup'] },
  } } } },
}
const VERDICTS_SCHEMA = {
  type: 'object', required: ['verdicts'],
  properties: { verdicts: { type: 'array', items: { type: 'object', required: ['claim', 'verdict'], properties: {
    claim: { type: 'string' }, verdict: { type: 'string', enum: ['CONFIRMED', 'PLAUSIBLE', 'REFUTED'] },
  } } } },
}

phase('Scope')
const scopeNote = await agent(`Pin the ${MODE === 'area' ? 'file surface of ' + TARGET : 'diff command and changed files'}; list the CLAUDE.md files that govern it.`, { label: 'scope', phase: 'Scope', model: AGENT_MODEL, effort: P.effort })

phase('Find')
const angles = ['line-by-line', 'removed-behavior', 'cross-file', 'language-pitfalls'].slice(0, P.angles)
const found = await parallel(angles.map((angle) => () =>
  agent(`Angle ${angle}: report at most ${P.perAngle} candidates.\nScope:\n${scopeNote}`, { label: `find:${angle}`, phase: 'Find', model: AGENT_MODEL, effort: P.effort, schema: CANDIDATES_SCHEMA })))
const candidates = found.filter(Boolean).flatMap((r) => r.candidates)
const byFile = Map.groupBy ? Map.groupBy(candidates, (c) => c.file) : candidates.reduce((m, c) => m.set(c.file, [...(m.get(c.file) || []), c]), new Map())
const files = [...byFile.keys()].toSorted((a, b) => a.localeCompare(b))

phase('Verify')
const verified = await parallel(files.map((file) => () =>
  agent(`Verify each candidate in ${file}: ${JSON.stringify(byFile.get(file))}`, {
    label: `verify:${file}`, phase: 'Verify', model: AGENT_MODEL, schema: VERDICTS_SCHEMA,
    effort: byFile.get(file).every((c) => c.kind === 'cleanup') ? 'low' : P.effort,
  })))
const surviving = verified.filter(Boolean).flatMap((v) => v.verdicts).filter((v) => v.verdict !== 'REFUTED')

phase('Synthesize')
const report = await agent(`Merge duplicates and rank every surviving finding:\n${JSON.stringify(surviving)}`, { label: 'synthesize', phase: 'Synthesize', model: AGENT_MODEL, effort: P.effort })
return { report, stats: { mode: MODE, level: LEVEL, candidates: candidates.length, reported: surviving.length } }
