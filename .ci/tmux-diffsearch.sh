#!/usr/bin/env bash
# Scripted terminal test: `/` in the diff of `reasonixctl demo`. The typed letters go to the
# search line (none is taken as a command, no prompt opens over it), the selection moves to the
# match, enter keeps the query for n, and esc clears it.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
session="reasonixctl-diffsearch-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/reasonixctl" ./cmd/reasonixctl

tmux new-session -d -s "$session" -x 120 -y 40 \
  "cd $work && TMPDIR=$work GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com ./reasonixctl demo; echo \$? > $work/exit"

name=tmux-diffsearch
. .ci/tmux-lib.sh

fail() { echo "$name: $1" >&2; screen >&2; exit 1; }

# The demo opens with a note saying what it is; esc closes it.
wait_for "The reasonixctl demo" 60
sleep 2
keys Escape
wait_for "Permission requested" 60
# Keys typed in the first moments after a prompt appears are ignored on purpose.
sleep 2
keys a
wait_for "review_required" 60
keys 2
wait_for "hello.txt" 10
keys /
wait_for "/█" 10
# "Sprintf" holds n (new task) and S; "quit" holds q. All of them are text here.
keys -l "Sprintf"
wait_for "/Sprintf█" 10
wait_for "1/2" 10   # the removed line and the added one
screen | grep -qF "greet/greet.go" || fail "the match's file is not shown"
screen | grep -E -q '›.*Sprintf' || fail "the selection is not on the matching line"
if screen | grep -qF "New task"; then fail "a letter of the query opened the new-task form"; fi
keys Enter
wait_for "/Sprintf  1/2 · n/N next/previous · esc clears" 10
keys n
wait_for "/Sprintf  2/2" 10
screen | grep -E -q '›.*10 \+.*Sprintf' || fail "n did not select the second match"
if screen | grep -qF "New task"; then fail "n started a new task instead of going to the next match"; fi
keys Escape
deadline=$((SECONDS + 10))
while screen | grep -qF "/Sprintf" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
if screen | grep -qF "/Sprintf"; then fail "esc did not clear the search"; fi
# Typing a query nothing matches, then esc, goes back to where the search began.
keys /
keys -l "quit"
wait_for "no match" 10
keys Escape
sleep 0.5
if screen | grep -qF "/quit"; then fail "esc did not close the search line"; fi
keys q
deadline=$((SECONDS + 30))
while [ ! -s "$work/exit" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
[ "$(cat "$work/exit" 2>/dev/null)" = 0 ] || { echo "$name: demo exited with $(cat "$work/exit" 2>/dev/null)" >&2; exit 1; }
echo "$name: 1 passed, 0 failed"
