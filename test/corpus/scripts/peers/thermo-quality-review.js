// Equivalent of alexanderop/pi-dynamic-workflow-extension .pi/workflows/scripts/thermo_quality_review.workflow.js
// (written for this corpus): `cwd` in prompts, a strict findings schema, parallel reviewers with a custom agent
// type, and the extension's `artifact(name, value, { type, description })` global, which writes a file into the
// run's artifact folder — a construct this runtime has no equivalent for (a script returns its data instead).
export const meta = {
  name: "thermo_quality_review",
  description: "Deep code quality review of current working tree changes",
  phases: [{ title: "Map" }, { title: "Review" }, { title: "Synthesize" }],
};

const FINDINGS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["area", "findings"],
  properties: {
    area: { type: "string" },
    findings: { type: "array", items: { type: "object", additionalProperties: false, required: ["severity", "file", "title"], properties: {
      severity: { type: "string", enum: ["blocker", "major", "minor"] }, file: { type: "string" }, title: { type: "string" },
    } } },
  },
};

phase("Map");
log("Reviewing current working tree changes for structural quality.");
const prompts = [
  { label: "review:architecture", area: "architecture", prompt: "Repo root: " + cwd + "\nStructural review of the working tree changes." },
  { label: "review:sandbox", area: "sandbox-boundary", prompt: "Repo root: " + cwd + "\nReview the sandbox boundary for leaks." },
];

phase("Review");
const reviews = await parallel(prompts.map((item) => () => agent(item.prompt, { label: item.label, phase: "Review", schema: FINDINGS_SCHEMA, agentType: "reviewer" })));
log("Collected " + reviews.length + " review reports");

phase("Synthesize");
const report = await agent("Synthesize these review reports:\n" + JSON.stringify(reviews, null, 2), { label: "synthesize", phase: "Synthesize", agentType: "reviewer" });
artifact("thermo_quality_review_inputs.json", reviews, { type: "json", description: "Raw parallel review findings" });
artifact("thermo_quality_review_synthesis.md", report, { type: "markdown", description: "Synthesized review draft" });
return { reviews, report };
