#!/usr/bin/env python3
"""Is a drum pattern's exact tempo told from a walker's steps once the impacts are timed finer than the detector's
onsets (2 ms blocks)? Measured on footstepd's predictions of the evaluation's training clips (CHANGELOG, session 53:
it is not, and the rule below is not used).

    python3 tools/eval/exact_beat_study.py --predictions DIR [--out /tmp/footstep-eval] [--split train] [--limit N]
        [--drop 12] [--length 3]

DIR holds `footstep_eval.py score --split SPLIT --predictions DIR` output (DIR/model-K/K/CLIP.csv: every
detection, any label). Each detection is matched to the truth event nearest it within ±100 ms (a step type or
`other:<category>`), and its attack is timed again from the clip's audio (`refined_onset`: in the 1 ms energy
envelope of its segment, where the envelope rising to its peak first comes within `--drop` dB of it). A chain is
`--length` detections in a row at one gait interval (0.25-1.15 s, each interval within 15 % of the first) that
ends at most 2 s after a member (what the frame decision has heard when it judges it); a detection's *beat error*
is the least spread (longest minus shortest interval, over their mean) of the chains through it, from the
detector's onsets and from the re-timed attacks.

Printed: the shares of drum-pattern hits (`other:music_hit`) and of steps in a chain whose beat error is below
each bound, for both timings; and for each bound, the scorer's figures when every footstep claim whose re-timed
beat error is below it is called `other`.
"""
import argparse
import csv
import glob
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_detector_study as study  # noqa: E402
import scoring  # noqa: E402

RATE = study.RATE
ENV_HOP = 16  # 1 ms
BOUNDS = (0.002, 0.004, 0.006, 0.01, 0.02)
# Seconds after a candidate that its judgement hears (`FrameDecision.window`).
HORIZON = 2.0


PRE_ROLL = 0.05  # the segment's start before the onset (`AnalysisConfiguration.segmentPreRoll`)


def refined_onset(x, t, drop_db):
    """Seconds: in the 1 ms energy envelope of the segment from PRE_ROLL before `t`, where the
    envelope rising to its peak (within 30 ms before to 150 ms after t) first comes within drop_db of that peak,
    interpolated in dB between frames."""
    start = int(round(t * RATE)) - int(PRE_ROLL * RATE)
    seg = x[max(0, start): start + int(0.55 * RATE)]
    if start < 0:
        seg = np.concatenate([np.zeros(-start), seg])
    n = len(seg) // ENV_HOP
    env = (seg[: n * ENV_HOP].reshape(n, ENV_HOP) ** 2).mean(axis=1) + 1e-20
    onset = int(PRE_ROLL * RATE) // ENV_HOP
    lo, hi = max(1, onset - 30), min(n, onset + 150)
    if hi <= lo:
        return t
    p = lo + int(np.argmax(env[lo:hi]))
    level = env[p] * 10 ** (-drop_db / 10)
    f = p
    while f > lo and env[f - 1] >= level:
        f -= 1
    a, b, target = 10 * np.log10(env[f - 1]), 10 * np.log10(env[f]), 10 * np.log10(env[p]) - drop_db
    frac = 0.0 if b <= a else min(1.0, max(0.0, (target - a) / (b - a)))
    return (start + (f - 1 + frac + 0.5) * ENV_HOP) / RATE


def chains(times, length):
    """Every chain of `length` onsets (indices, in order) at one gait interval (0.25-1.15 s), each interval within
    15 % of the first, the whole chain within WINDOW of its first onset."""
    out = []

    def extend(chain):
        if len(chain) == length:
            out.append(tuple(chain))
            return
        last = times[chain[-1]]
        first = times[chain[1]] - times[chain[0]] if len(chain) > 1 else None
        for j in range(chain[-1] + 1, len(times)):
            gap = times[j] - last
            if gap > 1.15 or (first is not None and gap > 1.15 * first):
                break
            if gap < 0.25 or (first is not None and gap < 0.85 * first):
                continue
            extend(chain + [j])

    for i in range(len(times)):
        extend([i])
    return out


def beat_errors(times, length=3, horizon=HORIZON):
    """For each onset, the smallest error of a chain of `length` onsets through it that ends at most `horizon`
    seconds after it (what is known when it is judged): the spread (largest minus smallest) of the chain's
    intervals over their mean."""
    out = np.full(len(times), np.inf)
    for chain in chains(times, length):
        gaps = np.diff(times[list(chain)])
        err = (gaps.max() - gaps.min()) / gaps.mean()
        end = times[chain[-1]]
        for i in chain:
            if end <= times[i] + horizon:
                out[i] = min(out[i], err)
    return out


def claim_label(label):
    """The scorer's reading of an analyze label (`scoring.read_predictions`): `other`, a type, or `footstep`."""
    label = label.strip().lower()
    if label.startswith("other"):
        return "other"
    return label if label in scoring.CLASSES else "footstep"


def source_of(t, truth):
    """The label of the truth event nearest `t` within the scorer's 100 ms, or None."""
    best, label = scoring.TOLERANCE, None
    for on, _off, lab in truth:
        if abs(on - t) <= best:
            best, label = abs(on - t), lab
    return label


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--predictions", required=True)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    parser.add_argument("--split", default="train")
    parser.add_argument("--limit", type=int, default=0, help="clips a fold (0: all)")
    parser.add_argument("--drop", type=float, default=12.0)
    parser.add_argument("--length", type=int, default=3, help="onsets in a chain")
    args = parser.parse_args()

    errors = {"raw": {"drum": [], "step": []}, "fine": {"drum": [], "step": []}}
    per_clip = []
    for k in range(4):
        gt = os.path.join(args.out, args.split, str(k), "gt")
        paths = sorted(glob.glob(os.path.join(args.predictions, f"model-{k}", str(k), "*.csv")))
        if args.limit:
            paths = paths[: args.limit]
        for path in paths:
            name = os.path.basename(path)[:-4]
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            rows.sort(key=lambda r: float(r["onset_s"]))
            truth = scoring.read_truth(os.path.join(gt, name + ".csv"))
            x = study.read_wav(os.path.join(gt, name + ".wav")).astype(np.float64)
            raw = np.array([float(r["onset_s"]) for r in rows])
            fine = np.array([refined_onset(x, t, args.drop) for t in raw])
            labels = [source_of(t, truth) for t in raw]
            for timing, times in (("raw", raw), ("fine", fine)):
                e = beat_errors(times, args.length)
                for err, lab in zip(e, labels):
                    if not np.isfinite(err) or lab is None:
                        continue
                    if lab == "other:music_hit":
                        errors[timing]["drum"].append(err)
                    elif not lab.startswith("other"):
                        errors[timing]["step"].append(err)
            per_clip.append((k, name, gt, rows, fine, truth))

    for timing in ("raw", "fine"):
        for kind in ("drum", "step"):
            e = np.array(errors[timing][kind])
            shares = " ".join(f"<{b:.3f}: {np.mean(e < b):.2f}" for b in BOUNDS) if len(e) else "-"
            print(f"{timing:4s} {kind}: {len(e):6d} in a chain; {shares}")

    # The rule: a footstep claim in an exact chain (beat error below `bound`) is called other.
    for bound in (0.002, 0.003, 0.004, 0.006, 0.008, 0.012):
        total, base = scoring.Tally(), scoring.Tally()
        changed_steps = changed_other = 0
        for k, name, gt, rows, fine, truth in per_clip:
            seconds = scoring.clip_seconds(os.path.join(gt, name + ".wav"))
            exact = beat_errors(fine, args.length) < bound
            claims = [(float(r["onset_s"]), claim_label(r["label"])) for r in rows]
            kept = [c for c in claims if c[1] != "other"]
            changed = [c for i, c in enumerate(claims) if c[1] != "other" and not exact[i]]
            for i, c in enumerate(claims):
                if c[1] != "other" and exact[i]:
                    lab = source_of(c[0], truth)
                    if lab is not None and not lab.startswith("other"):
                        changed_steps += 1
                    else:
                        changed_other += 1
            base.add_clip(truth, kept, seconds)
            total.add_clip(truth, changed, seconds)
        b, t = base.figures(), total.figures()
        print(f"bound {bound:.3f}: F1 {b['f1']:.3f} -> {t['f1']:.3f} (P {b['precision']:.3f} -> {t['precision']:.3f}, "
              f"R {b['recall']:.3f} -> {t['recall']:.3f}), false footsteps/h {b['false_per_hour']:.0f} -> "
              f"{t['false_per_hour']:.0f}; claims made other: {changed_other} not steps, {changed_steps} steps")


if __name__ == "__main__":
    main()
