#!/usr/bin/env python3
"""Feeds raw audio into a FIFO at the pace of real time, for the ALSA `file`
plugin's `infile` (PLATFORM.md section 3): the plugin's null slave is not
clocked, so a reader blocked on the FIFO is paced by this writer instead.

    paced-fifo-writer.py FIFO RAW_FILE BYTES_PER_SECOND CHUNK_BYTES

RAW_FILE is looped. CHUNK_BYTES must be a multiple of what the reader asks for
in one read (the capture period in bytes) and at most PIPE_BUF (4096), so each
write lands whole. When the reader closes the FIFO (the device is reopened),
the writer waits for the next reader and goes on. It stops on SIGTERM/SIGINT.
Stopped with SIGSTOP and continued, it goes on at real time from then (as a
microphone whose audio stalled: the missed audio never comes).
"""
import errno
import os
import select
import signal
import sys
import time


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    fifo, raw_path = sys.argv[1], sys.argv[2]
    bytes_per_second, chunk = int(sys.argv[3]), int(sys.argv[4])
    if not 0 < chunk <= select.PIPE_BUF:
        print(f"paced-fifo-writer: a chunk of {chunk} bytes cannot be written whole into a pipe", file=sys.stderr)
        return 64
    with open(raw_path, "rb") as handle:
        audio = handle.read()
    usable = len(audio) - len(audio) % chunk
    if usable == 0:
        print(f"paced-fifo-writer: {raw_path} holds less than one chunk ({chunk} bytes)", file=sys.stderr)
        return 65
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    seconds_per_chunk = chunk / bytes_per_second
    position = 0
    while True:
        descriptor = os.open(fifo, os.O_WRONLY)  # blocks until the reader opens it
        start = time.monotonic()
        written = 0
        try:
            while True:
                os.write(descriptor, audio[position:position + chunk])
                position = (position + chunk) % usable
                written += 1
                delay = start + written * seconds_per_chunk - time.monotonic()
                if delay < -1:  # stopped for a while: real time from now, no catching up
                    start = time.monotonic() - written * seconds_per_chunk
                elif delay > 0:
                    time.sleep(delay)
        except BrokenPipeError:
            pass
        except OSError as error:
            if error.errno != errno.EPIPE:
                raise
        finally:
            os.close(descriptor)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
