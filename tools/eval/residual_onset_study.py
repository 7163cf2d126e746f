#!/usr/bin/env python3
"""Would a second onset detector on the linear-prediction residual find the steps footstepd's detector misses
under a ringing floor, and at what price in extra detections? Measured on the evaluation's training clips.

    python3 tools/eval/residual_onset_study.py --predictions DIR [--out /tmp/footstep-eval] [--clips 4]

DIR holds `footstep_eval.py score --split train --predictions DIR` output (DIR/model-K/K/CLIP.csv: every
detection of the real pipeline, any label). Through a slab a step drives floor modes that may still ring from
the one before; a spectral flux sees only the few dB the new step adds, while a linear predictor fitted to the
last 300 ms predicts the ringing and leaves the new excitation in its residual. Per clip:

- the clip decimated to 2 kHz; an order-12 predictor (autocorrelation method, Hann window) from the last
  300 ms, refitted every 50 ms; the residual's energy per 10 ms hop, in dB over its running median of the
  last 1.5 s; an onset where that is a local maximum above THRESHOLD dB, at least 130 ms after the last;
- a step is found by either detector when an onset lies within 100 ms of it (the scorer's tolerance).

Printed per transmission model and threshold: the share of steps footstepd's detector finds, the residual
detector finds, either finds; the residual onsets a minute, and those with no footstepd detection within
100 ms (what the classifier would have to reject) and how many of those are steps.
"""
import argparse
import collections
import csv
import glob
import os

import numpy as np
from scipy import signal
from scipy.io import wavfile
from scipy.linalg import solve_toeplitz

FOLDS = range(4)
RATE = 2000
HOP = 20  # 10 ms at 2 kHz


def residual_level(x, order=12, window=0.3, refit=0.05):
    """The prediction residual's level per 10 ms hop, dB (NaN until the first fit)."""
    y = signal.decimate(x.astype(np.float64), 8, ftype="fir", zero_phase=False)
    w, b = int(window * RATE), int(refit * RATE)
    hann = np.hanning(w)
    e = np.zeros_like(y)
    for s in range(w, len(y), b):
        seg = y[s - w:s] * hann
        ac = np.correlate(seg, seg, "full")[w - 1:w + order + 1]
        ac[0] = ac[0] * 1.001 + 1e-12
        a = solve_toeplitz(ac[:order], ac[1:order + 1])
        chunk = y[s - order:s + b]
        out = np.convolve(chunk, np.concatenate([[1.0], -a]), "valid")
        e[s:s + len(out)] = out[:len(e[s:s + b])]
    n = len(y) // HOP
    level = 10 * np.log10((e[:n * HOP].reshape(n, HOP) ** 2).mean(axis=1) + 1e-20)
    level[:w // HOP + 1] = np.nan
    return level


def onsets(level, threshold, history=150, gap=13):
    """Seconds of the residual's peaks above `threshold` dB over its running median."""
    found, last = [], -gap
    for i in range(1, len(level) - 1):
        past = level[max(0, i - history):i]
        past = past[~np.isnan(past)]
        if np.isnan(level[i]) or len(past) < 20:
            continue
        if level[i] - np.median(past) > threshold and level[i] >= level[i - 1] and level[i] > level[i + 1] \
                and i - last >= gap:
            found.append(i * 0.01 - 0.005)
            last = i
    return np.array(found)


def near(times, targets, tolerance=0.1):
    """For each target: is one of `times` within `tolerance` of it?"""
    if len(times) == 0:
        return np.zeros(len(targets), dtype=bool)
    return np.array([np.min(np.abs(times - t)) <= tolerance for t in targets], dtype=bool)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/footstep-eval", help="the evaluation corpus (footstep_eval.py build)")
    ap.add_argument("--predictions", required=True, help="footstep_eval.py score --split train --predictions DIR")
    ap.add_argument("--clips", type=int, default=4, help="clips per fold and transmission model")
    ap.add_argument("--thresholds", default="4,6,8")
    args = ap.parse_args()
    thresholds = [float(t) for t in args.thresholds.split(",")]
    tally = collections.defaultdict(collections.Counter)
    for scenario in ("ceiling", "same_room", "timber", "slab"):
        for k in FOLDS:
            gt = os.path.join(args.out, "train", str(k), "gt")
            for path in sorted(glob.glob(os.path.join(gt, f"{scenario}-*.wav")))[:args.clips]:
                name = os.path.basename(path)[:-4]
                rate, x = wavfile.read(path)
                if rate != 16000:
                    raise SystemExit(f"{path}: {rate} Hz, the study reads the 16 kHz clips")
                x = (x.mean(axis=1) if x.ndim > 1 else x).astype(np.float64) / 32768
                with open(os.path.join(gt, name + ".csv"), newline="") as f:
                    steps = np.array([float(r["onset_s"]) for r in csv.DictReader(f)
                                      if not r["label"].startswith("other")])
                with open(os.path.join(args.predictions, f"model-{k}", str(k), name + ".csv"), newline="") as f:
                    detected = np.array([float(r["onset_s"]) for r in csv.DictReader(f)])
                by_detector = near(detected, steps)
                level = residual_level(x)
                for threshold in thresholds:
                    residual = onsets(level, threshold)
                    by_residual = near(residual, steps)
                    extra = residual[~near(detected, residual)]
                    c = tally[(scenario, threshold)]
                    c["steps"] += len(steps)
                    c["detector"] += by_detector.sum()
                    c["residual"] += by_residual.sum()
                    c["either"] += (by_detector | by_residual).sum()
                    c["onsets"] += len(residual)
                    c["extra"] += len(extra)
                    c["extra steps"] += near(steps, extra).sum()
                    c["minutes"] += len(x) / rate / 60
    print("| transmission | threshold dB | steps | found by footstepd's detector / the residual / either | "
          "residual onsets a minute | of them not near a detection | of those, steps |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (scenario, threshold), c in tally.items():
        n, m = c["steps"], c["minutes"]
        print(f"| {scenario} | {threshold:g} | {n} | {c['detector'] / n:.2f} / {c['residual'] / n:.2f} / "
              f"{c['either'] / n:.2f} | {c['onsets'] / m:.0f} | {c['extra'] / m:.0f} | "
              f"{c['extra steps'] / max(1, c['extra']):.2f} |")


if __name__ == "__main__":
    main()
