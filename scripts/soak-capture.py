#!/usr/bin/env python3
"""Soak test of capture outages on real-time ALSA PCMs (issue 16's acceptance
run; CI runs a shorter version, DaemonStallTests). Prints figures; exits 1 if
any check fails.

    scripts/soak-capture.py [--bin DIR] [--work DIR] [--stalls 5,10,...] [--losses N]

1. Stalls: footstepd captures from ALSA's `file` plugin whose infile is a FIFO
   that scripts/paced-fifo-writer.py fills at real time. The writer is stopped
   (SIGSTOP, the FIFO stays open) for each stall length, then continued.
2. Device losses: footstepd captures from a private PulseAudio server's null
   sink through ALSA's pulse plugin. The server is killed (the PCM goes away,
   opening it fails) for 5-15 s, then started again; the outage ends when
   `arecord` reads audio from it again.

Throughout, `footstepctl status --json` is asked every 0.5 s and must answer.
After each outage, capture must be back (captured frames growing, state
`recording`) within 5 s of the audio returning. At the end, each outage must
be covered by one stored gap to within 1 s at both ends, `PRAGMA
integrity_check` must say ok, and every audio file must decode to its stored
frame count.
"""
import argparse
import datetime
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 16000


class StatusPoller(threading.Thread):
    """Asks the daemon's status every 0.5 s; records failures and the latest answer."""

    def __init__(self, ctl, socket_path):
        super().__init__(daemon=True)
        self.ctl, self.socket_path = ctl, socket_path
        self.latest, self.asked, self.failures = None, 0, []
        self.running = True

    def run(self):
        while self.running:
            started = time.time()
            result = subprocess.run(
                [self.ctl, "status", "--json", "--socket", self.socket_path, "--timeout", "3"],
                capture_output=True, text=True)
            self.asked += 1
            if result.returncode == 0:
                self.latest = (time.time(), json.loads(result.stdout))
            elif self.latest is not None:  # before the first answer the socket may not exist yet
                self.failures.append((started, result.returncode, result.stderr.strip()[-200:]))
            time.sleep(max(0, 0.5 - (time.time() - started)))

    def frames(self):
        return self.latest[1]["capture"]["captured_frames"] if self.latest else 0

    def state(self):
        return self.latest[1]["state"] if self.latest else None


def wait_for(condition, timeout, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()


def decoded_frames(path):
    """Frames sox decodes from the whole file (mono, 16-bit), or None if it cannot."""
    result = subprocess.run(["sox", path, "-t", "raw", "-b", "16", "-"], capture_output=True)
    return len(result.stdout) // 2 if result.returncode == 0 else None


def check_store(state_dir, outages, checks):
    database = sqlite3.connect(f"file:{state_dir}/footstepd.db?mode=ro", uri=True)
    checks.append(("integrity_check ok", database.execute("PRAGMA integrity_check").fetchone()[0] == "ok", ""))
    gaps = [(parse_time(a), parse_time(b)) for a, b in
            database.execute("SELECT startedAt, endedAt FROM sessionGap ORDER BY startedAt")]
    checks.append((f"{len(outages)} outages, {len(gaps)} gaps", len(gaps) == len(outages), ""))
    worst = 0.0
    for index, (start, end) in enumerate(outages):
        # The gap nearest to this outage.
        gap = min(gaps, key=lambda g: abs(g[0] - start), default=None)
        if gap is None:
            checks.append((f"outage {index + 1} has a gap", False, ""))
            continue
        error = max(abs(gap[0] - start), abs(gap[1] - end))
        worst = max(worst, error)
        checks.append((f"outage {index + 1} ({end - start:.1f} s) covered within 1 s",
                       error <= 1, f"gap starts {gap[0] - start:+.2f} s, ends {gap[1] - end:+.2f} s"))
    files = database.execute("SELECT path, frames, closedAt FROM audioFile ORDER BY id").fetchall()
    bad = [path for path, frames, closed in files if closed is None or decoded_frames(path) != frames]
    checks.append((f"{len(files)} audio files closed and decoding to their frame counts", not bad, ", ".join(bad)))
    return worst


def run_daemon(bin_dir, work, name, source, env):
    state = f"{work}/{name}-state"
    socket_path = f"{work}/{name}.sock"
    config = f"{work}/{name}.toml"
    with open(config, "w") as handle:
        handle.write(f'[capture]\ndevice = "{source}"\nsample_rate = {RATE}\n[recording]\naudio_format = "flac"\n')
    log = open(f"{work}/{name}.log", "w")
    daemon = subprocess.Popen(
        [f"{bin_dir}/footstepd", "--config", config, "--state-dir", state, "--socket", socket_path,
         "--source", f"alsa:{source}"], env=env, stderr=log, stdout=log)
    poller = StatusPoller(f"{bin_dir}/footstepctl", socket_path)
    poller.start()
    if not wait_for(lambda: poller.frames() > RATE, 20):
        daemon.kill()
        sys.exit(f"soak: footstepd did not start capturing from {source} (see {work}/{name}.log)")
    return daemon, poller, state


def outage(poller, checks, label, begin, end, length):
    """Runs one outage: begin(), wait `length` s, end(); checks status and recovery."""
    began = time.time()
    begin()
    time.sleep(length)
    end()
    returned = time.time()
    frames = poller.frames()
    back = wait_for(lambda: poller.state() == "recording" and poller.frames() > frames + RATE // 4, 10)
    delay = time.time() - returned
    checks.append((f"{label}: capture back within 5 s", back and delay <= 5, f"{delay:.1f} s"))
    return began, returned, delay


def stop_daemon(daemon, poller):
    poller.running = False
    daemon.send_signal(signal.SIGTERM)
    try:
        return daemon.wait(30)
    except subprocess.TimeoutExpired:
        daemon.kill()
        return None


def stalls(args, env_base, checks):
    work = args.work
    alsa = f"{work}/alsa"
    os.makedirs(alsa, exist_ok=True)
    fifo = f"{alsa}/mic.fifo"
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    raw = f"{alsa}/noise.raw"
    subprocess.run(["sox", "-n", "-t", "raw", "-e", "signed-integer", "-b", "16", "-c", "1", "-r", str(RATE), raw,
                    "synth", "10", "pinknoise", "vol", "0.05"], check=True)
    with open(f"{alsa}/.asoundrc", "w") as handle:
        handle.write(f'pcm.soakmic {{\n  type file\n  slave.pcm "null"\n  file "/dev/null"\n  infile "{fifo}"\n  format "raw"\n}}\n')
    writer = subprocess.Popen([sys.executable, f"{HERE}/paced-fifo-writer.py", fifo, raw, str(RATE * 2), "2048"])
    daemon, poller, state = run_daemon(args.bin, work, "stall", "soakmic", dict(env_base, HOME=alsa))
    outages, delays = [], []
    try:
        for index, length in enumerate(args.stalls):
            began, returned, delay = outage(
                poller, checks, f"stall {index + 1} of {length} s",
                lambda: writer.send_signal(signal.SIGSTOP), lambda: writer.send_signal(signal.SIGCONT), length)
            outages.append((began, returned))
            delays.append(delay)
            checks.append((f"stall {index + 1}: footstepd alive", daemon.poll() is None, ""))
            time.sleep(3)
    finally:
        code = stop_daemon(daemon, poller)
        writer.terminate()
    checks.append(("stalls: footstepd stopped cleanly", code == 0, f"exit {code}"))
    checks.append((f"stalls: status answered {poller.asked} times", not poller.failures, str(poller.failures[:3])))
    worst = check_store(state, outages, checks)
    print(f"stalls: {len(outages)} of {', '.join(str(s) for s in args.stalls)} s; capture back after "
          f"{max(delays):.2f} s at worst (mean {sum(delays) / len(delays):.2f} s); gaps within {worst:.2f} s of the outages")


def losses(args, env_base, checks):
    work = args.work
    pulse = f"{work}/pulse"
    os.makedirs(pulse, exist_ok=True)
    os.chmod(pulse, 0o700)
    with open(f"{pulse}/room.pa", "w") as handle:
        handle.write(f"load-module module-native-protocol-unix\nload-module module-null-sink sink_name=room rate={RATE} channels=1\n"
                     "set-default-source room.monitor\n")
    with open(f"{pulse}/.asoundrc", "w") as handle:
        handle.write(f'pcm.soakpulse {{\n  type pulse\n  server "unix:{pulse}/pulse/native"\n  device "room.monitor"\n}}\n')
    env = dict(env_base, HOME=pulse, XDG_RUNTIME_DIR=pulse)
    server = {}

    def start():
        server["process"] = subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "-n", "-F", f"{pulse}/room.pa", "--exit-idle-time=-1",
             f"--log-target=file:{pulse}/pulse.log"], env=env)
        if not wait_for(lambda: os.path.exists(f"{pulse}/pulse/native"), 10):
            sys.exit("soak: PulseAudio did not start")
        # The null sink's monitor delivers audio about 2 s after the socket
        # appears: the outage ends when a second reader gets its first frames.
        probe = subprocess.run(["arecord", "-q", "-D", "soakpulse", "-f", "S16_LE", "-r", str(RATE), "-c", "1",
                                "-t", "raw", "-s", "256", "/dev/null"], env=env, timeout=20)
        if probe.returncode != 0:
            sys.exit("soak: arecord could not read the restarted PulseAudio null sink")

    def stop():
        server["process"].kill()
        server["process"].wait()
        subprocess.run(["rm", "-rf", f"{pulse}/pulse"])

    start()
    daemon, poller, state = run_daemon(args.bin, work, "loss", "soakpulse", env)
    outages, delays = [], []
    generator = random.Random(16)
    try:
        for index in range(args.losses):
            length = generator.uniform(5, 15)
            began, returned, delay = outage(poller, checks, f"loss {index + 1} of {length:.0f} s", stop, start, length)
            outages.append((began, returned))
            delays.append(delay)
            checks.append((f"loss {index + 1}: footstepd alive", daemon.poll() is None, ""))
            time.sleep(3)
    finally:
        code = stop_daemon(daemon, poller)
        stop()
    checks.append(("losses: footstepd stopped cleanly", code == 0, f"exit {code}"))
    checks.append((f"losses: status answered {poller.asked} times", not poller.failures, str(poller.failures[:3])))
    worst = check_store(state, outages, checks)
    print(f"losses: {len(outages)}; capture back after {max(delays):.2f} s at worst "
          f"(mean {sum(delays) / len(delays):.2f} s); gaps within {worst:.2f} s of the outages")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=".build/release", help="directory holding footstepd and footstepctl")
    parser.add_argument("--work", default=None, help="working directory (default: a new one under /tmp)")
    parser.add_argument("--stalls", default="5,10,15,20,25,30,40,45,50,60",
                        type=lambda text: [float(part) for part in text.split(",") if part],
                        help="stall lengths in seconds, comma-separated")
    parser.add_argument("--losses", type=int, default=10, help="PulseAudio server kills and restarts")
    args = parser.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="footstepd-soak."))
    for tool in ("footstepd", "footstepctl"):
        if not os.access(f"{args.bin}/{tool}", os.X_OK):
            sys.exit(f"soak: {args.bin}/{tool} is missing (swift build -c release)")
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    checks = []
    if args.stalls:
        stalls(args, env, checks)
    if args.losses:
        losses(args, env, checks)
    failed = [check for check in checks if not check[1]]
    for name, ok, detail in checks:
        if not ok or os.environ.get("SOAK_VERBOSE"):
            print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    print(f"soak: {len(checks) - len(failed)} of {len(checks)} checks passed (work directory {args.work})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
