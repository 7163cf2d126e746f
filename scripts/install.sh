#!/usr/bin/env bash
# Installs footstepd: binaries, systemd units, sysusers/tmpfiles snippets, the
# default configuration (never overwriting an existing one), docs and, when
# generated (scripts/generate-completions.sh), completions and man pages.
#
#   scripts/install.sh [BIN_DIR]          (make install)
#
# BIN_DIR holds the built footstepd and footstepctl (default .build/release).
# Environment: PREFIX (default /usr/local), DESTDIR (staging root for
# packaging; nothing is started or reloaded then), SYSCONFDIR (default /etc).
# Units go to PREFIX/lib/systemd/system, snippets to PREFIX/lib/sysusers.d and
# PREFIX/lib/tmpfiles.d: systemd reads all three under /usr and /usr/local.
set -euo pipefail
bin=${1:-.build/release}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
SYSCONFDIR=${SYSCONFDIR:-/etc}
root=$(cd "$(dirname "$0")/.." && pwd)

for tool in footstepd footstepctl; do
  [ -x "$bin/$tool" ] || { echo "install: $bin/$tool is missing (build first: make release)" >&2; exit 1; }
done

say() { echo "install: $*"; }
dest() { echo "$DESTDIR$1"; }

install -d -m 0755 "$(dest "$PREFIX/bin")"
install -m 0755 "$bin/footstepd" "$bin/footstepctl" "$(dest "$PREFIX/bin")/"
say "$PREFIX/bin/footstepd, $PREFIX/bin/footstepctl"
# The fleet collector (docs/fleet.md), when it was built.
if [ -x "$bin/footstep-collector" ]; then
  install -m 0755 "$bin/footstep-collector" "$(dest "$PREFIX/bin")/"
  say "$PREFIX/bin/footstep-collector"
fi

# The model: the binaries look in ../share/footstepd beside themselves (FootstepModel.shippedLocations),
# so the installed daemon never depends on the build tree.
install -d -m 0755 "$(dest "$PREFIX/share/footstepd")"
install -m 0644 "$root/Sources/FootstepClassifier/Resources/footstep-model.json" "$(dest "$PREFIX/share/footstepd")/"
say "$PREFIX/share/footstepd/footstep-model.json"

# Units name the binaries by absolute path: point them at PREFIX.
unitdir="$PREFIX/lib/systemd/system"
install -d -m 0755 "$(dest "$unitdir")"
for unit in "$root"/systemd/*.service "$root"/systemd/*.timer; do
  [ -e "$unit" ] || continue
  sed -e "s|/usr/local/bin/|$PREFIX/bin/|g" -e "s|/usr/local/share/doc/|$PREFIX/share/doc/|g" "$unit" \
    > "$(dest "$unitdir")/$(basename "$unit")"
  chmod 0644 "$(dest "$unitdir")/$(basename "$unit")"
  say "$unitdir/$(basename "$unit")"
done
install -d -m 0755 "$(dest "$PREFIX/lib/sysusers.d")" "$(dest "$PREFIX/lib/tmpfiles.d")"
install -m 0644 "$root/systemd/footstepd.sysusers" "$(dest "$PREFIX/lib/sysusers.d")/footstepd.conf"
install -m 0644 "$root/systemd/footstepd.tmpfiles" "$(dest "$PREFIX/lib/tmpfiles.d")/footstepd.conf"
say "$PREFIX/lib/sysusers.d/footstepd.conf, $PREFIX/lib/tmpfiles.d/footstepd.conf"

# The configuration is the user's once installed: never overwrite it.
confdir="$SYSCONFDIR/footstepd"
install -d -m 0755 "$(dest "$confdir")"
if [ -e "$(dest "$confdir/footstepd.toml")" ]; then
  install -m 0644 "$root/config/footstepd.toml" "$(dest "$confdir")/footstepd.toml.default"
  say "kept your $confdir/footstepd.toml; the shipped default is $confdir/footstepd.toml.default"
else
  install -m 0644 "$root/config/footstepd.toml" "$(dest "$confdir")/footstepd.toml"
  say "$confdir/footstepd.toml (default configuration)"
fi

docdir="$PREFIX/share/doc/footstepd"
install -d -m 0755 "$(dest "$docdir")"
for doc in README.md CHANGELOG.md ARCHITECTURE.md docs/*.md; do
  [ -e "$root/$doc" ] && install -m 0644 "$root/$doc" "$(dest "$docdir")/"
done
if [ -d "$root/contrib/completions" ]; then
  install -D -m 0644 "$root/contrib/completions/footstepctl.bash" "$(dest "$PREFIX/share/bash-completion/completions")/footstepctl"
  install -D -m 0644 "$root/contrib/completions/_footstepctl" "$(dest "$PREFIX/share/zsh/site-functions")/_footstepctl"
  install -D -m 0644 "$root/contrib/completions/footstepctl.fish" "$(dest "$PREFIX/share/fish/vendor_completions.d")/footstepctl.fish"
fi
if compgen -G "$root/contrib/man/*.1" > /dev/null; then
  install -d -m 0755 "$(dest "$PREFIX/share/man/man1")"
  install -m 0644 "$root"/contrib/man/*.1 "$(dest "$PREFIX/share/man/man1")/"
fi

if [ -z "$DESTDIR" ]; then
  if [ -d /run/systemd/system ]; then
    systemd-sysusers "$PREFIX/lib/sysusers.d/footstepd.conf"
    systemd-tmpfiles --create "$PREFIX/lib/tmpfiles.d/footstepd.conf"
    systemctl daemon-reload
    say "enable and start it with: systemctl enable --now footstepd"
  else
    say "systemd is not running here: create the user with systemd-sysusers and start footstepd by hand"
  fi
else
  say "staged under DESTDIR=$DESTDIR (no users created, systemd not reloaded)"
fi
