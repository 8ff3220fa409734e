#!/usr/bin/env bash
# Scripted terminal test of supervising Codex: `reasonixctl --mcp` is driven by a scripted MCP
# client (this script, through a coprocess), a dashboard started in tmux attaches to it, the
# worker's permission prompt is answered by keys there, and the client's finalize commits.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d /tmp/rxattach.XXXXXX)"
session="reasonixctl-attach-$$"
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  if [ -n "${MCP_PID:-}" ]; then kill "$MCP_PID" 2>/dev/null || true; wait "$MCP_PID" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
CGO_ENABLED=0 go build -o "$work/reasonixctl" ./cmd/reasonixctl
mkdir -p "$work/bin" && go build -o "$work/bin/fake-reasonix" ./cmd/fake-reasonix

repo="$work/repo"
git init -q -b main "$repo"
git -C "$repo" -c user.name=ci -c user.email=ci@example.com commit -q --allow-empty -m base
base="$(git -C "$repo" rev-parse HEAD)"
cat > "$work/bin/scenario.json" <<'JSON'
{"name": "attach", "turns": [{"steps": [
  {"text": "Checking the lint first."},
  {"shell": {"command": "make lint", "output": "fine\n"}, "permission": "ask"},
  {"write": {"path": "result.txt", "content": "ok\n"}, "permission": "ask"},
  {"text": "Created result.txt containing ok."}
], "summary": "Created result.txt containing ok."}]}
JSON

export CODEX_REASONIX_STATE_DIR="$work/state" REASONIX_BIN="$work/bin/fake-reasonix" \
  FAKE_REASONIX_SCENARIO="$work/bin/scenario.json" CODEX_REASONIX_ENV_ALLOWLIST='FAKE_REASONIX_*' \
  GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.com

coproc MCP { "$work/reasonixctl" --mcp 2>"$work/mcp.err"; }
next_id=0
# call METHOD PARAMS_JSON: send a request and print the result (or fail with the error).
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
  echo "tmux-attach: no answer to $1" >&2; cat "$work/mcp.err" >&2; exit 1
}
# field JSON EXPR: evaluate a Python expression over the tool result's structured content `s`.
field() { python3 -c 'import json,sys; r=json.loads(sys.argv[1])["result"]; s=r.get("structuredContent") or {}; print(eval(sys.argv[2]))' "$1" "$2"; }

meta='{"codex/sandbox-state-meta":{"sandboxCwd":"file://'"$repo"'","permissionProfile":{"type":"managed","network":"restricted","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]}}}}'
contract='{"schema_version":1,"objective":"Create result.txt","user_outcome":"result.txt holds ok","write_scope":["result.txt"],"acceptance_criteria":[{"id":"result","requirement":"result.txt exists","evidence":"automated"},{"id":"reviewed","requirement":"the change reads well","evidence":"review"}],"verification":[{"id":"exists","argv":["test","-f","result.txt"],"proves":["result"]}]}'

call initialize '{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"tmux-attach","version":"1"}}' >/dev/null
printf '{"jsonrpc":"2.0","method":"notifications/initialized"}\n' >&"${MCP[1]}"
call tools/list '{}' >/dev/null

name=tmux-attach
. .ci/tmux-lib.sh

# The MCP server opens the state directory right after tools/list; the dashboard attaches.
for _ in $(seq 100); do [ -S "$work/state/owner.sock" ] && break; sleep 0.1; done
# A tmux server that is already running gives new sessions its own environment, not ours.
tmux new-session -d -s "$session" -x 100 -y 30 \
  "cd $repo && env CODEX_REASONIX_STATE_DIR=$work/state REASONIX_BIN=$work/bin/fake-reasonix REASONIXCTL_THEME=${REASONIXCTL_THEME:-dark} $work/reasonixctl; echo \$? > $work/exit"
wait_for "attached to reasonixctl --mcp" 30

res="$(call tools/call '{"name":"reasonix_delegate","arguments":{"task_id":"codex-1","contract":'"$contract"',"wait_mode":"background"},"_meta":'"$meta"'}')"
[ "$(field "$res" 'r.get("isError", False)')" = False ] || { echo "tmux-attach: delegate failed: $res" >&2; exit 1; }

# The person is asked about the command the policy does not know, and allows it by key.
wait_for "make lint" 60
wait_for "Permission requested" 30
sleep 2 # keys typed in a prompt's first moments are ignored on purpose
keys a

# Codex waits for the review (a wait also returns at an interaction, so it may take a few) and
# finalizes it.
for _ in 1 2 3 4 5; do
  res="$(call tools/call '{"name":"reasonix_delegate","arguments":{"task_id":"codex-1","contract":'"$contract"'},"_meta":'"$meta"'}')"
  [ "$(field "$res" 's["state"]')" = review_required ] && break
  sleep 0.5
done
[ "$(field "$res" 's["state"]')" = review_required ] || { echo "tmux-attach: not in review: $res" >&2; screen >&2; exit 1; }
rev="$(field "$res" 's["review_revision"]')"
tree="$(field "$res" 's["review_tree_hash"]')"
crit="$(field "$res" 'json.dumps(s["required_review_criteria"])')"
# task list works beside the owner, through its socket.
"$work/reasonixctl" task list | grep -q codex-1 || { echo "tmux-attach: task list beside the owner failed" >&2; exit 1; }
res="$(call tools/call '{"name":"reasonix_control","arguments":{"task_id":"codex-1","action":"finalize","review_summary":"allowed make lint from the dashboard","approved_review_criteria":'"$crit"',"expected_review_revision":'"$rev"',"expected_review_tree_hash":"'"$tree"'"},"_meta":'"$meta"'}')"
commit="$(field "$res" 's.get("commit_hash", "")')"
[ -n "$commit" ] && [ "$commit" != None ] || { echo "tmux-attach: finalize failed: $res" >&2; exit 1; }
[ "$(git -C "$repo" rev-parse "$commit^")" = "$base" ] || { echo "tmux-attach: the commit's parent is not the base" >&2; exit 1; }
[ "$(git -C "$repo" rev-parse reasonix/codex-1)" = "$commit" ] || { echo "tmux-attach: the branch is not at the commit" >&2; exit 1; }

# The owner exits: the dashboard says so.
exec {MCP[1]}>&-
wait "$MCP_PID" || true
MCP_PID=""
wait_for "exited" 30
keys q
deadline=$((SECONDS + 30))
while [ ! -s "$work/exit" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
[ "$(cat "$work/exit" 2>/dev/null)" = 0 ] || { echo "tmux-attach: the dashboard exited with $(cat "$work/exit" 2>/dev/null)" >&2; exit 1; }
echo "tmux-attach: 1 passed, 0 failed"
