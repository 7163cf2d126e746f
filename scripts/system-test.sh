#!/usr/bin/env bash
# make test-system: the Debian package under a real systemd (issue 69).
#
#   scripts/system-test.sh [DEB] [CACHE_DIR]
#
# Boots systemd as PID 1 of a new PID namespace whose root is a Debian 12 tree
# from debootstrap (../shared/PLATFORM.md section 12: `systemd-nspawn --boot`
# fails on this kind of machine), installs DEB there with apt (its dependencies
# come from the Debian mirror), and checks, each as one PASS or FAIL line:
#   - the package leaves the service disabled, as Debian daemons are;
#   - `systemctl enable --now footstepd` reaches active (running) with Type=notify,
#     capturing from an ALSA file-plugin PCM whose FIFO this script fills at the
#     pace of real time with a synthetic walk;
#   - the watchdog is fed: still running, never restarted, after twice WatchdogSec;
#   - `journalctl -u footstepd FOOTSTEP_TYPE=…` finds the walk's footsteps;
#   - `footstepctl status` works for a member of the footstepd group and is
#     refused to a user outside it;
#   - `systemd-analyze security footstepd` rates the unit 2.5 or less;
#   - `systemctl reload` rereads the configuration;
#   - a microphone that stops (the FIFO's writer stopped for 15 s) is a
#     device-lost gap, not a restart;
#   - the report timer's service writes a report;
#   - `systemctl stop` ends the session as completed.
# The debootstrapped tree is cached in CACHE_DIR (default
# /var/cache/footstepd-system) and copied for each run. Needs root, debootstrap,
# unshare and nsenter, sox, python3 and a footstepctl build (for the walk's audio);
# without them, or on a machine where the container cannot boot, it says why and
# exits 0 without testing (exit 77 when SYSTEM_TEST_REQUIRED=1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
deb=${1:-$(ls -t "$repo"/dist/footstepd_*.deb 2> /dev/null | head -1 || true)}
cache=${2:-/var/cache/footstepd-system}
footstepctl=${FOOTSTEPCTL:-$repo/.build/release/footstepctl}

skip() {
  echo "system test skipped: $*"
  [ "${SYSTEM_TEST_REQUIRED:-0}" = 1 ] && exit 77
  exit 0
}
[ "$(id -u)" = 0 ] || skip "it needs root (a PID namespace, chroot and debootstrap)"
for tool in debootstrap unshare nsenter sox python3; do
  command -v "$tool" > /dev/null || skip "$tool is not installed"
done
[ -n "$deb" ] && [ -s "$deb" ] || skip "no package: run make deb first, or pass the .deb"
[ -x "$footstepctl" ] || skip "$footstepctl is missing (make release)"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

# --- the Debian 12 tree, once -------------------------------------------------------
pristine=$cache/bookworm-root
if [ ! -x "$pristine/lib/systemd/systemd" ]; then
  echo "debootstrapping Debian 12 into $pristine (once; cached)"
  mkdir -p "$cache"
  rm -rf "$pristine.partial"
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$pristine.partial" \
    http://deb.debian.org/debian > "$cache/debootstrap.log" 2>&1 \
    || skip "debootstrap failed (no network to deb.debian.org?): see $cache/debootstrap.log"
  mv "$pristine.partial" "$pristine"
fi

work=$(mktemp -d /var/tmp/footstepd-system.XXXXXX)
root=$work/root
cp -a "$pristine" "$root"
systemd_pid=
writer_pid=
cleanup() {
  [ -n "$writer_pid" ] && kill -CONT "$writer_pid" 2> /dev/null && kill "$writer_pid" 2> /dev/null
  # SIGTERM does not reach a PID namespace's init; SIGKILL ends every process in it, and its mounts with it.
  [ -n "$systemd_pid" ] && kill -KILL "$systemd_pid" 2> /dev/null
  wait 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- the walk, and the microphone it comes from ---------------------------------------
"$footstepctl" synth --scenario walking --duration 120 --seed 69 --rate 16000 --snr 20 -o "$work/walk.wav" > /dev/null
sox "$work/walk.wav" -t raw -e signed-integer -b 16 -c 1 -r 16000 "$work/walk.raw"
mkdir -p "$root/var/lib/footstepd-mic"
mkfifo -m 0666 "$root/var/lib/footstepd-mic/mic.fifo"
cat > "$root/etc/asound.conf" << 'ALSA'
# The system test's microphone: a FIFO the test fills at the pace of real time.
pcm.testmic {
  type file
  slave.pcm { type null }
  file "/dev/null"
  infile "/var/lib/footstepd-mic/mic.fifo"
  format "raw"
}
ALSA
# The default capture period at 16 kHz is 1,024 frames: each write is one period of S16_LE mono.
python3 "$here/paced-fifo-writer.py" "$root/var/lib/footstepd-mic/mic.fifo" "$work/walk.raw" 32000 2048 &
writer_pid=$!

# --- boot ----------------------------------------------------------------------------
# The tree becomes the namespace's root with pivot_root, not chroot: under a chroot, whose / is no mount point,
# every sandboxing setting that needs a mount namespace (ProtectSystem=, PrivateTmp= …) fails with 226/NAMESPACE.
cat > "$work/boot.sh" << BOOT
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/run"
cd "$root"
mkdir -p .host
pivot_root . .host
umount -l /.host
exec env container=other /lib/systemd/systemd --system --log-target=console
BOOT
unshare --pid --fork --mount --uts --ipc bash "$work/boot.sh" > "$work/console.log" 2>&1 &
unshare_pid=$!
for _ in $(seq 100); do
  systemd_pid=$(pgrep -P "$unshare_pid" systemd || true)
  [ -n "$systemd_pid" ] && break
  sleep 0.1
done
[ -n "$systemd_pid" ] || skip "systemd did not start in the namespace: $(tail -3 "$work/console.log")"
inside() { nsenter -t "$systemd_pid" -m -p -u -i -r -w "$@"; }
state=
for _ in $(seq 120); do
  state=$(inside systemctl is-system-running 2> /dev/null || true)
  case $state in running | degraded) break ;; esac
  sleep 0.5
done
case $state in running | degraded) ;; *) skip "the container's systemd did not come up (is-system-running: $state)" ;; esac
echo "systemd is up in the container ($state)"

failures=0
check() { # check NAME COMMAND...: one PASS or FAIL line
  local name=$1
  shift
  if "$@"; then echo "PASS $name"; else
    echo "FAIL $name"
    failures=$((failures + 1))
  fi
}
wait_for() { # wait_for SECONDS COMMAND...
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 1
  done
}

# --- install ------------------------------------------------------------------------
cp "$deb" "$root/root/footstepd.deb"
if ! inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /root/footstepd.deb > "$work/apt.log" 2>&1; then
  tail -20 "$work/apt.log"
  echo "FAIL the package installs with apt"
  exit 1
fi
echo "PASS the package installs with apt ($(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version))"
check "the service is left disabled until the user enables it" \
  test "$(inside systemctl is-enabled footstepd 2> /dev/null || true)" = disabled
check "the package created the footstepd user and its groups" eval "inside getent passwd footstepd > /dev/null && inside getent group footstepd footstepd-admin > /dev/null"

sed -i 's/^device = "default"$/device = "testmic"/' "$root/etc/footstepd/footstepd.toml"
grep -q '^device = "testmic"$' "$root/etc/footstepd/footstepd.toml"

# --- run ------------------------------------------------------------------------------
inside systemctl enable --now footstepd > /dev/null 2>&1 || true
active() { test "$(inside systemctl is-active footstepd 2> /dev/null)" = active; }
check "systemctl enable --now reaches active (running) with Type=notify" wait_for 30 active
restarts() { inside systemctl show -p NRestarts --value footstepd; }
watchdog=$(inside systemctl show -p WatchdogUSec --value footstepd)
sleep 65
check "the watchdog ($watchdog) is fed: running after 65 s, never restarted" \
  eval 'active && [ "$(restarts)" = 0 ] && ! inside journalctl -u footstepd -q | grep "Watchdog timeout" > /dev/null'
steps=(FOOTSTEP_TYPE=heel_strike FOOTSTEP_TYPE=running FOOTSTEP_TYPE=stomping FOOTSTEP_TYPE=shuffling FOOTSTEP_TYPE=unknown)
footsteps() { inside journalctl -u footstepd -q -o cat "${steps[@]}" 2> /dev/null | wc -l; }
types=$(inside journalctl -u footstepd -q -F FOOTSTEP_TYPE 2> /dev/null | sort | tr '\n' ' ')
check "journalctl -u footstepd FOOTSTEP_TYPE=… finds the walk's footsteps ($(footsteps); types: ${types:-none})" \
  eval '[ "$(footsteps)" -gt 10 ]'

inside useradd -m -G footstepd resident
inside useradd -m stranger
check "footstepctl status works for a member of the footstepd group" \
  eval 'inside runuser -u resident -- footstepctl status > /dev/null'
check "footstepctl status is refused to a user outside it (exit 77)" \
  eval 'inside runuser -u stranger -- footstepctl status > /dev/null 2>&1; [ $? = 77 ]'

exposure=$(inside systemd-analyze security footstepd --no-pager 2> /dev/null \
  | sed -n 's/.*Overall exposure level for footstepd.service: \([0-9.]*\).*/\1/p')
check "systemd-analyze security footstepd: exposure ${exposure:-?} (aim 2.5 or less)" \
  eval '[ -n "$exposure" ] && awk -v e="$exposure" "BEGIN { exit !(e <= 2.5) }"'

inside systemctl reload footstepd || true
check "systemctl reload rereads the configuration" \
  wait_for 10 eval 'inside journalctl -u footstepd -q -o cat | grep "configuration reloaded" > /dev/null'

# The microphone stops: no audio for 15 s.
kill -STOP "$writer_pid"
sleep 15
kill -CONT "$writer_pid"
sleep 10
gap=$(inside runuser -u resident -- footstepctl sessions show 1 --json 2> /dev/null \
  | python3 -c 'import json, sys; s = json.load(sys.stdin); print(s["gap_count"], round(s["gap_seconds"]))' || true)
check "a microphone that stops is a device-lost gap, not a restart (gaps, seconds: ${gap:-?}; restarts: $(restarts))" \
  eval 'active && [ "$(restarts)" = 0 ] && inside journalctl -u footstepd -q -o cat | grep "capture device lost" > /dev/null \
    && awk -v g="$gap" "BEGIN { split(g, f, \" \"); exit !(f[1] >= 1 && f[2] >= 10) }"'

check "the report timer's service writes a report" \
  eval 'inside systemctl start footstepd-report.service && [ -n "$(ls "$root/var/lib/footstepd/reports/"*.pdf 2> /dev/null)" ]'

inside systemctl stop footstepd || true
check "systemctl stop ends the session as completed" \
  eval 'inside journalctl -u footstepd -q -o cat | grep -E "session [0-9]+ completed" > /dev/null'

if [ "$failures" -gt 0 ]; then
  echo "system test: $failures check(s) failed; the unit's status and journal:"
  inside systemctl status footstepd --no-pager -l 2>&1 | head -20 || true
  inside journalctl -u footstepd -q --no-pager | tail -40
  exit 1
fi
echo "system test: every check passed"
