// Equivalent of the multi-perspective built-in of YukiRa1n/pi-dynamic-workflows (dist/adversarial-review.js
// generates it with the topic and perspectives baked in as JSON string literals; written for this corpus):
// literal thunks in parallel(), string concatenation with JSON.stringify of text answers.
export const meta = {
  name: 'multi_perspective_analysis',
  description: "Analyze from 3 different perspectives",
  phases: [{ title: 'Perspective Analysis' }, { title: 'Synthesis' }],
};

phase('Perspective Analysis');
const topic = "Should the team move the job queue from Redis to Postgres?";
const analyses = await parallel([
  () => agent("Analyze from technical perspective: " + topic, { label: "technical" }),
  () => agent("Analyze from product perspective: " + topic, { label: "product" }),
  () => agent("Analyze from security perspective: " + topic, { label: "security" }),
]);

phase('Synthesis');
const synthesis = await agent('Synthesize these different perspectives into a balanced analysis:\n' + 'Analyses: ' + JSON.stringify(analyses) + '\n' + 'Topic: ' + topic, { label: 'synthesizer' });
return { analyses, synthesis };
