#!/usr/bin/env bash
# Writes footstepctl's shell completions and man pages, generated from its
# argument parser (so they never drift from --help).
#
#   scripts/generate-completions.sh [BIN_DIR] [OUT_DIR]
#
# BIN_DIR holds a built footstepctl (default .build/debug); OUT_DIR defaults
# to contrib/. Writes OUT_DIR/completions/{footstepctl.bash,_footstepctl,footstepctl.fish}
# and OUT_DIR/man/footstepctl*.1 (one page per command, as git does).
#
# Man pages come from swift-argument-parser's `generate-manual` tool, run on
# footstepctl's `--experimental-dump-help` output. The tool is built from the
# package's own checkout of swift-argument-parser (no network).
set -euo pipefail
bin=${1:-.build/debug}
out=${2:-contrib}
ctl="$bin/footstepctl"
[ -x "$ctl" ] || { echo "generate-completions: no footstepctl in $bin (run swift build first)" >&2; exit 1; }

mkdir -p "$out/completions" "$out/man"
"$ctl" --generate-completion-script bash > "$out/completions/footstepctl.bash"
"$ctl" --generate-completion-script zsh > "$out/completions/_footstepctl"
"$ctl" --generate-completion-script fish > "$out/completions/footstepctl.fish"
echo "completions: $out/completions/{footstepctl.bash,_footstepctl,footstepctl.fish}"

# generate-manual lives in the argument parser's checkout next to the build directory.
scratch=$(cd "$bin/.." && pwd)
parser="$scratch/checkouts/swift-argument-parser"
tool="$scratch/generate-manual/release/generate-manual"
if [ ! -x "$tool" ]; then
  [ -d "$parser" ] || { echo "generate-completions: $parser not found (run swift package resolve)" >&2; exit 1; }
  swift build -c release --package-path "$parser" --scratch-path "$scratch/generate-manual" --product generate-manual >&2
fi
"$tool" "$ctl" --multi-page --date "${SOURCE_DATE:-$(date +%Y-%m-%d)}" --section 1 \
  --authors "the footstepd authors" --output-directory "$out/man"
echo "man pages:   $(ls "$out/man" | wc -l) in $out/man"
