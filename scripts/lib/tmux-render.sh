# Helpers shared by the render scripts (sourced, not run): a tmux server of their own on socket $sock with config
# $work/tmux.conf, the pane named `render`, and sections appended to $out.
tm() { tmux -L "$sock" -f "$work/tmux.conf" "$@"; }
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
# Appends the lines from the last one matching $2 to the end of the pane as section $1.
tail_from() {
	{
		printf '=== %s ===\n' "$1"
		pane | awk -v from="$2" '{ lines[NR] = $0; if ($0 ~ from) start = NR } END { if (!start) exit 1; for (i = start; i <= NR; i++) print lines[i] }'
		printf '\n'
	} >>"$out"
}
# Appends the lines from the first one matching $2 to the end of the pane as section $1.
tail_from_first() {
	{
		printf '=== %s ===\n' "$1"
		pane | awk -v from="$2" '{ lines[NR] = $0; if (!start && $0 ~ from) start = NR } END { if (!start) exit 1; for (i = start; i <= NR; i++) print lines[i] }'
		printf '\n'
	} >>"$out"
}
# Types a slash command and runs it; the completion menu needs a moment before Enter.
command() {
	tm send-keys -t render "$1"
	sleep 0.5
	tm send-keys -t render Enter
}
