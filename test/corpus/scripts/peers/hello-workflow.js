// Equivalent of alexanderop/pi-dynamic-workflow-extension skills/hello-workflow/workflows/hello-workflow.js
// (written for this corpus): extra keys on a meta phase (`agentCount`, `agents`), a string `args` with a
// default, and the peer's `thinkingLevel: "minimal"` option.
export const meta = {
  name: "hello-workflow",
  description: "Run a tiny one-agent dynamic workflow smoke test.",
  whenToUse: "Verify that the dynamic workflow extension is installed and can launch a subagent.",
  phases: [
    { title: "Greet", detail: "Ask one subagent for a short success greeting.", agentCount: 1, agents: [{ label: "greet:hello" }] },
  ],
};

phase("Greet");
const topic = typeof args === "string" && args.trim().length > 0 ? args.trim() : "the dynamic workflow extension";
const greeting = await agent(`Write a one-paragraph greeting confirming this workflow ran. Topic: ${topic}`, {
  label: "greet:hello",
  phase: "Greet",
  thinkingLevel: "minimal",
});
return { ok: greeting !== null, greeting };
