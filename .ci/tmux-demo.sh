#!/usr/bin/env bash
# Scripted terminal test: run `reasonixctl demo` under tmux, answer the permission prompt, open
# the diff, finalize with the keyboard, and check that the commit exists on the task branch.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
session="reasonixctl-demo-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/reasonixctl" ./cmd/reasonixctl

tmux new-session -d -s "$session" -x 120 -y 40 \
  "cd $work && TMPDIR=$work GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com ./reasonixctl demo; echo \$? > $work/exit"

screen() { tmux capture-pane -p -t "$session" 2>/dev/null || true; }

# wait_for TEXT SECONDS: poll the screen until TEXT shows, or fail with the screen.
wait_for() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    if screen | grep -qF -- "$1"; then return 0; fi
    sleep 0.2
  done
  echo "tmux-demo: timed out waiting for: $1" >&2
  screen >&2
  exit 1
}

keys() { tmux send-keys -t "$session" "$@"; }

wait_for "make check" 60
# Keys typed in the first 0.4 s after a prompt appears are swallowed on purpose.
sleep 1
keys a
wait_for "review_required" 60
keys 2                      # the diff view
wait_for "hello.txt" 10
keys F
wait_for "Finalize demo-1" 10
keys -l "checked the greeting and the note"
keys Tab
keys Space
keys Enter
wait_for "cherry-pick" 60
keys Escape
keys q
deadline=$((SECONDS + 30))
while [ ! -s "$work/exit" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
[ "$(cat "$work/exit" 2>/dev/null)" = 0 ] || { echo "tmux-demo: demo exited with $(cat "$work/exit" 2>/dev/null)" >&2; exit 1; }

repo="$(ls -d "$work"/reasonixctl-demo-*/repo)"
commit="$(git -C "$repo" rev-parse reasonix/demo-1)"
base="$(git -C "$repo" rev-parse main)"
[ "$(git -C "$repo" rev-parse "$commit^")" = "$base" ] || { echo "tmux-demo: the commit's parent is not the base" >&2; exit 1; }
[ "$(git -C "$repo" show --name-only --format= "$commit" | sort | tr '\n' ' ')" = "NOTES.md hello.txt " ] || { echo "tmux-demo: unexpected files in the commit" >&2; exit 1; }
[ -z "$(git -C "$repo" status --porcelain)" ] || { echo "tmux-demo: the demo repository's checkout changed" >&2; exit 1; }
echo "tmux-demo: 1 passed, 0 failed"
