/**
 * The report page's style and script, inlined in every file (nothing is fetched). The script only reads the call
 * data from a JSON element and writes it with `textContent`, so no string from a script or a model becomes markup.
 */
import type { OUTCOMES } from "./types.ts";

/** Each outcome's colour: the bars, the legend and the header's counts use the same. */
export const OUTCOME_COLOURS: Record<(typeof OUTCOMES)[number] | "queued", string> = {
	completed: "#2e9d5b",
	failed: "#d64545",
	stalled: "#e08a1e",
	restarted: "#8e5bd6",
	skipped: "#9aa0a6",
	stopped: "#56606e",
	replayed: "#4a90d9",
	running: "#e6c229",
	queued: "#cfd5dd",
};

/** The page's CSS. */
export function pageStyle(): string {
	const colours = Object.entries(OUTCOME_COLOURS)
		.map(([outcome, colour]) => `.o-${outcome}{fill:${colour};background:${colour}}`)
		.join("");
	return `
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#fafbfc}
main{padding:16px 20px 120px}h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 6px}h3{font-size:13px;margin:14px 0 4px}
.sub{color:#5b6473}.stats{display:flex;flex-wrap:wrap;gap:6px 18px;margin:10px 0}.stats b{font-weight:600}
.chip{display:inline-block;padding:1px 7px;border-radius:9px;color:#fff;margin-right:4px;font-size:12px}
.chip.o-skipped,.chip.o-queued,.chip.o-running{color:#1d2330}
.note{background:#fff7e0;border:1px solid #f0d58a;padding:6px 10px;border-radius:4px;margin:6px 0}
.problem{background:#fdeaea;border-color:#f2b6b6}
svg{display:block;background:#fff;border:1px solid #e3e6ea;margin:4px 0}
text{font:11px system-ui,sans-serif;fill:#1d2330}.row{fill:#5b6473}.tt{fill:#5b6473;text-anchor:middle}
.tick{stroke:#eef0f3}.phase{fill:#e7ecf7;stroke:#b8c4e0}.pl{fill:#33436b}
.band.wait{fill:#f6d7a7}.band.question{fill:#c9e3f6}.mark.info{fill:#7a8699}.mark.warn{fill:#e08a1e}.mark.error{fill:#d64545}
.gh{fill:#f1f3f6}.gt{font-weight:600}.lane:hover .ll,.lane.sel .ll{font-weight:700}.why .ll{fill:#8e5bd6}
.b{cursor:pointer}.b:hover{stroke:#1d2330;stroke-width:1}.run-line{fill:none;stroke:#2e9d5b;stroke-width:1.5}
.queue-line{fill:none;stroke:#9aa0a6;stroke-dasharray:4 3}.q{fill:#9aa0a6}
${colours}
table{border-collapse:collapse;background:#fff;margin:4px 0}td,th{border:1px solid #e3e6ea;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f6}td.num{text-align:right;font-variant-numeric:tabular-nums}.bar{display:inline-block;height:8px;background:#4a90d9;vertical-align:middle}
pre{white-space:pre-wrap;word-break:break-word;margin:0;font:12px ui-monospace,Menlo,Consolas,monospace}
del{background:#fde2e2;text-decoration:line-through}ins{background:#dcf5e3;text-decoration:none}
#detail{position:fixed;right:12px;bottom:12px;width:440px;max-height:60vh;overflow:auto;background:#fff;border:1px solid #c8ced6;
box-shadow:0 2px 10px rgba(0,0,0,.15);border-radius:6px;padding:10px 12px;display:none}#detail.on{display:block}
#detail dt{font-weight:600;color:#5b6473;margin-top:4px}#detail dd{margin:0 0 2px}
.legend span{margin-right:10px}.legend i{display:inline-block;width:10px;height:10px;margin-right:3px;vertical-align:-1px}
details>summary{cursor:pointer;font-weight:600;margin:8px 0}`;
}

/** The page's script: the detail box for a hovered or clicked call, then the "ready" mark the bench waits for. */
export function pageScript(): string {
	return `(function(){
var D=JSON.parse(document.getElementById("report-data").textContent),box=document.getElementById("detail"),pinned=false,sel=null;
var F=[["label","Label"],["type","Agent type"],["continues","Continues"],["model","Model"],["outcome","Outcome"],["phase","Phase"],["attempts","Attempts"],["time","Time"],["tokens","Tokens"],["cost","Cost"],["tools","Tool uses"],["prompt","Prompt"],["answer","Answer"],["error","Error"],["branch","Branch"],["transcript","Conversation"],["why","Why it ran again"],["decided","What decided the run"]];
function show(i){var c=D[i];if(!c)return;if(c.ref!==undefined){var o=D[+c.ref]||{},m={};for(var a in o)m[a]=o[a];for(var b in c)m[b]=c[b];delete m.time;c=m;}box.textContent="";var dl=document.createElement("dl");
for(var k=0;k<F.length;k++){var v=c[F[k][0]];if(v===undefined||v==="")continue;var dt=document.createElement("dt");dt.textContent=F[k][1];
var dd=document.createElement("dd");var pre=document.createElement("pre");pre.textContent=String(v);dd.appendChild(pre);dl.appendChild(dt);dl.appendChild(dd);}
box.appendChild(dl);box.className="on";box.dataset.call=String(i);}
function target(e){var t=e.target;return t&&t.closest?t.closest("[data-c]"):null;}
document.addEventListener("mouseover",function(e){var t=target(e);if(t&&!pinned)show(+t.getAttribute("data-c"));});
document.addEventListener("click",function(e){var t=target(e);if(t){pinned=true;if(sel)sel.classList.remove("sel");sel=t;t.classList.add("sel");show(+t.getAttribute("data-c"));}
else if(!box.contains(e.target)){pinned=false;box.className="";}});
document.documentElement.setAttribute("data-ready","1");if(window.performance&&performance.mark)performance.mark("report-ready");
})();`;
}
