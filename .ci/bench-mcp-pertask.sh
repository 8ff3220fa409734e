#!/usr/bin/env bash
# Per-task time through `reasonixctl --mcp`, an earlier release against this tree, interleaved:
# builds reasonixctl at <commit> (default 9238d68, the release issue 29 compares with) in a
# temporary worktree, then runs BenchmarkMCPPerTask for it and for this tree in turn, <rounds>
# times, with the same driver and the same fake worker (this tree's); then this tree's --mcp
# owning the state directory against one attached to `reasonixctl serve`, also interleaved.
# Usage: .ci/bench-mcp-pertask.sh [commit] [rounds, default 3] [tasks per run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
old="${1:-9238d68}"
rounds="${2:-3}"
tasks="${3:-20}"
tmp="$(mktemp -d /tmp/reasonixctl-pertask-XXXXXX)"
cleanup() { git worktree remove --force "$tmp/old" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

git worktree add -q --detach "$tmp/old" "$old"
(cd "$tmp/old" && CGO_ENABLED=0 go build -o "$tmp/reasonixctl-old" ./cmd/reasonixctl)
go test -c -o "$tmp/bench.test" ./cmd/reasonixctl
# The builds leave tens of megabytes to write back, and the first runs would pay for that
# flush in their own syncs: write it out, and run each build once unmeasured.
sync
cd cmd/reasonixctl
run() { "$tmp/bench.test" -test.run '^$' -test.bench "$1" -test.benchtime "${tasks}x" | grep '^Benchmark'; }
REASONIXCTL_BENCH_BIN="$tmp/reasonixctl-old" run 'MCPPerTask$' >/dev/null
run 'MCPPerTask$' >/dev/null
for r in $(seq "$rounds"); do
  echo "== round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%s\t' "$old"; REASONIXCTL_BENCH_BIN="$tmp/reasonixctl-old" run 'MCPPerTask$'
  printf 'now\t'; run 'MCPPerTask$'
done
for r in $(seq "$rounds"); do
  echo "== serve round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  run 'MCPPerTask$'
  run 'MCPPerTaskAttachedToServe$'
done
