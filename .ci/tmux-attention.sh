#!/usr/bin/env bash
# Scripted terminal test of the attention order: three tasks delegated from a script through
# `reasonixctl --mcp` end up waiting on a permission, in review and done. They are delegated
# in the order wait, done, review, so the service lists them newest first as review, done,
# wait; the dashboard under tmux must list them by what they need from the person (wait,
# review, done) and count them in that order in its header.
# REASONIXCTL_BIN tests another build of reasonixctl (by default this checkout's).
set -euo pipefail
cd "$(dirname "$0")/.."

name=tmux-attention
. .ci/tmux-lib.sh
workspace attention

# One scenario, a turn per task: the objective in each prompt picks it.
cat > "$work/bin/scenario.json" <<'JSON'
{"name": "attention", "turns": [
  {"match": "ATTN-WAIT", "steps": [
    {"text": "Linting first."},
    {"shell": {"command": "make lint", "output": "ok\n"}, "permission": "ask"},
    {"write": {"path": "wait.txt", "content": "wait\n"}, "permission": "never"}]},
  {"match": "ATTN-REVIEW", "steps": [{"write": {"path": "review.txt", "content": "review\n"}, "permission": "never"}], "summary": "review.txt"},
  {"match": "ATTN-DONE", "steps": [{"write": {"path": "done.txt", "content": "done\n"}, "permission": "never"}], "summary": "done.txt"}
]}
JSON

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
  echo "tmux-attention: no answer to $1" >&2; cat "$work/mcp.err" >&2; exit 1
}
# field JSON EXPR: evaluate a Python expression over the result `r` and its structured content `s`.
field() { python3 -c 'import json,sys; r=json.loads(sys.argv[1])["result"]; s=r.get("structuredContent") or {}; print(eval(sys.argv[2]))' "$1" "$2"; }

meta='{"codex/sandbox-state-meta":{"sandboxCwd":"file://'"$repo"'","permissionProfile":{"type":"managed","network":"restricted","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]}}}}'
# contract NAME FILE: a contract whose objective names the scenario's turn.
contract() {
  printf '{"schema_version":1,"objective":"%s: create %s","user_outcome":"%s exists","write_scope":["%s"],"acceptance_criteria":[{"id":"exists","requirement":"%s exists","evidence":"automated"},{"id":"reviewed","requirement":"the change reads well","evidence":"review"}],"verification":[{"id":"exists","argv":["test","-f","%s"],"proves":["exists"]}]}' \
    "$1" "$2" "$2" "$2" "$2" "$2"
}
# delegate TASK NAME FILE: start a task in the background.
delegate() {
  local res
  res="$(call tools/call '{"name":"reasonix_delegate","arguments":{"task_id":"'"$1"'","contract":'"$(contract "$2" "$3")"',"wait_mode":"background"},"_meta":'"$meta"'}')"
  [ "$(field "$res" 'r.get("isError", False)')" = False ] || { echo "tmux-attention: delegate $1 failed: $res" >&2; exit 1; }
}
# state TASK NAME FILE: the task's view as reasonix_delegate returns it for the same contract.
view() {
  call tools/call '{"name":"reasonix_delegate","arguments":{"task_id":"'"$1"'","contract":'"$(contract "$2" "$3")"'},"_meta":'"$meta"'}'
}
# until_state TASK NAME FILE STATE: poll until the task is in STATE; prints its view.
until_state() {
  local res
  for _ in $(seq 60); do
    res="$(view "$1" "$2" "$3")"
    [ "$(field "$res" 's.get("state")')" = "$4" ] && { printf '%s\n' "$res"; return 0; }
    sleep 0.5
  done
  echo "tmux-attention: $1 never reached $4: $res" >&2; screen >&2; exit 1
}

call initialize '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tmux-attention","version":"1"}}' >/dev/null
printf '{"jsonrpc":"2.0","method":"notifications/initialized"}\n' >&"${MCP[1]}"
call tools/list '{}' >/dev/null


for _ in $(seq 100); do [ -S "$work/state/owner.sock" ] && break; sleep 0.1; done
# The dashboard is attached before the permission is asked: the request waits for it.
tmux new-session -d -s "$session" -x 120 -y 40 \
  "cd $repo && env CODEX_REASONIX_STATE_DIR=$work/state REASONIX_BIN=$work/bin/fake-reasonix REASONIXCTL_NOTIFY=off $work/reasonixctl; echo \$? > $work/exit"
wait_for "attached to reasonixctl --mcp" 30

delegate attn-wait ATTN-WAIT wait.txt
wait_for "1 waiting for you (i)" 60
delegate attn-done ATTN-DONE done.txt
res="$(until_state attn-done ATTN-DONE done.txt review_required)"
rev="$(field "$res" 's["review_revision"]')"
tree="$(field "$res" 's["review_tree_hash"]')"
crit="$(field "$res" 'json.dumps(s["required_review_criteria"])')"
res="$(call tools/call '{"name":"reasonix_control","arguments":{"task_id":"attn-done","action":"finalize","review_summary":"read done.txt","approved_review_criteria":'"$crit"',"expected_review_revision":'"$rev"',"expected_review_tree_hash":"'"$tree"'"},"_meta":'"$meta"'}')"
commit="$(field "$res" 's.get("commit_hash", "")')"
[ -n "$commit" ] && [ "$commit" != None ] || { echo "tmux-attention: finalize failed: $res" >&2; exit 1; }
delegate attn-review ATTN-REVIEW review.txt
until_state attn-review ATTN-REVIEW review.txt review_required >/dev/null

# The waiting task's request opened by itself (it is the first task, selected): put it aside
# once its keys are no longer paused, and show all tasks, the done one too.
wait_for "Permission requested" 30
sleep 2
keys Escape
keys A
wait_for "all tasks" 10
wait_for "wait 1 · review 1 · done 1" 20

# The rows in the list, top to bottom.
order="$(screen | grep -oE '^[ ›] attn-[a-z]+' | tr -d ' ›' | tr '\n' ' ')"
[ "$order" = "attn-wait attn-review attn-done " ] || { echo "tmux-attention: the list's order is '$order'" >&2; screen >&2; exit 1; }
screen | grep -qE '^› attn-wait +PERM' || { echo "tmux-attention: the waiting task is not selected first" >&2; screen >&2; exit 1; }

exec {MCP[1]}>&-
wait "$MCP_PID" || true
MCP_PID=""
wait_for "exited" 30
keys q
deadline=$((SECONDS + 30))
while [ ! -s "$work/exit" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
[ "$(cat "$work/exit" 2>/dev/null)" = 0 ] || { echo "tmux-attention: the dashboard exited with $(cat "$work/exit" 2>/dev/null)" >&2; exit 1; }
echo "tmux-attention: 1 passed, 0 failed"
