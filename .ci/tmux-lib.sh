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
