#!/usr/bin/env bash
# The demo: the whole product, no microphone needed.
#
# Starts footstepd on the built-in synthetic night (footsteps through a ceiling,
# door slams, knocks, background noise), accelerated, with a temporary state
# directory and control socket; shows `footstepctl status` and `events list`
# while it records; stops it cleanly (SIGTERM); verifies the evidence; writes
# the PDF and HTML report and an evidence bundle; prints where they are.
#
# Usage: scripts/demo.sh [BIN_DIR]      (default .build/debug; built if missing)
# Environment: DEMO_SPEED (default 30), DEMO_MINUTES (of synthetic night, default 10),
#              DEMO_SEED (default 7), DEMO_DIR (default: a new temporary directory).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/.build/debug}
speed=${DEMO_SPEED:-30}
minutes=${DEMO_MINUTES:-10}
seed=${DEMO_SEED:-7}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() { printf 'demo: %s\n' "$*" >&2; exit 1; }

if [[ ! -x "$bin/footstepd" || ! -x "$bin/footstepctl" ]]; then
  step "Building footstepd and footstepctl (first time: a few minutes)"
  (cd "$repo" && swift build --product footstepd && swift build --product footstepctl)
  bin=$repo/.build/debug
fi
footstepd=$bin/footstepd
ctl=$bin/footstepctl

work=${DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/footstepd-demo.XXXXXX")}
mkdir -p "$work"
state=$work/state
socket=$work/control.sock
log=$work/footstepd.log
echo "footstepd demo: working in $work"

daemon=
stop_daemon() {
  [[ -n "$daemon" ]] && kill -0 "$daemon" 2>/dev/null || return 0
  kill -TERM "$daemon"
  local status=0
  wait "$daemon" || status=$?
  daemon=
  return "$status"
}
trap 'stop_daemon || true' EXIT
trap 'exit 130' INT TERM

step "Starting footstepd on a synthetic night ($minutes min at ${speed}x real time)"
echo "\$ footstepd --source demo:night:seed=$seed,duration=$((minutes * 60)) --speed $speed --state-dir $state --socket $socket"
"$footstepd" --source "demo:night:seed=$seed,duration=$((minutes * 60))" --speed "$speed" \
  --state-dir "$state" --socket "$socket" >"$log" 2>&1 &
daemon=$!

for _ in $(seq 1 100); do
  [[ -S "$socket" ]] && break
  kill -0 "$daemon" 2>/dev/null || { tail -20 "$log" >&2; fail "footstepd exited before opening its socket (log: $log)"; }
  sleep 0.2
done
[[ -S "$socket" ]] || fail "footstepd did not open its control socket within 20 s (log: $log)"

# The control commands (status, events) talk to the daemon over the socket.
control() {
  if ! "$ctl" "$@" --socket "$socket"; then
    echo "(footstepctl $1 is not available or failed; the daemon keeps recording)"
  fi
}

run_seconds=$(( minutes * 60 / speed ))
(( run_seconds < 12 )) && run_seconds=12
wait_for() {  # sleep up to $1 s unless the daemon ends sooner
  for _ in $(seq 1 "$(( $1 * 5 ))"); do kill -0 "$daemon" 2>/dev/null || return 0; sleep 0.2; done
}

wait_for 4
step "footstepctl status (while recording)"
control status
wait_for $(( run_seconds / 3 ))
step "footstepctl events list --limit 12 (the first events of the night)"
control events list --limit 12
wait_for $(( run_seconds / 3 ))
step "footstepctl status (later)"
control status

step "Stopping footstepd (SIGTERM) and waiting for it to finish the session"
if kill -0 "$daemon" 2>/dev/null; then
  status=0
  stop_daemon || status=$?
  (( status == 0 )) || fail "footstepd exited with status $status (log: $log)"
  echo "footstepd stopped cleanly"
else
  status=0
  wait "$daemon" || status=$?
  daemon=
  (( status == 0 )) || fail "footstepd exited with status $status (log: $log)"
  echo "footstepd had already finished the scenario and exited cleanly"
fi
grep -E "session [0-9]+ (completed|interrupted)" "$log" | sed 's/^/  /' || true

step "footstepctl verify (hash chain, audio files, clips)"
"$ctl" verify --state-dir "$state"

step "footstepctl report --format pdf,html"
mkdir -p "$work/report"
"$ctl" report --state-dir "$state" --session 1 --format pdf,html --title "footstepd demo: a synthesized night upstairs" \
  --output "$work/report"

step "footstepctl bundle (report, clips, JSON export, SHA-256 manifest)"
"$ctl" bundle --state-dir "$state" --from=-1h --to "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)" \
  --report-format pdf,html,csv --output "$work/evidence.zip"
"$ctl" verify --bundle "$work/evidence.zip"

pdf=$(ls "$work"/report/*.pdf 2>/dev/null | head -1 || true)
html=$(ls "$work"/report/*.html 2>/dev/null | head -1 || true)
step "Done"
echo "Report (PDF):   ${pdf:-not written}"
echo "Report (HTML):  ${html:-not written}"
echo "Evidence:       $work/evidence.zip"
echo "Daemon log:     $log"
echo "State:          $state (footstepd.db, audio/, clips/)"
