#!/usr/bin/env bash
# Removes what scripts/install.sh installed (make uninstall). The evidence
# (/var/lib/footstepd: database, audio, clips), the configuration you edited
# and the footstepd user are kept: delete them yourself once you are sure.
#
# Environment: PREFIX (default /usr/local), DESTDIR, SYSCONFDIR (default /etc).
set -euo pipefail
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
SYSCONFDIR=${SYSCONFDIR:-/etc}
root=$(cd "$(dirname "$0")/.." && pwd)
dest() { echo "$DESTDIR$1"; }

units=()
for unit in "$root"/systemd/*.service "$root"/systemd/*.timer; do
  [ -e "$unit" ] && units+=("$(basename "$unit")")
done
if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
  systemctl disable --now "${units[@]}" 2>/dev/null || true
fi

rm -f "$(dest "$PREFIX/bin")/footstepd" "$(dest "$PREFIX/bin")/footstepctl" "$(dest "$PREFIX/bin")/footstep-collector"
for unit in "${units[@]}"; do rm -f "$(dest "$PREFIX/lib/systemd/system")/$unit"; done
rm -f "$(dest "$PREFIX/lib/sysusers.d")/footstepd.conf" "$(dest "$PREFIX/lib/tmpfiles.d")/footstepd.conf"
rm -rf "$(dest "$PREFIX/share/doc/footstepd")"
rm -rf "$(dest "$PREFIX/share/footstepd")"
rm -f "$(dest "$PREFIX/share/bash-completion/completions")/footstepctl" \
  "$(dest "$PREFIX/share/zsh/site-functions")/_footstepctl" \
  "$(dest "$PREFIX/share/fish/vendor_completions.d")/footstepctl.fish" \
  "$(dest "$PREFIX/share/man/man1")"/footstepctl*.1
# The shipped default is ours; an edited footstepd.toml is the user's.
confdir="$(dest "$SYSCONFDIR/footstepd")"
rm -f "$confdir/footstepd.toml.default"
if [ -f "$confdir/footstepd.toml" ] && cmp -s "$confdir/footstepd.toml" "$root/config/footstepd.toml"; then
  rm -f "$confdir/footstepd.toml"
  rmdir "$confdir" 2>/dev/null || true
fi

if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
echo "uninstall: done; kept the evidence in /var/lib/footstepd$([ -f "$confdir/footstepd.toml" ] && echo ", your $SYSCONFDIR/footstepd/footstepd.toml") and the footstepd user"
