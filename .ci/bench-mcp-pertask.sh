#!/usr/bin/env bash
# Per-task time through `reasonixctl --mcp`, an earlier release against this tree, interleaved:
# builds reasonixctl at <commit> (default 9238d68, the release issue 29 compares with) in a
# temporary worktree, then runs BenchmarkMCPPerTask for it and for this tree in turn, <rounds>
# times, with the same driver and the same fake worker (this tree's); then this tree's --mcp
# owning the state directory against one attached to `reasonixctl serve`, also interleaved.
# Rounds alternate which build goes first, so that a machine slowing down or speeding up over
# the minutes favours neither; the last lines are the median over the rounds of each figure.
# Usage: .ci/bench-mcp-pertask.sh [commit] [rounds, default 8] [tasks per run, default 20]
# BENCH_SERVE=0 skips the serve comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
old="${1:-9238d68}"
rounds="${2:-8}"
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
# row <label> <benchmark line>: the label, then median, delegate, finalize, server CPU and its
# children's CPU per task, and peak RSS.
row() {
  awk -v label="$1" '{
    for (i = 1; i <= NF; i++) v[$(i)] = $(i - 1)
    printf "%-8s median %6.1f ms  delegate %5.1f  finalize %5.1f  cpu %5.1f ms  children %5.1f ms  rss %5.1f MB\n",
      label, v["ms-median"], v["ms-delegate"], v["ms-finalize"], v["cpu-ms/task"], v["cpu-children-ms/task"], v["MB-peak-rss"]
  }' <<<"$2"
}
old_run() { row "$old" "$(REASONIXCTL_BENCH_BIN="$tmp/reasonixctl-old" run 'MCPPerTask$')" | tee -a "$tmp/old.rows"; }
now_run() { row now "$(run 'MCPPerTask$')" | tee -a "$tmp/now.rows"; }
REASONIXCTL_BENCH_BIN="$tmp/reasonixctl-old" run 'MCPPerTask$' >/dev/null
run 'MCPPerTask$' >/dev/null
for r in $(seq "$rounds"); do
  echo "== round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  if ((r % 2)); then old_run; now_run; else now_run; old_run; fi
done
# summary <rows file> <label>: the median over the rounds of each column.
summary() {
  for col in 3 6 8 10 13; do
    awk -v c="$col" '{print $c}' "$1" | sort -n | awk '{a[NR] = $1} END {printf "%s ", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
  done | awk -v label="$2" '{printf "%-8s median of the rounds: median %.1f ms  delegate %.1f  finalize %.1f  cpu %.1f ms  children %.1f ms\n", label, $1, $2, $3, $4, $5}'
}
summary "$tmp/old.rows" "$old"
summary "$tmp/now.rows" now
paste "$tmp/old.rows" "$tmp/now.rows" | awk '{ if ($20 < $3) m++; if ($27 < $10) c++ } END {printf "now below %s: median in %d of %d rounds, server cpu in %d of %d\n", "'"$old"'", m, NR, c, NR}'
[ "${BENCH_SERVE:-1}" = 0 ] && exit 0
for r in $(seq "$rounds"); do
  echo "== serve round $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  row owning "$(run 'MCPPerTask$')"
  row attached "$(run 'MCPPerTaskAttachedToServe$')"
done
