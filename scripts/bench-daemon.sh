#!/usr/bin/env bash
# Daemon benchmarks (figures printed; nothing here is pass/fail), for `make bench`:
#  1. CPU share and RSS of footstepd capturing 16 kHz mono in real time for
#     REALTIME_SECONDS (default 60) from an ALSA PCM, BENCH_CAPTURE=
#       file  (default) the ALSA file plugin, its infile a FIFO that
#             scripts/paced-fifo-writer.py fills at the pace of real time
#             (PLATFORM.md section 3): only libasound in the daemon, as with a
#             USB microphone;
#       pulse a private PulseAudio server's null sink through ALSA's pulse
#             plugin (PLATFORM.md section 9), a clocked device; the plugin
#             brings libpulse and its libraries (about 1.5 MB) into the daemon.
#  2. RSS growth over an accelerated 24-hour-equivalent run of the demo scenario
#     (a night upstairs, 86,400 s of audio as fast as the CPU allows), sampled
#     every second: growth after the first 10 % (warm-up).
# RSS figures are VmRSS (the headline), split as in /proc/PID/status into
# anonymous memory (RssAnon: heap, stacks) and file-backed pages (RssFile:
# mapped code and data of the binary and its libraries, the database's
# WAL index), sampled at the same instants. The working set is RSS 30 s after
# the file-backed pages were handed back to the kernel (scripts/page-out.py):
# the code and data the daemon keeps using, without start-up code.
#  3. Store throughput (events/s appended with the hash chain, release build)
#     from `footstep-bench store` when that subcommand is built in; then the
#     fleet collector's ingest rate and latency (`footstep-bench collector`,
#     skipped without mosquitto and postgresql).
#  4. footstepd without and with MQTT publishing (a local Mosquitto): CPU per
#     audio hour and peak anonymous memory, and their difference.
#  5. The RSS floor of the libraries alone: scripts/rss-floor.swift loads the
#     shared libraries footstepd links and uses each a little, with none of
#     footstepd's code, and prints its RSS.
#
#   scripts/bench-daemon.sh [BIN_DIR] [WORK_DIR]
#
# BIN_DIR holds release builds of footstepd (and footstep-bench), default .build/release.
set -euo pipefail
bin=$(cd "${1:-.build/release}" && pwd)
work=${2:-$(mktemp -d /tmp/footstepd-bench.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
realtime_seconds=${REALTIME_SECONDS:-60}
hours_equivalent=${HOURS_EQUIVALENT:-24}
[ -x "$bin/footstepd" ] || { echo "bench-daemon: $bin/footstepd is missing (make release)" >&2; exit 1; }
ticks=$(getconf CLK_TCK)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# CPU seconds (user+system) of a process, from /proc/PID/stat.
cpu_seconds() { awk -v t="$ticks" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# "VmRSS RssAnon RssFile+RssShmem" in kB, from one read of /proc/PID/status.
rss_split_kb() {
  awk '/^VmRSS:/ { v = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f += $2 } /^RssShmem:/ { f += $2 }
    END { if (v != "") print v, a, f }' "/proc/$1/status"
}

config="$work/footstepd.toml"
cat > "$config" <<TOML
[capture]
device = "default"
sample_rate = 16000
[recording]
audio_format = "flac"
[retention]
min_free_mb = 100
TOML

# --- 1. real-time capture -------------------------------------------------
capture=${BENCH_CAPTURE:-file}
realtime_config="$work/realtime.toml"
cp "$config" "$realtime_config"
env_prefix=()
case "$capture" in
  file)
    # The writer writes one capture period at a time: 1,024 frames (the
    # default at 16 kHz, about 64 ms) of S16_LE mono, 2,048 bytes.
    sed -e 's/^device = "default"$/device = "benchmic"/' "$config" > "$realtime_config"
    alsa="$work/alsa"
    mkdir -p "$alsa"
    [ -s "$alsa/night.raw" ] || {
      [ -x "$bin/footstepctl" ] && command -v sox > /dev/null \
        || { echo "bench-daemon: the file-plugin capture needs $bin/footstepctl and sox (or BENCH_CAPTURE=pulse)" >&2; exit 1; }
      "$bin/footstepctl" synth --scenario night --duration 5m --seed 42 --rate 16000 -o "$alsa/night.wav" > /dev/null
      sox "$alsa/night.wav" -t raw -e signed-integer -b 16 -c 1 -r 16000 "$alsa/night.raw"
    }
    rm -f "$alsa/mic.fifo"
    mkfifo "$alsa/mic.fifo"
    printf 'pcm.benchmic {\n  type file\n  slave.pcm "null"\n  file "/dev/null"\n  infile "%s"\n  format "raw"\n}\n' \
      "$alsa/mic.fifo" > "$alsa/.asoundrc"
    python3 "$(dirname "$0")/paced-fifo-writer.py" "$alsa/mic.fifo" "$alsa/night.raw" 32000 2048 &
    pids+=($!)
    env_prefix=(env HOME="$alsa")
    source_kind="alsa:benchmic (ALSA file plugin, FIFO infile paced at real time)"
    source_arg=(--source alsa:benchmic)
    ;;
  pulse)
    command -v pulseaudio > /dev/null || { echo "bench-daemon: BENCH_CAPTURE=pulse needs pulseaudio" >&2; exit 1; }
    pulse="$work/pulse"
    mkdir -p "$pulse"
    chmod 700 "$pulse"
    cat > "$pulse/room.pa" <<PA
load-module module-native-protocol-unix
load-module module-null-sink sink_name=room rate=16000 channels=1
set-default-source room.monitor
PA
    printf 'pcm.!default { type pulse }\nctl.!default { type pulse }\n' > "$pulse/.asoundrc"
    XDG_RUNTIME_DIR="$pulse" HOME="$pulse" pulseaudio --daemonize=no -n -F "$pulse/room.pa" --exit-idle-time=-1 \
      --log-target=file:"$pulse/pulse.log" &
    pids+=($!)
    for _ in $(seq 100); do [ -S "$pulse/pulse/native" ] && break; sleep 0.1; done
    [ -S "$pulse/pulse/native" ] || { echo "bench-daemon: PulseAudio did not start (see $pulse/pulse.log)" >&2; exit 1; }
    source_kind="alsa:default (PulseAudio null sink monitor, clocked)"
    env_prefix=(env XDG_RUNTIME_DIR="$pulse" HOME="$pulse")
    source_arg=(--source alsa:default)
    ;;
  *) echo "bench-daemon: BENCH_CAPTURE is 'file' or 'pulse', not '$capture'" >&2; exit 64 ;;
esac

"${env_prefix[@]}" "$bin/footstepd" --config "$realtime_config" --state-dir "$work/realtime" --socket "$work/realtime.sock" \
  "${source_arg[@]}" 2> "$work/realtime.log" &
daemon=$!
pids+=("$daemon")
sleep 5  # warm-up: model, store, first file
cpu0=$(cpu_seconds "$daemon")
t0=$(date +%s.%N)
peak=0 peak_anon=0 peak_file=0 last=""
# The CPU share of each 10 s window too: one busy moment on a shared machine
# shows as one high window rather than as a high figure for the whole run.
windows=() window_cpu=$cpu0 window_t=$t0
for i in $(seq "$realtime_seconds"); do
  sleep 1
  kill -0 "$daemon" 2> /dev/null || { echo "bench-daemon: footstepd ended early:"; tail -5 "$work/realtime.log"; exit 1; }
  if [ $((i % 10)) -eq 0 ]; then
    now_cpu=$(cpu_seconds "$daemon") now_t=$(date +%s.%N)
    windows+=("$(awk -v c0="$window_cpu" -v c1="$now_cpu" -v t0="$window_t" -v t1="$now_t" \
      'BEGIN { printf "%.2f", 100 * (c1 - c0) / (t1 - t0) }')")
    window_cpu=$now_cpu window_t=$now_t
  fi
  read -r rss anon file <<< "$(rss_split_kb "$daemon")"
  [ "$rss" -gt "$peak" ] && { peak=$rss; peak_anon=$anon; peak_file=$file; }
  last="$rss $anon $file"
done
read -r last_rss last_anon last_file <<< "$last"
cpu1=$(cpu_seconds "$daemon")
t1=$(date +%s.%N)
# Working set: reclaim the file-backed pages (start-up code included), let the
# daemon run 30 s more, and see what it touched again (needs root).
working_set=""
if python3 "$(dirname "$0")/page-out.py" "$daemon" > "$work/page-out.log" 2>&1; then
  sleep 30
  read -r ws_rss ws_anon ws_file <<< "$(rss_split_kb "$daemon")"
  working_set=$(awk -v r="$ws_rss" -v a="$ws_anon" -v f="$ws_file" 'BEGIN {
    printf "  working set: 30 s after its file-backed pages were reclaimed (scripts/page-out.py), RSS %.1f MB (anonymous %.1f MB, file-backed pages touched again %.1f MB)", r / 1024, a / 1024, f / 1024 }')
else
  working_set="  working set: not measured ($(tail -1 "$work/page-out.log"))"
fi
kill -TERM "$daemon"
wait "$daemon" || true
awk -v c0="$cpu0" -v c1="$cpu1" -v t0="$t0" -v t1="$t1" -v rss="$peak" -v src="$source_kind" \
  -v anon="$peak_anon" -v file="$peak_file" -v lrss="$last_rss" -v lanon="$last_anon" -v lfile="$last_file" 'BEGIN {
  printf "footstepd capturing 16 kHz mono in real time for %.0f s from %s: CPU %.2f %% of one core, peak RSS %.1f MB\n",
    t1 - t0, src, 100 * (c1 - c0) / (t1 - t0), rss / 1024
  printf "  RSS split at the peak: anonymous %.1f MB, file-backed %.1f MB; at the end: RSS %.1f MB, anonymous %.1f MB, file-backed %.1f MB\n",
    anon / 1024, file / 1024, lrss / 1024, lanon / 1024, lfile / 1024 }'
if [ "${#windows[@]}" -gt 0 ]; then
  printf '%s\n' "${windows[@]}" | sort -n | awk '{ v[NR] = $1 } END {
    printf "  CPU of each 10 s window (%d): lowest %.2f %%, median %.2f %%, highest %.2f %% of one core\n",
      NR, v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR] }'
fi
echo "$working_set"

# --- 2. accelerated 24-hour-equivalent run ---------------------------------
seconds=$((hours_equivalent * 3600))
start=$(date +%s.%N)
"$bin/footstepd" --config "$config" --state-dir "$work/day" --socket "$work/day.sock" \
  --source "demo:night:seed=42,duration=$seconds" --speed 10000 2> "$work/day.log" &
daemon=$!
pids+=("$daemon")
samples="$work/day-rss.txt"
: > "$samples"
while kill -0 "$daemon" 2> /dev/null; do
  split=$(rss_split_kb "$daemon" 2> /dev/null || true)
  [ -n "$split" ] && echo "$(date +%s.%N) $split" >> "$samples"
  sleep 1
done
wait "$daemon" || { echo "bench-daemon: the 24-hour run failed:"; tail -5 "$work/day.log"; exit 1; }
end=$(date +%s.%N)
events=$(sqlite3 "$work/day/footstepd.db" "SELECT COUNT(*) FROM event" 2> /dev/null || echo "?")
awk -v start="$start" -v end="$end" -v audio="$seconds" -v events="$events" '
  { t[NR] = $1; r[NR] = $2; a[NR] = $3; f[NR] = $4 }
  END {
    warm = int(NR / 10) + 1
    hi = r[warm]; ahi = a[warm]; fhi = f[warm]
    for (i = warm; i <= NR; i++) { if (r[i] > hi) hi = r[i]; if (a[i] > ahi) ahi = a[i]; if (f[i] > fhi) fhi = f[i] }
    printf "footstepd, %d h of demo audio in %.0f s (%.0fx real time), %s events: RSS %.1f MB after warm-up, %.1f MB at the end, growth %.2f MB (max - value after the first 10 %%)\n",
      audio / 3600, end - start, audio / (end - start), events, r[warm] / 1024, r[NR] / 1024, (hi - r[warm]) / 1024
    printf "  growth split (max - value after the first 10 %%, each on its own): anonymous %.2f MB (%.1f -> %.1f MB at the end), file-backed %.2f MB (%.1f -> %.1f MB)\n",
      (ahi - a[warm]) / 1024, a[warm] / 1024, a[NR] / 1024, (fhi - f[warm]) / 1024, f[warm] / 1024, f[NR] / 1024 }' "$samples"

# --- 3. store throughput ----------------------------------------------------
if [ -x "$bin/footstep-bench" ] && output=$("$bin/footstep-bench" store "$work/store.db" 2>&1) \
  && ! grep -q "not built" <<< "$output"; then
  echo "$output"
else
  echo "store throughput: footstep-bench has no 'store' subcommand in this build (see Sources/footstep-bench/StoreBenchmark.swift)"
fi
# --- 3b. the fleet collector ---------------------------------------------------
# 50 sensors into one Mosquitto broker and one PostgreSQL (footstep-bench collector): events ingested a second,
# and store-on-the-sensor to row-in-PostgreSQL latency (issue 67).
if [ -x "$bin/footstep-bench" ]; then
  "$bin/footstep-bench" collector 50 40 || echo "fleet collector: the benchmark failed (above)"
fi
# --- 4. MQTT off and on ---------------------------------------------------------
# The same accelerated night (MQTT_HOURS of audio, default 4) without and with [mqtt] publishing to a
# Mosquitto broker on loopback: CPU seconds per hour of audio and peak anonymous memory, and the difference.
if command -v mosquitto > /dev/null; then
  mqtt_hours=${MQTT_HOURS:-4}
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mosquitto -p "$port" > "$work/mosquitto.log" 2>&1 &
  pids+=($!)
  sleep 0.5
  declare -A mqtt_cpu mqtt_anon
  for mode in off on; do
    cfg="$work/mqtt-$mode.toml"
    cp "$config" "$cfg"
    [ "$mode" = on ] && printf '[mqtt]\nenabled = true\nurl = "mqtt://127.0.0.1:%s"\nhome_assistant = true\n' "$port" >> "$cfg"
    rm -rf "$work/mqtt-$mode"
    "$bin/footstepd" --config "$cfg" --state-dir "$work/mqtt-$mode" --socket "$work/mqtt-$mode.sock" \
      --source "demo:night:seed=42,duration=$((mqtt_hours * 3600))" --speed 10000 2> "$work/mqtt-$mode.log" &
    daemon=$!
    pids+=("$daemon")
    cpu=0 anon=0
    while kill -0 "$daemon" 2> /dev/null; do
      c=$(cpu_seconds "$daemon" 2> /dev/null || true)
      read -r _ a _ <<< "$(rss_split_kb "$daemon" 2> /dev/null || true)"
      [ -n "$c" ] && cpu=$c
      [ -n "${a:-}" ] && [ "$a" -gt "$anon" ] && anon=$a
      sleep 0.1
    done
    wait "$daemon" || { echo "bench-daemon: the MQTT $mode run failed:"; tail -5 "$work/mqtt-$mode.log"; break; }
    mqtt_cpu[$mode]=$cpu mqtt_anon[$mode]=$anon
  done
  if [ -n "${mqtt_cpu[on]:-}" ]; then
    outbox=$(sqlite3 "$work/mqtt-on/footstepd.db" "SELECT COUNT(*) FROM outbox" 2> /dev/null || echo "?")
    published=$(sqlite3 "$work/mqtt-on/footstepd.db" "SELECT COUNT(*) FROM event" 2> /dev/null || echo "?")
    awk -v h="$mqtt_hours" -v c0="${mqtt_cpu[off]}" -v c1="${mqtt_cpu[on]}" -v a0="${mqtt_anon[off]}" -v a1="${mqtt_anon[on]}" \
      -v left="$outbox" -v events="$published" 'BEGIN {
      printf "footstepd, %d h of demo audio accelerated, MQTT off / on (Mosquitto on loopback, Home Assistant discovery): CPU %.2f / %.2f s (%.3f / %.3f s per audio hour, difference %+.3f s per hour = %+.4f %% of one core live), peak anonymous memory %.1f / %.1f MB (difference %+.2f MB); %s events, %s rows left in the outbox at the end\n",
        h, c0, c1, c0 / h, c1 / h, (c1 - c0) / h, 100 * (c1 - c0) / h / 3600, a0 / 1024, a1 / 1024, (a1 - a0) / 1024, events, left }'
  fi
else
  echo "MQTT off/on: not measured (mosquitto is not installed)"
fi
# --- 5. the libraries' floor --------------------------------------------------
if command -v swiftc > /dev/null && swiftc -O "$(dirname "$0")/rss-floor.swift" -o "$work/rss-floor" 2> "$work/rss-floor.log"; then
  read -r floor_rss floor_anon floor_file <<< "$("$work/rss-floor" "$work/rss-floor.db")"
  echo "RSS floor of footstepd's shared libraries (scripts/rss-floor.swift: Foundation, FFTW, SQLite, ALSA, libsndfile, libsystemd, libstdc++ loaded and used a little, none of footstepd's code): ${floor_rss} MB (anonymous ${floor_anon} MB, file-backed ${floor_file} MB)"
else
  echo "RSS floor: not measured (swiftc missing or the build failed, see $work/rss-floor.log)"
fi
echo "bench-daemon: logs and data in $work"
