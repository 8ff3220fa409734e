#!/usr/bin/env bash
# Scripted terminal test: run `reasonixctl demo` under tmux, answer the permission prompt, open
# the diff, finalize with the keyboard, and check that the commit exists on the task branch.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
session="reasonixctl-demo-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/reasonixctl" ./cmd/reasonixctl

tmux new-session -d -s "$session" -x 120 -y 40 \
  "cd $work && TMPDIR=$work GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com ./reasonixctl demo; echo \$? > $work/exit"

name=tmux-demo
. .ci/tmux-lib.sh

# Focus: a request waiting while the person types in the new-task form must not open over the
# form nor take its letters. The demo opens with a note saying what it is (esc closes it); by
# then the worker asks, and esc puts its prompt off until i.
wait_for "Tasks (" 30
wait_for "The reasonixctl demo" 10
sleep 2
keys Escape
wait_for "Permission requested" 60
sleep 2
keys Escape
wait_for "1 waiting for you (i)" 10
keys n
wait_for "New task" 10
keys -l "typing while the worker asks"
wait_for "typing while the worker asks" 10
if screen | grep -qF "Permission requested"; then echo "tmux-demo: the prompt opened over the form" >&2; screen >&2; exit 1; fi
keys Escape
keys i
wait_for "Permission requested" 10
# Keys typed in the first moments after a prompt appears are ignored on purpose.
sleep 2
keys a
wait_for "review_required" 60
# Keys that arrive in one read count one by one: "2 3" ends on the contract tab.
keys 2 3
wait_for "[3 Contract]" 10
keys 2                      # the diff view
wait_for "hello.txt" 10
# Mark each of the three files reviewed, then finalize without the form's second question.
keys v
wait_for "1/3 reviewed" 10
keys '}' v
wait_for "2/3 reviewed" 10
keys '}' v
wait_for "3/3 reviewed" 10
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
[ "$(git -C "$repo" show --name-only --format= "$commit" | sort | tr '\n' ' ')" = "NOTES.md greet/greet.go hello.txt " ] || { echo "tmux-demo: unexpected files in the commit" >&2; exit 1; }
[ -z "$(git -C "$repo" status --porcelain)" ] || { echo "tmux-demo: the demo repository's checkout changed" >&2; exit 1; }
echo "tmux-demo: 1 passed, 0 failed"
