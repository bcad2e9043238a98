#!/usr/bin/env bash
# Renders docs/commands-render.txt: real pi in tmux, children on the faux provider of
# test/fixtures/faux-provider-extension.ts, driven as a person would: a saved workflow run as `/greet-team
# team=design` (no model turn), its ask() question in the widget, answered with `/workflows answer`, and the run's
# completion message. Usage: scripts/render-commands.sh [out-file]   (needs tmux; no network; about 20 s)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/docs/commands-render.txt}
work=$(mktemp -d /tmp/wfc-XXXXXX)
mkdir -p "$work/agent" "$work/acme-app/.pi/workflows"
sock="wf-commands-$$"
printf '' >"$work/tmux.conf"
cleanup() {
	tm kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=lib/tmux-render.sh
. "$repo/scripts/lib/tmux-render.sh"

cat >"$work/acme-app/.pi/workflows/greet-team.js" <<'SCRIPT'
export const meta = {
  name: "greet-team",
  description: "Ask how to greet a team, then have an agent greet it",
  args: { type: "object", properties: { team: { type: "string" } }, required: ["team"] },
};
const tone = await ask(`How should I greet ${args.team}?`, { choices: ["warmly", "briefly"] });
const greeting = await agent(`echo ${tone} hello to ${args.team}`, { label: "greet" });
return { tone, greeting };
SCRIPT

pi_version=$(PATH="$repo/node_modules/.bin:$PATH" pi --version 2>/dev/null || echo "?")
{
	echo "pi $pi_version in a 100x30 tmux pane, faux provider, made by scripts/render-commands.sh (colours left out)."
	echo
} >"$out"
cd "$work/acme-app"
git init -q .
tm new-session -d -s render -x 100 -y 30 \
	"env PATH='$repo/node_modules/.bin':\"\$PATH\" PI_CODING_AGENT_DIR='$work/agent' \
	pi --offline -e '$repo/src/pi.ts' -e '$repo/test/fixtures/faux-provider-extension.ts' --model faux/faux-1"
until_shown 'faux-1'
command "/greet-team team=design"
until_shown 'How should I greet design'
sleep 1
tail_from_first "/greet-team team=design: the run starts with no model turn; its question waits in the widget" 'greet-team'
command "/workflows answer warmly"
until_shown '✓ greet-team'
sleep 1
tail_from_first "/workflows answer warmly: the run goes on, and its completion message reaches the conversation (no model turn)" 'Background workflow run'
echo "wrote $out"
