#!/usr/bin/env bash
# The demo: no microphone needed. Synthesizes a night of footsteps through a
# ceiling (with door slams, knocks and background noise) and analyses it.
set -euo pipefail
bin=${1:-.build/debug}
work=$(mktemp -d "${TMPDIR:-/tmp}/footstepd-demo.XXXXXX")
echo "footstepd demo: working in $work"
"$bin/footstepctl" synth --scenario night --duration 20m --seed 7 -o "$work/night.flac" --truth "$work/night-truth.csv"
"$bin/footstepctl" analyze "$work/night.flac" --output "$work/results"
echo
if command -v python3 >/dev/null; then
  echo "Detection against the scenario's ground truth (all impacts, ±50 ms):"
  python3 "$(dirname "$0")/../tools/score_detections.py" --all "$work/night-truth.csv" "$work/results/night.csv"
fi
"$bin/footstepctl" report --audio "$work/night.flac" --start "$(date +%Y-%m-%d)T23:00:00" \
  --title "footstepd demo: a synthesized night upstairs" -o "$work/report.html"
echo "Ground truth: $work/night-truth.csv"
echo "Events found: $work/results/night.csv"
echo "Report:       $work/report.html"
