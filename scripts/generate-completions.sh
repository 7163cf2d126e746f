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
# Man pages come from swift-argument-parser's `generate-manual` tool, a product
# of the package's own argument-parser dependency, built into BIN_DIR next to
# footstepctl (debug: ~25 s the first time, no network). It reads footstepctl's
# `--experimental-dump-help`. (The `swift package generate-manual` plugin does
# the same but builds every product of the package in release mode first.)
#
# Environment: SWIFT (default swift), BUILD_FLAGS (e.g. --scratch-path .build-x),
# SOURCE_DATE (the date printed in the pages, default today).
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

tool="$bin/generate-manual"
if [ ! -x "$tool" ]; then
  # shellcheck disable=SC2086 # BUILD_FLAGS is a list of flags
  ${SWIFT:-swift} build ${BUILD_FLAGS:-} --product generate-manual >&2
fi
rm -f "$out"/man/footstepctl*.1
"$tool" "$ctl" --multi-page --date "${SOURCE_DATE:-$(date +%Y-%m-%d)}" --section 1 \
  --authors "the footstepd authors" --output-directory "$out/man"
rm -f "$out/man/footstepctl.help.1"  # the implicit `help` subcommand
echo "man pages:   $(find "$out/man" -name 'footstepctl*.1' | wc -l) in $out/man"
