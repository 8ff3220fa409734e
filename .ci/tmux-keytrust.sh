#!/usr/bin/env bash
# Scripted terminal test of key trust, at 80x24: keys typed for something else never answer a
# worker's request. A dashboard under tmux is attached to `reasonixctl --mcp`, where a scripted
# MCP client delegates a task to the fake worker; the worker waits for a steer, which the client
# sends while the person types, so its requests arrive at a moment the script chooses.
#  (a) The person types a search in the events view at about two keys a second; a `make gamma`
#      permission arrives meanwhile. It does not open over the search, the query stays whole,
#      nothing is answered, and the request is announced; it opens once the search is kept, and
#      again with i after esc.
#  (c) On that prompt, open for seconds, `xa` arriving in one read answers nothing; `a` alone
#      allows once.
#  (b) A question opens; `2` at +0.3 s (in the key grace) and `2` again at +1.6 s answer
#      nothing and select option 2; enter answers with it, and the status names option 2.
# The worker's record of the requests (reasonix_inspect) holds exactly those two answers.
# Sleeps only pace the keys as a person would; states are waited for by polling the screen.
# REASONIXCTL_BIN tests another build of reasonixctl (by default this checkout's).
set -euo pipefail
cd "$(dirname "$0")/.."

name=tmux-keytrust
. .ci/tmux-lib.sh
workspace keytrust

cat > "$work/bin/scenario.json" <<'JSON'
{"name": "keytrust", "turns": [{"steps": [
  {"text": "Reading the data files before the build."},
  {"wait_steer": true},
  {"shell": {"command": "make gamma", "output": "gamma built\n"}, "permission": "ask"},
  {"ask": {"question": "Which table should the data go to?", "options": [{"label": "alpha"}, {"label": "beta"}, {"label": "gamma"}]}},
  {"write": {"path": "result.txt", "content": "ok\n"}},
  {"text": "Done."}
], "summary": "Built gamma and added the data."}]}
JSON

export CODEX_REASONIX_STATE_DIR="$work/state" REASONIX_BIN="$work/bin/fake-reasonix" \
  FAKE_REASONIX_SCENARIO="$work/bin/scenario.json" CODEX_REASONIX_ENV_ALLOWLIST='FAKE_REASONIX_*' \
  GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.com

fail() { echo "$name: $*" >&2; screen >&2; exit 1; }

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
  echo "$name: no answer to $1" >&2; cat "$work/mcp.err" >&2; exit 1
}
# field JSON EXPR: evaluate a Python expression over the result `r` and its structured content `s`.
field() { python3 -c 'import json,sys; r=json.loads(sys.argv[1])["result"]; s=r.get("structuredContent") or {}; print(eval(sys.argv[2]))' "$1" "$2"; }

meta='{"codex/sandbox-state-meta":{"sandboxCwd":"file://'"$repo"'","permissionProfile":{"type":"managed","network":"restricted","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]}}}}'
contract='{"schema_version":1,"objective":"Build gamma and add the data","user_outcome":"result.txt exists","write_scope":["result.txt"],"acceptance_criteria":[{"id":"result","requirement":"result.txt exists","evidence":"automated"}],"verification":[{"id":"exists","argv":["test","-f","result.txt"],"proves":["result"]}]}'

# The client does not take elicitations: the dashboard is the only one who answers.
call initialize '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tmux-keytrust","version":"1"}}' >/dev/null
printf '{"jsonrpc":"2.0","method":"notifications/initialized"}\n' >&"${MCP[1]}"
call tools/list '{}' >/dev/null


# interactions: set $ias to the task's requests as the engine recorded them, one line each:
# kind status decision option_id by.
interactions() {
  local res
  res="$(call tools/call '{"name":"reasonix_inspect","arguments":{"task_id":"kt-1","include":["interactions"]}}')"
  ias="$(python3 -c '
import json, sys
r = json.loads(sys.argv[1])["result"]
s = r.get("structuredContent") or {}
for ia in s.get("sections", {}).get("interactions") or []:
    resp = ia.get("response") or {}
    opt = resp.get("option_id") or "-"
    # A question option by its place: the second option reads #2.
    for i, o in enumerate((ia.get("request") or {}).get("options") or []):
        if ia["kind"] == "input" and opt in (o.get("optionId"), o.get("option_id"), o.get("id")):
            opt = "#%d" % (i + 1)
    print(ia["kind"], ia["status"], resp.get("decision", "-"), opt, resp.get("by", "-") or "-")
' "$res")"
}

for _ in $(seq 100); do [ -S "$work/state/owner.sock" ] && break; sleep 0.1; done
tmux new-session -d -s "$session" -x 80 -y 24 \
  "cd $repo && env CODEX_REASONIX_STATE_DIR=$work/state REASONIX_BIN=$work/bin/fake-reasonix $work/reasonixctl; echo \$? > $work/exit"
wait_for "attached to reasonixctl --mcp" 30

res="$(call tools/call '{"name":"reasonix_delegate","arguments":{"task_id":"kt-1","contract":'"$contract"',"wait_mode":"background"},"_meta":'"$meta"'}')"
[ "$(field "$res" 'r.get("isError", False)')" = False ] || fail "delegate failed: $res"
wait_for "kt-1" 30
wait_for "Reading the data files" 60

# (a) A search typed at two keys a second; the request arrives in the middle of it.
query="looking for the make gamma call and data added"
keys 1
sleep 0.5
keys /
wait_for " /▏" 10
arrived=""
for ((i = 0; i < ${#query}; i++)); do
  keys -l "${query:i:1}"
  sleep 0.5
  if [ "$i" = 12 ]; then
    res="$(call tools/call '{"name":"reasonix_control","arguments":{"task_id":"kt-1","action":"steer","message":"go on with the build"},"_meta":'"$meta"'}')"
    [ "$(field "$res" 'r.get("isError", False)')" = False ] || fail "steer failed: $res"
  fi
  now="$(screen)"
  if grep -qF "Permission requested" <<<"$now"; then fail "the permission opened over the search"; fi
  if [ -z "$arrived" ] && grep -qF "1 waiting for you (i)" <<<"$now"; then arrived=$i; fi
done
[ -n "$arrived" ] && [ "$arrived" -lt $((${#query} - 3)) ] ||
  fail "the permission did not arrive while the search was typed (at key ${arrived:-never} of ${#query})"
wait_for " /$query▏" 5
if screen | grep -qF "Permission requested"; then fail "the permission opened over the search"; fi
screen | grep -qF "1 waiting for you (i)" || fail "the waiting permission is not announced"
interactions
[ "$ias" = "permission pending - - -" ] || fail "after the search: $ias"

# Kept with enter, the search stops taking keys and the request opens by itself; put aside with
# esc, i brings it back.
keys Enter
wait_for "Permission requested" 10
wait_for "make gamma" 5
sleep 2
keys Escape
deadline=$((SECONDS + 10))
while screen | grep -qF "Permission requested"; do
  [ $SECONDS -lt $deadline ] || fail "esc did not put the request aside"
  sleep 0.2
done
wait_for "1 waiting for you (i)" 5
keys i
wait_for "Permission requested" 10

# status LABEL WANT: wait for the header's status line about an answer (it lasts 5 s) and check
# it names WANT — also when the engine's resolved event reaches this attached dashboard before
# the respond's reply.
status() {
  wait_for "answered $1" 5
  local line
  line="$(screen | grep -m1 -o "answered $1.*" | sed 's/ *$//')"
  if ! grep -qF -- "$2" <<<"$line"; then
    fail "the status reads '$line', not naming $2"
  fi
}
# (c) Two keys in one read on a prompt open for seconds answer nothing; a alone allows once.
sleep 3
if screen | grep -qF "keys paused"; then fail "the key grace outlived 3 s"; fi
keys xa
wait_for "keys that arrive together never answer" 10
sleep 1
screen | grep -qF "Permission requested" || fail "xa closed the prompt"
interactions
[ "$ias" = "permission pending - - -" ] || fail "after xa: $ias"
keys a
status permission- "allow once"
# wait_record LINE WANT SECONDS: poll the engine's record until request LINE reads WANT.
wait_record() {
  local deadline=$((SECONDS + $3))
  while interactions; [ "$(sed -n "$1p" <<<"$ias")" != "$2" ]; do
    [ $SECONDS -lt $deadline ] || fail "request $1 is not '$2': $ias"
    sleep 0.2
  done
}
wait_record 1 "permission resolved allow allow_once supervisor" 10

# (b) A question: 2 in the grace, 2 after it; only enter answers, with option 2.
wait_for "The worker asks" 60
sleep 0.3
keys 2
sleep 1.3
keys 2
wait_for "› 2 beta" 5
sleep 1
screen | grep -qF "The worker asks" || fail "a digit closed the question"
interactions
[ "$(sed -n 2p <<<"$ias")" = "input pending - - -" ] || fail "after 2, 2: $ias"
if screen | grep -qF "keys paused"; then fail "the key grace outlived 2 s"; fi
keys Enter
status input- 'option 2 "beta"'

# The engine's record: the permission allowed once and the question answered with its second
# option, both by this dashboard, and nothing else.
wait_record 2 "input resolved allow #2 supervisor" 10
interactions
[ "$(wc -l <<<"$ias")" = 2 ] || fail "requests: $ias"

exec {MCP[1]}>&-
wait "$MCP_PID" || true
MCP_PID=""
keys q
sleep 0.5
if screen | grep -qF "Quit reasonixctl?"; then keys y; fi
deadline=$((SECONDS + 30))
while [ ! -s "$work/exit" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
[ "$(cat "$work/exit" 2>/dev/null)" = 0 ] || fail "the dashboard exited with $(cat "$work/exit" 2>/dev/null)"
echo "$name: 1 passed, 0 failed"
