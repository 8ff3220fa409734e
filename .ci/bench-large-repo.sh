#!/usr/bin/env bash
# Generates a repository of 100,000 files (1,000 directories of 100 small files, one commit) in
# a temporary directory and runs the large-repository benchmarks against it: a bare
# `git worktree add` beside delegate → the worker's session start (the two alternate in each
# iteration), the review snapshot and finalize, and one collision scan whole, limited to the
# write scope, and the stamp that skips it. The repository is never committed anywhere; it is removed at the end unless
# KEEP=1. Usage: .ci/bench-large-repo.sh [benchtime, default 3x] [files, default 100000]
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime="${1:-3x}"
files="${2:-100000}"
repo="${LARGE_REPO_DIR:-$(mktemp -d /tmp/reasonixctl-large-XXXXXX)}"
cleanup() { [ "${KEEP:-}" = 1 ] || rm -rf "$repo"; }
trap cleanup EXIT

if [ ! -d "$repo/.git" ]; then
  echo "== generating $files files in $repo"
  git init -q -b main "$repo"
  python3 - "$repo" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
per = 100
for i in range(n):
    d = os.path.join(root, "pkg%04d" % (i // per))
    if i % per == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "file%03d.txt" % (i % per)), "w") as f:
        f.write("line %d of a generated file\n" % i)
PY
  git -C "$repo" add -A
  GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=Bench \
    GIT_COMMITTER_EMAIL=bench@example.com git -C "$repo" commit -q -m "generated"
fi
echo "== $(git -C "$repo" ls-files | wc -l) files; load: $(uptime)"
REASONIXCTL_LARGE_REPO="$repo" go test -run '^$' -bench 'LargeRepo' -benchtime "$benchtime" -timeout 60m ./core/engine
