#!/usr/bin/env python3
"""Are drum patterns, which a machine plays at an exact tempo, told from a walker's steps, which vary by a few per
cent, by how regular their intervals are? Measured on footstepd's predictions of the evaluation's training clips.

    python3 tools/eval/exact_rhythm_study.py --predictions DIR [--out /tmp/footstep-eval]

DIR holds `footstep_eval.py score --split train --predictions DIR` output (DIR/model-K/K/CLIP.csv: every
detection, any label, of fold K's clips by fold K's model: unseen families). Printed:

1. what the false footsteps on distractor-only clips were (the truth event 0.15 s before to 0.6 s after them);
2. for runs of three consecutive detections of one source (steps of one type, or one drum pattern) with
   intervals of 0.25-0.8 s, how far the second interval is from the first, as a fraction of their mean;
3. the scorer's figures when a footstep whose N previous intervals (to detections of any label, each
   0.25-0.8 s) all lie within EPS of their mean is called `other` instead: the rule a live event could use.
"""
import argparse
import collections
import csv
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scoring  # noqa: E402

FOLDS = range(4)


def clips(args):
    """(fold, name, gt dir, detections [(onset, label)], truth rows) per clip."""
    for k in FOLDS:
        gt = os.path.join(args.out, "train", str(k), "gt")
        for path in sorted(glob.glob(os.path.join(args.predictions, f"model-{k}", str(k), "*.csv"))):
            name = os.path.basename(path)[:-4]
            with open(path, newline="") as f:
                detections = [(float(r["onset_s"]), r["label"]) for r in csv.DictReader(f)]
            yield k, name, gt, detections, scoring.read_truth(os.path.join(gt, name + ".csv"))


def nearest_truth(truth, t, tolerance=0.1):
    best = min(truth, key=lambda r: abs(r[0] - t), default=None)
    return best[2] if best is not None and abs(best[0] - t) <= tolerance else None


def machine_exact(onsets, i, intervals, eps):
    """Do the `intervals` intervals before detection i lie within `eps` of their mean (each 0.25-0.8 s)?"""
    if i < intervals:
        return False
    iv = np.diff(onsets[i - intervals:i + 1])
    if not ((iv >= 0.25) & (iv <= 0.8)).all():
        return False
    return np.max(np.abs(iv - iv.mean())) / iv.mean() < eps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/footstep-eval", help="the evaluation corpus (footstep_eval.py build)")
    ap.add_argument("--predictions", required=True, help="footstep_eval.py score --split train --predictions DIR")
    args = ap.parse_args()
    data = list(clips(args))

    sources = collections.Counter()
    spread = collections.defaultdict(list)
    for _, _, _, detections, truth in data:
        if not any(not r[2].startswith("other") for r in truth):
            for t, label in detections:
                if label != "other":
                    before = [r[2] for r in truth if -0.15 <= t - r[0] <= 0.6]
                    sources[before[-1] if before else "background"] += 1
        labels = [nearest_truth(truth, t) for t, _ in detections]
        onsets = np.array([t for t, _ in detections])
        for i in range(2, len(detections)):
            if labels[i] is None or labels[i] != labels[i - 1] or labels[i] != labels[i - 2]:
                continue
            a, b = onsets[i - 1] - onsets[i - 2], onsets[i] - onsets[i - 1]
            if 0.25 <= a <= 0.8 and 0.25 <= b <= 0.8:
                kind = "drum pattern" if labels[i] == "other:music_hit" else (
                    "steps of one type" if not labels[i].startswith("other") else None)
                if kind:
                    spread[kind].append(abs(b - a) / ((a + b) / 2))
    total = sum(sources.values())
    print(f"false footsteps on distractor-only clips: {total}")
    for source, n in sources.most_common():
        print(f"  {source:20s} {n:5d}  {n / total:.0%}")
    print("\ninterval after minus interval before, as a fraction of their mean:")
    for kind, values in spread.items():
        v = np.array(values)
        print(f"  {kind:20s} {len(v):6d}  median {np.median(v):.3f}  below 1 %: {np.mean(v < 0.01):.0%}  "
              f"below 2 %: {np.mean(v < 0.02):.0%}")

    print("\n| rule | P / R / F1 | false footsteps / h | macro-F1 |\n| --- | --- | --- | --- |")
    for intervals, eps in [(None, None), (2, 0.005), (3, 0.005), (3, 0.01), (3, 0.02)]:
        tally = scoring.Tally()
        for _, name, gt, detections, truth in data:
            onsets = np.array([t for t, _ in detections])
            kept = [(t, label) for i, (t, label) in enumerate(detections) if label != "other"
                    and not (intervals and machine_exact(onsets, i, intervals, eps))]
            tally.add_clip(truth, kept, scoring.clip_seconds(scoring.clip_audio(gt, name)))
        f = tally.figures()
        rule = "none (the predictions as they are)" if intervals is None else f"{intervals} intervals within {eps:.1%}"
        print(f"| {rule} | {f['precision']:.3f} / {f['recall']:.3f} / {f['f1']:.3f} | {f['false_per_hour']:.0f} | "
              f"{f['macro_f1']:.3f} |")


if __name__ == "__main__":
    main()
