#!/usr/bin/env bash
# The demo: the whole product on a full synthetic night, no microphone needed.
#
# footstepd records the built-in synthetic night upstairs (footsteps through a
# ceiling, door slams, knocks, background noise) placed in last night,
# 22:00-06:00 local time, at 1000x real time, calibrated through the
# configuration file. Partway through it is killed (SIGKILL, as a power cut
# would) and started again: it repairs the unfinished audio file, closes the
# session as interrupted and records the rest of the night, during which its
# simulated microphone is unplugged for 12 minutes (a device-loss gap). While
# it records the demo shows `footstepctl status` and `events list`, writes a
# diary entry and sets a mark (`footstepctl mark`, whose audio is kept as its
# own clip); at the end it
# verifies the evidence and writes the report (PDF, HTML, JSON: judged
# rules, coverage with the interruption, the hash-chain head) and an
# evidence bundle, and prints where they are.
#
# Usage: scripts/demo.sh [BIN_DIR]      (default .build/release; built if missing)
# Environment: DEMO_SPEED (default 1000), DEMO_SEED (default 7),
#              DEMO_DIR (default: a new temporary directory).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/.build/release}
speed=${DEMO_SPEED:-1000}
seed=${DEMO_SEED:-7}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() { printf 'demo: %s\n' "$*" >&2; exit 1; }

if [[ ! -x "$bin/footstepd" || ! -x "$bin/footstepctl" ]]; then
  step "Building footstepd and footstepctl (release; first time: a few minutes)"
  (cd "$repo" && swift build -c release --product footstepd && swift build -c release --product footstepctl)
  bin=$repo/.build/release
fi
footstepd=$bin/footstepd
ctl=$bin/footstepctl

work=${DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/footstepd-demo.XXXXXX")}
mkdir -p "$work"
state=$work/state
socket=$work/control.sock
log=$work/footstepd.log
config=$work/footstepd.toml
echo "footstepd demo: working in $work"

# Last night: the one that ended this morning, or the one before when it is
# not over yet (before 07:00).
if (( 10#$(date +%H) >= 7 )); then night=$(date -d yesterday +%F); else night=$(date -d '2 days ago' +%F); fi
morning=$(date -d "$night + 1 day" +%F)
cat > "$config" <<TOML
# The demo's configuration (see config/footstepd.toml for every key).
[capture]
microphone = "none: footstepd's built-in synthetic night (--source demo)"
placement = "a simulated bedroom below a timber-joist floor"
[levels]
# The synthetic night's background reads about 31 dB(A) with this offset. A
# real installation measures it: footstepctl calibrate.
calibration_offset = 92
[reports]
quiet_hours = "23:00-07:00"
address = "Flat 1, 12 Example Street (demo)"
notes = "A synthesized night upstairs, recorded by the footstepd demo."
directory = "$work/report"
TOML

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

# Starts footstepd in the background on a part of the night.
start_daemon() {  # SCENARIO STARTED_AT
  echo "\$ footstepd --config $config --source demo:$1 --started-at $2 --speed $speed --state-dir $state --socket $socket"
  "$footstepd" --config "$config" --source "demo:$1" --started-at "$2" --speed "$speed" \
    --state-dir "$state" --socket "$socket" >>"$log" 2>&1 &
  daemon=$!
  for _ in $(seq 1 100); do
    [[ -S "$socket" ]] && "$ctl" status --socket "$socket" >/dev/null 2>&1 && return 0
    kill -0 "$daemon" 2>/dev/null || { tail -20 "$log" >&2; fail "footstepd exited before answering on its socket (log: $log)"; }
    sleep 0.2
  done
  fail "footstepd did not answer on its control socket within 20 s (log: $log)"
}

# The control commands (status, events) talk to the daemon over the socket.
control() {
  if ! "$ctl" "$@" --socket "$socket"; then
    echo "(footstepctl $1 failed; the daemon keeps recording)"
  fi
}

step "Recording the night of $night from 22:00 (8 h of synthetic night at ${speed}x real time)"
start_daemon "night:seed=$seed,duration=28800" "${night}T22:00"
sleep 4
step "footstepctl status (while recording)"
control status
step "footstepctl events list --limit 10 (the first events of the night)"
control events list --limit 10
step "footstepctl diary add (the complainant's diary, chained like the events)"
control diary add "Heavy footsteps overhead, then a thud; woke us up" --at "$night 23:40" --duration 15m
sleep 5

step "A power cut: footstepd is killed (SIGKILL) in the middle of the night"
kill -KILL "$daemon"
wait "$daemon" 2>/dev/null || true
daemon=
rm -f "$socket"
echo "killed; the session is left open and its audio file unfinished"

step "footstepd starts again at 01:15 and records until 06:00 (its microphone unplugged 03:10-03:22)"
start_daemon "night:seed=$((seed + 1)),duration=17100,device_loss=6900+720" "${morning}T01:15"
sleep 3
step "footstepctl status (later)"
control status
step "footstepctl mark (\"now\": the complainant's one-key mark; its audio is kept as a clip)"
control mark "thumping overhead right now"
echo "At start-up footstepd found the unfinished session:"
grep -E "repaired unfinished|was interrupted" "$log" | sed 's/^/  /' || true

step "Waiting for footstepd to finish the night"
status=0
wait "$daemon" || status=$?
daemon=
(( status == 0 )) || fail "footstepd exited with status $status (log: $log)"
grep -E "session [0-9]+ (completed|interrupted)|capture device (lost|back)|clip of diary mark" "$log" | sed 's/^/  /' || true

step "footstepctl verify (hash chain, audio files, clips)"
"$ctl" verify --state-dir "$state"

step "footstepctl report --config (quiet hours, address, directory from [reports])"
"$ctl" report --config "$config" --state-dir "$state" --period "${night}T22:00..${morning}T08:00" \
  --format pdf,html,json --title "footstepd demo: a synthesized night upstairs"

step "footstepctl bundle (report, clips, JSON export, SHA-256 manifest)"
"$ctl" bundle --state-dir "$state" --from "$night 22:00" --to "$morning 08:00" \
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
