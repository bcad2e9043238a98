#!/usr/bin/env bash
# Renders docs/runs-render.txt: real pi in tmux on the scripted faux parent of
# test/fixtures/faux-background-extension.ts, driven as a person would: start a background run, watch its widget,
# open /workflows, stop one run from it, start another, decline to stop it, and read the list once it has ended.
# Usage: scripts/render-workflows.sh [out-file]   (needs tmux; no network; about a minute)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/docs/runs-render.txt}
work=$(mktemp -d /tmp/wf-render-XXXXXX)
mkdir -p "$work/agent" "$work/acme-app"
sock="wf-render-$$"
tm() { tmux -L "$sock" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The pane, colours already left out by capture-pane, trailing spaces and blank lines trimmed.
pane() { tm capture-pane -p -t render | sed -e 's/[[:space:]]*$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
# Waits until the pane shows text matching $1 (grep -E), for up to 60 s.
until_shown() {
	for _ in $(seq 600); do
		if pane | grep -Eq -- "$1"; then return 0; fi
		sleep 0.1
	done
	echo "timed out waiting for: $1" >&2
	pane >&2
	exit 1
}
# Appends the lines from the last one matching $2 up to the next rule (the editor's top edge) as section $1.
section() {
	{
		printf '=== %s ===\n' "$1"
		pane | awk -v from="$2" '{ lines[NR] = $0; if ($0 ~ from) start = NR }
			END { for (i = start; i <= NR && lines[i] !~ /^─+$/; i++) print lines[i] }'
		printf '\n'
	} >>"$out"
}
# Appends the lines from the last one matching $2 to the end of the pane (editor, footer, status line) as section $1.
tail_from() {
	{
		printf '=== %s ===\n' "$1"
		pane | awk -v from="$2" '{ lines[NR] = $0; if ($0 ~ from) start = NR } END { for (i = start; i <= NR; i++) print lines[i] }'
		printf '\n'
	} >>"$out"
}

pi_version=$(PATH="$repo/node_modules/.bin:$PATH" pi --version 2>/dev/null || echo "?")
{
	echo "pi $pi_version in a 110x45 tmux pane, faux provider, made by scripts/render-workflows.sh (colours left out)."
	echo "Paths are the script's temp dirs: PI_CODING_AGENT_DIR=<tmp>/agent, the project is <tmp>/acme-app."
	echo
} >"$out"
cd "$work/acme-app"
git init -q .
tm new-session -d -s render -x 110 -y 45 \
	"env PATH='$repo/node_modules/.bin':\"\$PATH\" PI_CODING_AGENT_DIR='$work/agent' RENDER_CHILD_MS=12000 \
	pi --offline -e '$repo/src/pi.ts' -e '$repo/test/fixtures/faux-background-extension.ts' --model faux/faux-1"
until_shown 'faux-1'

# A run to stop.
tm send-keys -t render "Audit our dependencies in the background" Enter
until_shown 'audit-deps · check · 0/3 agents · [3-9]\.[0-9]s'
tm send-keys -t render "/workflows"
sleep 0.5
tm send-keys -t render Enter
until_shown '↑↓ navigate'
tm send-keys -t render Enter
until_shown '^ *Stop run wf-'
sleep 0.5
section "/workflows, then Enter on the running run: the stop confirmation" '^ *Stop run wf-'
tm send-keys -t render Enter
until_shown 'The background run reported back'
sleep 0.5
section "After Yes: the run's completion message, the parent's answer, and the run as /workflows now shows it" '^ *\[workflow-run\]$'


# A run to watch until it ends.
tm send-keys -t render "Audit them again, in the background" Enter
until_shown 'audit-deps · check · 0/3 agents · [3-9]\.[0-9]s'
tail_from "The call's result, the parent's answer, the run's widget above the editor, its status line below the footer" '^ *workflow inline script'

tm send-keys -t render "/workflows"
sleep 0.5
tm send-keys -t render Enter
until_shown '↑↓ navigate'
section "/workflows while it runs: the selector" '^ *Workflow runs$'
tm send-keys -t render Enter
until_shown '^ *Stop run wf-'
tm send-keys -t render Down Enter
until_shown 'audit-deps · report'
tail_from "After No: the run goes on, now in its report phase" '^ [^ ]+ audit-deps · report'

until_shown 'completed in [0-9.]+s: 4 agents'
sleep 0.5
section "The completion message and the parent's answer" '^ *\[workflow-run\]$'
tm send-keys -t render "/workflows"
sleep 0.5
tm send-keys -t render Enter
until_shown '↑↓ navigate'
section "/workflows after both runs ended" '^ *Workflow runs$'
tm send-keys -t render Escape
echo "wrote $out"
