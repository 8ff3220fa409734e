# Helpers the scripted terminal tests share. The caller sets $session (the tmux session) and
# $name (how its failures are labelled) before sourcing this file.

screen() { tmux capture-pane -p -t "$session" 2>/dev/null || true; }

# wait_for TEXT SECONDS: poll the screen until TEXT shows, or fail with the screen.
wait_for() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    if screen | grep -qF -- "$1"; then return 0; fi
    sleep 0.2
  done
  echo "$name: timed out waiting for: $1" >&2
  screen >&2
  exit 1
}

keys() { tmux send-keys -t "$session" "$@"; }

# workspace NAME: a fresh work directory ($work) removed on exit, a tmux server of our own
# (its clipboard and titles are ours to read, and nobody else's) for $session, the binaries
# under test in $work (REASONIXCTL_BIN tests another build of reasonixctl; the fake worker is
# built here), and an empty repository ($repo). The exit also ends the MCP server ($MCP_PID)
# a script started.
workspace() {
  work="$(mktemp -d "/tmp/rx$1.XXXXXX")"
  session="reasonixctl-$1-$$"
  sock="rx$1-$$"
  tmux() { command tmux -L "$sock" "$@"; }
  cleanup() {
    tmux kill-server 2>/dev/null || true
    if [ -n "${MCP_PID:-}" ]; then kill "$MCP_PID" 2>/dev/null || true; wait "$MCP_PID" 2>/dev/null || true; fi
    rm -rf "$work"
  }
  trap cleanup EXIT
  if [ -n "${REASONIXCTL_BIN:-}" ]; then
    cp "$REASONIXCTL_BIN" "$work/reasonixctl"
  else
    CGO_ENABLED=0 go build -o "$work/reasonixctl" ./cmd/reasonixctl
  fi
  mkdir -p "$work/bin" && go build -o "$work/bin/fake-reasonix" ./cmd/fake-reasonix
  repo="$work/repo"
  git init -q -b main "$repo"
  git -C "$repo" -c user.name=ci -c user.email=ci@example.com commit -q --allow-empty -m base
}
