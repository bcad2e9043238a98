#!/usr/bin/env bash
# Renders docs/runs-render.txt: real pi in tmux on the scripted faux parent of
# test/fixtures/faux-background-extension.ts, driven as a person would: start a background run, watch its widget,
# open /workflows, its run menu and a child's actions, stop the run from its menu, resume it, leave its menu open
# while it ends, and read the list once both have ended. test/e2e/runs-render.test.ts takes the same steps through
# a pi session (no tmux) and checks that every dialog and message here is what pi shows now, and that the excerpts in
# docs/children.md are lines of this file: run this script again when that test says the file is out of date (it updates
# those excerpts too, through scripts/readme-excerpts.ts).
# Usage: scripts/render-workflows.sh [out-file]   (needs tmux; no network; about a minute)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/docs/runs-render.txt}
# Short, so the record paths pi prints fit on a line of the pane.
work=$(mktemp -d /tmp/wfr-XXXXXX)
mkdir -p "$work/agent" "$work/acme-app"
sock="wf-render-$$"
printf 'set -g extended-keys on\n' >"$work/tmux.conf"
cleanup() {
	tm kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=lib/tmux-render.sh
. "$repo/scripts/lib/tmux-render.sh"

# Appends the lines from the last one matching $2 up to the next rule (a dialog's bottom edge or the editor's top
# edge) as section $1. A rule is a line of box-drawing dashes; index() compares bytes, which suits UTF-8 here.
section() {
	{
		printf '=== %s ===\n' "$1"
		pane | awk -v from="$2" '{ lines[NR] = $0; if ($0 ~ from) start = NR }
			END { if (!start) exit 1; for (i = start; i <= NR && index(lines[i], "───") != 1; i++) print lines[i] }'
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

# A run in the background: the call, the widget, /workflows, the run's menu, a child's actions.
tm send-keys -t render "Audit our dependencies in the background" Enter
until_shown 'audit-deps · check · 0 of ~4 agents · time left: not known yet · [3-9]\.[0-9]s'
tail_from "The call's result, the parent's answer, the run's widget above the editor, its status line below the footer" '^ *workflow inline script'
command "/workflows"
until_shown '↑↓ navigate'
section "/workflows while it runs: the selector" '^ *Workflow runs( ·|$)'
tm send-keys -t render Enter
until_shown '^ *→ Stop the run$'
section "Enter on the running run: its menu" '^ *Run wf-'
tm send-keys -t render Down Enter
until_shown 'Restart it'
section "Down and Enter on #1 acorn: what can be done to it" '^ *#1 acorn$'
tm send-keys -t render Escape

# Its checks done, the run writes its report: stop it from its menu.
until_shown 'audit-deps · report'
command "/workflows"
until_shown '↑↓ navigate'
tm send-keys -t render Enter
until_shown '^ *→ Stop the run$'
tm send-keys -t render Enter
until_shown '^ *Stop run wf-'
sleep 0.5
section "Stop the run, from its menu: the confirmation" '^ *Stop run wf-'
tm send-keys -t render Enter
until_shown 'The background run reported back'
sleep 1
section "After Yes: the run's completion message, the parent's answer, and the run as /workflows now shows it" '^ *■ audit-deps'

# Resume it: the checks replay from the journal, the report runs.
tm send-keys -t render "Resume the audit, in the background" Enter
until_shown 'audit-deps · report · 3 of ~4 agents'
tail_from "The resume: its call, the parent's answer, the widget (the checks replayed, the report running)" '^ *workflow resume of run'
command "/workflows"
until_shown '↑↓ navigate'
tm send-keys -t render Enter
until_shown '^ *→ Stop the run$'
section "Its menu, left open" '^ *Run wf-'
until_shown 'ended while this menu was open'
until_shown '^ *✓ audit-deps wf-'
# The parent's answer to the completion message.
sleep 2
section "The run ends: its completion message, the parent's answer, and the menu closing to say how it ended" '^ *✓ audit-deps wf-'
command "/workflows"
until_shown '↑↓ navigate'
section "/workflows after it ended" '^ *Workflow runs( ·|$)'
tm send-keys -t render Escape
echo "wrote $out"
# The excerpts of the file in docs/children.md, when it is the file that page quotes.
if [ "$out" = "$repo/docs/runs-render.txt" ]; then
	PATH="$repo/node_modules/.bin:$PATH" node "$repo/scripts/readme-excerpts.ts"
fi
