#!/usr/bin/env bash
# Builds footstepd's Debian package from built binaries (make deb):
#
#   scripts/make-deb.sh BIN_DIR OUT_DIR
#
# The tree is what `make install` installs with PREFIX=/usr, SYSCONFDIR=/etc
# (scripts/install.sh into a staging root): binaries in /usr/bin, the model in
# /usr/share/footstepd, units in /usr/lib/systemd/system (/lib is /usr/lib on
# Debian 12), sysusers and tmpfiles snippets, /etc/footstepd/footstepd.toml as
# a conffile, docs, man pages and completions when generated. The maintainer
# scripts create the user and groups (systemd-sysusers) and the directories
# (systemd-tmpfiles) and leave the service disabled, as Debian daemons do:
# `systemctl enable --now footstepd` starts it. Purging removes the
# configuration; the evidence under /var/lib/footstepd is never removed.
#
# Depends is worked out from the shared libraries the binaries load (dpkg -S);
# the Swift runtime must be linked in (make deb builds with
# --static-swift-stdlib), or the package depends on a toolchain no Debian
# machine has: the script refuses such binaries unless ALLOW_SWIFT_RUNTIME=1.
# DEB_COMPRESSION (default xz) is passed to dpkg-deb -Z.
set -euo pipefail
bin=$(cd "${1:?BIN_DIR}" && pwd)
out=${2:?OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/.*public static let current = "\(.*\)".*/\1/p' "$root/Sources/FootstepCore/FootstepVersion.swift")
arch=$(dpkg --print-architecture)
stage=$(mktemp -d "${TMPDIR:-/tmp}/footstepd-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT

DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc "$root/scripts/install.sh" "$bin" > /dev/null
# Packaged binaries carry no debug symbols, as Debian's (dh_strip): a static footstepd goes from 159 MB to 83 MB.
if command -v strip > /dev/null; then strip --strip-unneeded "$stage"/usr/bin/*; fi

# Depends: the packages of the libraries the binaries load, the Swift runtime excepted.
libraries=$(for tool in "$stage"/usr/bin/*; do ldd "$tool"; done | awk '/=> \// { print $3 }' | sort -u)
if grep -q 'libswiftCore' <<< "$libraries" && [ "${ALLOW_SWIFT_RUNTIME:-0}" != 1 ]; then
  echo "make-deb: $bin's binaries load the Swift runtime from the toolchain; build them with --static-swift-stdlib (make deb does)" >&2
  exit 1
fi
depends=$(for library in $libraries; do
  case "$library" in */swift/* | *libswift* | *libFoundation* | *lib_FoundationICU* | *libdispatch* | *libBlocksRuntime*) continue ;; esac
  dpkg -S "$library" 2> /dev/null || dpkg -S "$(readlink -f "$library")" 2> /dev/null || true
done | cut -d: -f1 | sort -u | paste -sd, - | sed 's/,/, /g')
# Run, not linked: what the service and its scripts call.
# procps: the unit reloads with /bin/kill -HUP (a minimal Debian has no /bin/kill without it).
depends="$depends, systemd, adduser, procps"

install -d "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: footstepd
Version: $version-1
Architecture: $arch
Maintainer: footstepd developers <footstepd@localhost>
Installed-Size: $size
Depends: $depends
Recommends: alsa-utils
Suggests: mosquitto, postgresql
Section: sound
Priority: optional
Homepage: https://github.com/footstepd/footstepd
Description: records footsteps and impact noise from a neighbour as evidence
 footstepd listens to a microphone, measures levels (dB(A), dB(C)), detects
 and classifies footsteps and other impacts, keeps the audio, and writes
 sessions, events and per-minute levels to SQLite under a SHA-256 chain.
 footstepctl reviews the night (also in a browser: footstepctl ui), makes
 evidence reports (PDF, HTML, CSV, JSON) and verifies the evidence.
CONTROL
find "$stage/etc" -type f | sed "s|^$stage||" > "$stage/DEBIAN/conffiles"

cat > "$stage/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
# footstepd: the user and groups, the directories; the service stays disabled
# until `systemctl enable --now footstepd`.
set -e
if [ "$1" = configure ]; then
    systemd-sysusers footstepd.conf
    systemd-tmpfiles --create footstepd.conf || true
    if [ -d /run/systemd/system ]; then
        systemctl daemon-reload || true
    fi
fi
exit 0
SCRIPT
cat > "$stage/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
    systemctl stop footstepd.service footstepd-report.timer footstep-collector.service 2> /dev/null || true
    systemctl disable footstepd.service footstepd-report.timer footstep-collector.service 2> /dev/null || true
fi
exit 0
SCRIPT
cat > "$stage/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
# The evidence (/var/lib/footstepd) is never removed, not even by purge.
set -e
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload || true
fi
if [ "$1" = purge ] && [ -d /var/lib/footstepd ]; then
    echo "footstepd: the evidence in /var/lib/footstepd is kept; remove it yourself if it is no longer needed" >&2
fi
exit 0
SCRIPT
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"

package="$out/footstepd_${version}-1_${arch}.deb"
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$stage" "$package" > /dev/null
echo "$package"
