#!/usr/bin/env bash
# Scripted terminal test of a hostile worker: its text, reasoning, tool output, question and the
# file it writes carry raw control sequences (OSC 52 to the clipboard, OSC 0 to the title, an OSC
# 8 link, a screen wipe with a fake ALLOWED line, C1 CSI, a bidi override). A dashboard under
# tmux, attached to `reasonixctl --mcp`, shows them all while a scripted MCP client delegates;
# tmux's pipe-pane records every byte the dashboard writes. None of the sequences may reach the
# terminal: tmux's paste buffers stay empty, the pane title stays as it was, the raw bytes hold
# none of them, and the screen shows them as visible text. The review lists the file as a
# Trojan Source risk, and finalize commits only once the client acknowledges it.
# REASONIXCTL_BIN tests another build of reasonixctl (by default this checkout's).
set -euo pipefail
cd "$(dirname "$0")/.."

name=tmux-hostile
. .ci/tmux-lib.sh
workspace hostile
base="$(git -C "$repo" rev-parse HEAD)"

# The scenario, with the sequences as raw bytes in every string.
python3 - "$work/bin/scenario.json" <<'PY'
import json, sys
p = ("\x1b]52;c;cGxhbnRlZA==\x07\x1b]0;pwned\x07\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\"
     "\x1b[2J\x1b[1;1HALLOWED\u009b2J\u202eevil\r")
scenario = {"name": "hostile", "turns": [{"steps": [
    {"text": "Working. " + p},
    {"thought": "Thinking. " + p},
    {"shell": {"command": "make lint", "output": "lint " + p + "\n"}, "permission": "ask"},
    {"ask": {"question": "Pick one " + p, "options": [{"label": "one " + p}, {"label": "two"}]}},
    {"write": {"path": "result.txt", "content": "ok \u202eevil " + p + "\n"}, "permission": "ask"},
    {"text": "Done. " + p},
], "summary": "Summary " + p}]}
json.dump(scenario, open(sys.argv[1], "w"))
PY

export CODEX_REASONIX_STATE_DIR="$work/state" REASONIX_BIN="$work/bin/fake-reasonix" \
  FAKE_REASONIX_SCENARIO="$work/bin/scenario.json" CODEX_REASONIX_ENV_ALLOWLIST='FAKE_REASONIX_*' \
  GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.com

coproc MCP { "$work/reasonixctl" --mcp 2>"$work/mcp.err"; }
next_id=0
# call METHOD PARAMS_JSON: send a request and print the response.
call() {
  next_id=$((next_id + 1))
  printf '{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' "$next_id" "$1" "$2" >&"${MCP[1]}"
  local line
  while IFS= read -r -t 120 line <&"${MCP[0]}"; do
    if python3 -c 'import json,sys; m=json.loads(sys.argv[1]); sys.exit(0 if m.get("id")==int(sys.argv[2]) else 1)' "$line" "$next_id"; then
      printf '%s\n' "$line"
      return 0
    fi
  done
  echo "tmux-hostile: no answer to $1" >&2; cat "$work/mcp.err" >&2; exit 1
}
# field JSON EXPR: evaluate a Python expression over the result `r` and its structured content `s`.
field() { python3 -c 'import json,sys; r=json.loads(sys.argv[1])["result"]; s=r.get("structuredContent") or {}; print(eval(sys.argv[2]))' "$1" "$2"; }

meta='{"codex/sandbox-state-meta":{"sandboxCwd":"file://'"$repo"'","permissionProfile":{"type":"managed","network":"restricted","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]}}}}'
contract='{"schema_version":1,"objective":"Create result.txt","user_outcome":"result.txt exists","write_scope":["result.txt"],"acceptance_criteria":[{"id":"result","requirement":"result.txt exists","evidence":"automated"},{"id":"reviewed","requirement":"the change reads well","evidence":"review"}],"verification":[{"id":"exists","argv":["test","-f","result.txt"],"proves":["result"]}]}'

call initialize '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tmux-hostile","version":"1"}}' >/dev/null
printf '{"jsonrpc":"2.0","method":"notifications/initialized"}\n' >&"${MCP[1]}"
call tools/list '{}' >/dev/null


for _ in $(seq 100); do [ -S "$work/state/owner.sock" ] && break; sleep 0.1; done
# The dashboard waits for a line so that pipe-pane records it from its first byte. OSC 52 would
# reach tmux's buffers (set-clipboard on) and OSC 0 the pane title if they got through.
tmux new-session -d -s "$session" -x 160 -y 45 \
  "cd $repo && read -r _ && env CODEX_REASONIX_STATE_DIR=$work/state REASONIX_BIN=$work/bin/fake-reasonix REASONIXCTL_NOTIFY=on $work/reasonixctl; echo \$? > $work/exit"
tmux set-option -g set-clipboard on
tmux pipe-pane -O -t "$session" "cat > $work/raw"
title="$(tmux display-message -p -t "$session" '#{pane_title}')"
keys Enter
wait_for "attached to reasonixctl --mcp" 30

res="$(call tools/call '{"name":"reasonix_delegate","arguments":{"task_id":"hostile-1","contract":'"$contract"',"wait_mode":"background"},"_meta":'"$meta"'}')"
[ "$(field "$res" 'r.get("isError", False)')" = False ] || { echo "tmux-hostile: delegate failed: $res" >&2; exit 1; }

wait_for "Permission requested" 60
wait_for "␛]52;c;cGxhbnRlZA==␇␛]0;pwned␇" 10 # the agent's words in the prompt
sleep 2 # keys typed in a prompt's first moments are ignored on purpose
keys a
wait_for "The worker asks" 60
wait_for "1 one ␛]52;c;cGxhbnRlZA==␇␛]0;pwned␇" 10
sleep 2
keys 1 # selects the option; enter answers with it
wait_for "› 1 one" 10
# Option 1 was selected already, so the screen cannot tell that the 1 has been read: leave the
# gap a person leaves. Two keys within 12 ms are one burst, and a burst never answers.
sleep 0.3
keys Enter

for _ in $(seq 10); do
  res="$(call tools/call '{"name":"reasonix_delegate","arguments":{"task_id":"hostile-1","contract":'"$contract"'},"_meta":'"$meta"'}')"
  [ "$(field "$res" 's["state"]')" = review_required ] && break
  sleep 0.5
done
[ "$(field "$res" 's["state"]')" = review_required ] || { echo "tmux-hostile: not in review: $res" >&2; screen >&2; exit 1; }
# Over MCP the text is JSON: the bytes as they are, escaped.
[ "$(field "$res" '"\x1b]52;c;" in s["summary"]')" = True ] || { echo "tmux-hostile: the summary is not the worker's bytes: $res" >&2; exit 1; }
risk="$(field "$res" '[x.split(": ")[0] for x in s["risks"] if x.startswith("trojan_source:")]')"
[ "$risk" = "['trojan_source:result.txt']" ] || { echo "tmux-hostile: risks = $risk: $res" >&2; exit 1; }

# The person reads the events, expanded, and the diff.
keys 1
wait_for "␛]8;;https://evil.example␛\\link" 20
keys ']' Enter ']' Enter ']' Enter
sleep 1
keys 2
wait_for "⟨U+202E⟩evil" 20
wait_for "⚠ hidden or look-alike characters: 1" 10
keys 4
sleep 1
keys 2
sleep 1

rev="$(field "$res" 's["review_revision"]')"
tree="$(field "$res" 's["review_tree_hash"]')"
crit="$(field "$res" 'json.dumps(s["required_review_criteria"])')"
finalize() {
  call tools/call '{"name":"reasonix_control","arguments":{"task_id":"hostile-1","action":"finalize","review_summary":"read result.txt with its markers","approved_review_criteria":'"$crit"',"expected_review_revision":'"$rev"',"expected_review_tree_hash":"'"$tree"'"'"$1"'},"_meta":'"$meta"'}'
}
res="$(finalize '')"
[ "$(field "$res" 'r.get("isError", False)')" = True ] && grep -qF 'unacknowledged_risks' <<<"$res" ||
  { echo "tmux-hostile: finalize without acknowledging the risk: $res" >&2; exit 1; }
res="$(finalize ',"acknowledged_risks":["trojan_source:result.txt"]')"
commit="$(field "$res" 's.get("commit_hash", "")')"
[ -n "$commit" ] && [ "$commit" != None ] || { echo "tmux-hostile: finalize failed: $res" >&2; exit 1; }
[ "$(git -C "$repo" rev-parse "$commit^")" = "$base" ] || { echo "tmux-hostile: the commit's parent is not the base" >&2; exit 1; }

# While the dashboard still runs: tmux's buffers and the pane title are untouched.
fail=0
if [ -n "$(tmux list-buffers)" ]; then
  echo "tmux-hostile: OSC 52 reached tmux's paste buffer:" >&2; tmux list-buffers >&2; fail=1
fi
now="$(tmux display-message -p -t "$session" '#{pane_title}')"
if [ "$now" != "$title" ]; then
  echo "tmux-hostile: the pane title changed from '$title' to '$now'" >&2; fail=1
fi

exec {MCP[1]}>&-
wait "$MCP_PID" || true
MCP_PID=""
wait_for "exited" 30
keys q
deadline=$((SECONDS + 30))
while [ ! -s "$work/exit" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
[ "$(cat "$work/exit" 2>/dev/null)" = 0 ] || { echo "tmux-hostile: the dashboard exited with $(cat "$work/exit" 2>/dev/null)" >&2; exit 1; }

# The raw bytes the dashboard wrote: none of the planted sequences, nor their C1 and bidi bytes.
python3 - "$work/raw" <<'PY' || fail=1
import sys
raw = open(sys.argv[1], "rb").read()
if len(raw) < 1000:
    sys.exit("tmux-hostile: pipe-pane recorded only %d bytes" % len(raw))
bad = {b"\x1b]52;": "OSC 52", b"\x1b]0;": "OSC 0", b"\x1b]2;": "OSC 2", b"\x1b]8;": "OSC 8",
       b"\x1b[1;1HALLOWED": "the fake ALLOWED line", b"\xc2\x9b": "C1 CSI", b"\x9b2J": "C1 CSI",
       b"\xe2\x80\xae": "U+202E", b"pwned\x07": "the title"}
found = [name for seq, name in bad.items() if seq in raw]
if found:
    sys.exit("tmux-hostile: reached the terminal: " + ", ".join(found))
# The glyphs are drawn in their own colour, so the text is looked for with colours taken out.
import re
if "␛]52;c;cGxhbnRlZA==".encode() not in re.sub(rb"\x1b\[[0-9;]*m", b"", raw):
    sys.exit("tmux-hostile: the planted text was never shown")
PY
[ "$fail" = 0 ] || exit 1
echo "tmux-hostile: 1 passed, 0 failed"
