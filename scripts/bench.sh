#!/usr/bin/env bash
# Benchmarks (figures printed; nothing here is pass/fail):
# - synthesizes a 60-minute 16 kHz mixed scenario once (cached in BENCH_DIR),
# - times `footstepctl analyze` on it: x-realtime, CPU seconds, peak RSS,
# - prints the cost of each analysis stage from an in-process harness.
set -euo pipefail
bin=${1:-.build/release}
dir=${2:-bench-data}
mkdir -p "$dir"
audio="$dir/mixed-60m-16k.flac"
if [ ! -s "$audio" ]; then
  echo "synthesizing $audio (once; cached)"
  "$bin/footstepctl" synth --scenario mixed --duration 60m --seed 42 --snr 12 -o "$audio" --truth "$dir/mixed-60m-16k.csv"
fi

python3 - "$bin/footstepctl" "$audio" <<'PY'
import resource, subprocess, sys, time
ctl, audio = sys.argv[1], sys.argv[2]
start = time.monotonic()
subprocess.run([ctl, "analyze", "--quiet", audio], check=True, stdout=subprocess.DEVNULL)
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
print(f"footstepctl analyze, 3600 s of 16 kHz audio: {wall:.3f} s wall, {3600 / wall:.0f}x realtime, "
      f"{cpu:.3f} s CPU, peak RSS {usage.ru_maxrss / 1024:.1f} MB")
PY
"$bin/footstep-bench" "$audio"
