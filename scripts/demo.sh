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
echo "Ground truth: $work/night-truth.csv"
echo "Events found: $work/results/night.csv"
