// Equivalent of the codebase-audit built-in of YukiRa1n/pi-dynamic-workflows (dist/deep-research.js generates it;
// written for this corpus): a scope constant after phase(), literal thunks with slug labels, and text answers
// concatenated into the next prompt.
export const meta = {
  name: 'codebase_audit',
  description: "Codebase audit: src/server",
  phases: [{ title: 'Individual Checks' }, { title: 'Cross-Validation' }, { title: 'Report' }],
};

phase('Individual Checks');
const scope = "src/server";
const findings = await parallel([
  () => agent("Audit error handling across: " + scope, { label: "error-handling" }),
  () => agent("Audit input validation across: " + scope, { label: "input-validation" }),
  () => agent("Audit logging of secrets across: " + scope, { label: "logging-of-secrets" }),
]);

phase('Cross-Validation');
const validated = await agent('Cross-validate these audit findings. Remove false positives:\n' + JSON.stringify(findings), { label: 'validator' });

phase('Report');
const report = await agent('Generate a prioritized audit report with actionable recommendations:\n' + validated, { label: 'report-writer' });
return { findings, validated, report };
