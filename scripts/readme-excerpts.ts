/**
 * Brings docs/children.md's excerpts of docs/runs-render.txt up to date: each code block marked
 * `<!-- from docs/runs-render.txt -->` is replaced by the lines of the file that start and end as it does (run ids,
 * times and token counts aside) and are as many. `scripts/render-workflows.sh` runs it after writing the file;
 * test/e2e/runs-render.test.ts checks that every marked block is lines of the file.
 * Usage: node scripts/readme-excerpts.ts [render-file] [page]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const renderPath = process.argv[2] ?? join(root, "docs", "runs-render.txt");
const readmePath = process.argv[3] ?? join(root, "docs", "children.md");
const lines = readFileSync(renderPath, "utf8").split("\n");

/** A line less what changes from one render to the next. */
function key(line: string): string {
	return line
		.replace(/wf-\d{8}-\d{6}-[0-9a-z]{6}/g, "wf-")
		.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "")
		.replace(/\d+(\.\d+)?(ms|s|k)/g, "")
		.replace(/\s+/g, " ")
		.trim();
}

const marked = /<!-- from docs\/runs-render\.txt -->\n```\n([\s\S]*?)```/g;
const readme = readFileSync(readmePath, "utf8");
const missing: string[] = [];
const updated = readme.replace(marked, (whole, body: string) => {
	const block = body.replace(/\n$/, "").split("\n");
	const first = key(block[0] ?? "");
	const last = key(block.at(-1) ?? "");
	for (let i = 0; i + block.length <= lines.length; i++) {
		if (key(lines[i] ?? "") === first && key(lines[i + block.length - 1] ?? "") === last) {
			return `<!-- from docs/runs-render.txt -->\n\`\`\`\n${lines.slice(i, i + block.length).join("\n")}\n\`\`\``;
		}
	}
	missing.push(block[0] ?? "");
	return whole;
});
writeFileSync(readmePath, updated);
if (missing.length > 0) {
	console.error(
		`Excerpts in ${readmePath} with no match in ${renderPath} (update them by hand):\n${missing.join("\n")}`,
	);
	process.exit(1);
}
console.log(`updated the excerpts in ${readmePath} of ${renderPath}`);
