#!/usr/bin/env bash
# Benchmarks (figures printed; nothing here is pass/fail):
# - synthesizes a 60-minute 16 kHz mixed scenario once (cached in BENCH_DIR),
# - times `footstepctl analyze` on it (classification on): x-realtime, CPU seconds, peak RSS,
#   and `aubioonset -O energy` on the same file, the two alternating run by run, five runs each
#   (issue 15: analyze ≥ 1.5× as fast; best to best and median to median),
# - prints the cost of each analysis stage (decode, weighting/levels, detector, classifier
#   per event) from an in-process harness (`footstep-bench stages`),
# - then the report and control-socket benchmarks (`footstep-bench report`, `footstep-bench api`);
#   bench-daemon.sh runs `footstep-bench store` (appends, a one-day read, the review of 500 events).
# Wall-clock figures need a quiet machine; the harness's CPU seconds do not.
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
import resource, shutil, statistics, subprocess, sys, time
ctl, audio = sys.argv[1], sys.argv[2]
RUNS = 5


def timed(command):
    """(wall seconds, CPU seconds of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# The two tools alternate, run by run, so that both see the same machine (its
# neighbours' load changes from one minute to the next).
analyze_command = [ctl, "analyze", "--quiet", audio]
aubio_command = ["aubioonset", "-i", audio, "-O", "energy"] if shutil.which("aubioonset") else None
analyze, aubio = [], []
for _ in range(RUNS):
    analyze.append(timed(analyze_command))
    if len(analyze) == 1:  # the children's peak RSS before aubioonset has run
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if aubio_command:
        aubio.append(timed(aubio_command))
wall, cpu = min(analyze)
median = statistics.median(w for w, _ in analyze)
print(f"footstepctl analyze (classification on), 3600 s of 16 kHz audio, {RUNS} runs: best {wall:.3f} s wall "
      f"({3600 / wall:.0f}x realtime, {cpu:.3f} s CPU over three threads), median {median:.3f} s; peak RSS {rss:.1f} MB")
if aubio:
    aubio_wall, aubio_cpu = min(aubio)
    aubio_median = statistics.median(w for w, _ in aubio)
    print(f"aubioonset -O energy (onsets only, no levels or classes), same file, alternating with it: best {aubio_wall:.3f} s "
          f"wall ({aubio_cpu:.3f} s CPU), median {aubio_median:.3f} s; footstepctl analyze is {aubio_wall / wall:.2f}x as fast "
          f"best to best, {aubio_median / median:.2f}x median to median (aim >= 1.5x)")
else:
    print("aubioonset not installed (apt-get install aubio-tools): no comparison")
PY
"$bin/footstep-bench" stages "$audio"
# Evidence report on a 30-day, 100,000-event store, and control-socket latency
# against a daemon whose store holds 1,000,000 events (both stores built once,
# cached in BENCH_DIR; the second takes about 80 s the first time).
"$bin/footstep-bench" report --data "$dir/report"
"$bin/footstep-bench" api --data "$dir/api"
