#!/usr/bin/env python3
"""Fuzz run of the control socket against a real footstepd (issue 17's acceptance run;
CI runs a smaller one in ControlFuzzTests). Prints figures; exits 1 if a check fails.

    scripts/fuzz-socket.py [--bin DIR] [--requests N] [--seed S]

1. Starts the release footstepd on the demo source in a temporary state directory.
2. Root: N hostile requests over every route (`footstep-bench fuzz`), 16 pipelined per
   connection, 4 threads, the recording controls left out so that it keeps recording.
3. A reader (nobody, through setpriv, when run as root): N/5 over every route, the
   state-changing ones included (each must be refused).
4. Samples the daemon's private (anonymous) memory and RSS every second throughout.

Checks: no 5xx, no refused or stalled connection, the daemon still recording with
events still being stored, private memory after the run within 1 MB of where it
settled after the first tenth of the requests, and a clean shutdown.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def memory_kb(pid):
    """(anonymous, rss) in kB from /proc/PID/smaps_rollup."""
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":"):
                values[parts[0][:-1]] = int(parts[1])
    return values.get("Anonymous", 0), values.get("Rss", 0)


class MemorySampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.samples, self.running = pid, [], True

    def run(self):
        while self.running:
            try:
                self.samples.append((time.time(), *memory_kb(self.pid)))
            except OSError:
                return
            time.sleep(1)


def status(ctl, socket_path):
    out = subprocess.run([ctl, "status", "--json", "--socket", socket_path], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def last_event_id(answer):
    return (answer.get("last_event") or {}).get("id", 0)


def fuzz(bench, socket_path, requests, seed, extra=(), as_nobody=False):
    argv = [bench, "fuzz", "--socket", socket_path, "--requests", str(requests), "--seed", str(seed), "--json", *extra]
    if as_nobody:
        argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    run = subprocess.run(argv, capture_output=True, text=True)
    if not run.stdout.strip():
        sys.exit(f"footstep-bench fuzz failed: {run.stderr.strip()}")
    return json.loads(run.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    ap.add_argument("--requests", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    daemon_bin, ctl, bench = (os.path.join(args.bin, n) for n in ("footstepd", "footstepctl", "footstep-bench"))
    for path in (daemon_bin, ctl, bench):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} missing: swift build -c release")

    work = tempfile.mkdtemp(prefix="footstepd-fuzz-")
    os.chmod(work, 0o755)
    socket_path = os.path.join(work, "control.sock")
    # The read group is nobody's own (nogroup), so the reader pass is a real reader.
    config = os.path.join(work, "footstepd.toml")
    with open(config, "w") as f:
        f.write('[socket]\nread_group = "nogroup"\nadmin_group = "root"\n')
    log = open(os.path.join(work, "footstepd.log"), "w")
    daemon = subprocess.Popen(
        [daemon_bin, "--config", config, "--source", "demo:mixed:duration=36000", "--state-dir", os.path.join(work, "state"),
         "--socket", socket_path], stdout=log, stderr=subprocess.STDOUT)
    failures = []
    try:
        deadline = time.time() + 20
        while not os.path.exists(socket_path) and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(1)
        sampler = MemorySampler(daemon.pid)
        sampler.start()
        events_before = last_event_id(status(ctl, socket_path))

        warm = fuzz(bench, socket_path, args.requests // 10, args.seed, ["--keep-recording"])
        settled = memory_kb(daemon.pid)
        root = fuzz(bench, socket_path, args.requests, args.seed + 1, ["--keep-recording"])
        reader = None
        if os.geteuid() == 0 and shutil.which("setpriv"):
            reader = fuzz(bench, socket_path, args.requests // 5, args.seed + 2, as_nobody=True)
        after = memory_kb(daemon.pid)
        time.sleep(3)
        final = status(ctl, socket_path)
        sampler.running = False

        for name, report in (("warm-up", warm), ("root", root), ("reader", reader)):
            if report is None:
                continue
            statuses = ", ".join(f"{k}: {v}" for k, v in sorted(report["statuses"].items()))
            print(f"{name}: {report['requests']} requests in {report['seconds']:.1f} s, {report['answered']} answered "
                  f"({statuses}); 5xx {report['server_errors']}, refused connections {report['connect_failures']}, "
                  f"stalled {report['stalled_connections']}")
            if report["server_errors"] or report["connect_failures"] or report["stalled_connections"]:
                failures.append(f"{name}: 5xx, refused or stalled connections")
        if reader is not None:
            changed = {k: v for k, v in reader["statuses"].items() if k.startswith("2") and k != "200"}
            if changed:
                failures.append(f"reader: state-changing answers {changed}")
        anon = [s[1] for s in sampler.samples]
        rss = [s[2] for s in sampler.samples]
        print(f"private memory: {settled[0] / 1024:.1f} MB after the warm-up, {after[0] / 1024:.1f} MB after the run, "
              f"max {max(anon) / 1024:.1f} MB; RSS max {max(rss) / 1024:.1f} MB ({len(anon)} samples)")
        if after[0] - settled[0] > 1024:
            failures.append(f"private memory grew by {(after[0] - settled[0]) / 1024:.1f} MB")
        print(f"daemon: {final['state']}, last stored event {events_before} -> {last_event_id(final)}")
        if final["state"] != "recording" or last_event_id(final) <= events_before:
            failures.append("the daemon stopped recording or storing events")
    finally:
        daemon.terminate()
        code = daemon.wait(timeout=30)
        log.close()
    if code != 0:
        failures.append(f"footstepd exited {code} on SIGTERM")
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
