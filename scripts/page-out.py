#!/usr/bin/env python3
"""Ask the kernel to reclaim a process's file-backed pages (process_madvise
MADV_PAGEOUT over every mapping of a file), for scripts/bench-daemon.sh.

RSS counts every page of the binary and its libraries the process has
touched since it started, plus the neighbours the kernel maps with each
fault (fault-around, 64 KiB): start-up code that never runs again stays
counted. After a page-out, what comes back is what the process uses.

    scripts/page-out.py PID

Needs Linux 5.10+ and CAP_SYS_NICE (root); exits 2 with a message otherwise.
"""
import ctypes
import os
import sys

SYS_PIDFD_OPEN, SYS_PROCESS_MADVISE, MADV_PAGEOUT = 434, 440, 21


class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: page-out.py PID", file=sys.stderr)
        return 64
    pid = int(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        print(f"page-out: pidfd_open({pid}): {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 2
    requested = 0
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) < 6 or not fields[5].startswith("/"):
                continue  # anonymous memory, stacks, [vdso]: not file-backed
            low, high = (int(x, 16) for x in fields[0].split("-"))
            vector = IOVec(low, high - low)
            done = libc.syscall(SYS_PROCESS_MADVISE, pidfd, ctypes.byref(vector), 1, MADV_PAGEOUT, 0)
            if done < 0:
                print(f"page-out: process_madvise: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
                return 2
            requested += done
    os.close(pidfd)
    print(f"page-out: {requested / 2**20:.1f} MB of file mappings of {pid} offered to reclaim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
