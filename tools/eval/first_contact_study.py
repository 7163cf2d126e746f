#!/usr/bin/env python3
"""Study: are footsteps found late? A step's truth onset is its first contact (the first sample within 26 dB of
its peak, `sources.onset_index`); the detector can lock onto a louder part 100–300 ms later (a gravel step's
crunch after the heel). This reads `footstep_eval.py score --predictions DIR` output, counts the false footsteps
that lie 100–300 ms after a step no claim matched, and moves each detection's onset back to the first contact
it can see in the audio, then scores again.

The first contact of a detection at t: over 5 ms frames of the clip's energy, the peak P of [t, t + 0.1 s] and
the background B (20th percentile of [t − 1.5 s, t − 0.35 s]); the earliest frame in [t − `--back` s, t) that
rises to at least max(P − 26 dB, B + `--over` dB) from a frame below it, with `--quiet` s below it before the
rise (activity running through the whole window is not a first contact). Nothing moves without such a rise.

    python3 tools/eval/first_contact_study.py --predictions DIR [--split train] [--out /tmp/footstep-eval]
"""
import argparse
import glob
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoring  # noqa: E402

FRAME = 0.005


def energies(path):
    import wave
    with wave.open(path) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64) / 32768
        if w.getnchannels() > 1:
            x = x.reshape(-1, w.getnchannels()).mean(axis=1)
    hop = int(rate * FRAME)
    n = len(x) // hop
    e = (x[: n * hop].reshape(n, hop) ** 2).mean(axis=1)
    return 10 * np.log10(e + 1e-12)


def first_contact(e, t, back, over, quiet):
    i0 = int(round(t / FRAME))
    if i0 <= 0 or i0 >= len(e):
        return t
    peak = e[i0: i0 + int(0.1 / FRAME) + 1].max()
    lo, hi = max(0, i0 - int(1.5 / FRAME)), max(0, i0 - int(0.35 / FRAME))
    background = np.percentile(e[lo:hi], 20) if hi - lo >= 20 else e[max(0, i0 - 20): i0].min()
    threshold = max(peak - 26, background + over)
    start = max(1, i0 - int(back / FRAME))
    q = int(quiet / FRAME)
    for j in range(start, i0):
        if e[j] >= threshold and e[j - 1] < threshold and j - q >= 0 and (e[j - q: j] < threshold).all():
            return j * FRAME
    return t


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--predictions", required=True)
    p.add_argument("--out", default="/tmp/footstep-eval")
    p.add_argument("--split", default="train")
    p.add_argument("--back", type=float, default=0.3)
    p.add_argument("--over", type=float, default=10.0)
    p.add_argument("--quiet", type=float, default=0.05)
    args = p.parse_args()
    before, after = scoring.Tally(), scoring.Tally()
    late = early = moved = 0
    moved_by = []
    for model_dir in sorted(glob.glob(os.path.join(args.predictions, "model-*"))):
        fold = model_dir.rsplit("-", 1)[1]
        pred_dir = os.path.join(model_dir, fold)  # unseen pairs only
        gt = os.path.join(args.out, args.split, fold, "gt")
        for path in sorted(glob.glob(os.path.join(pred_dir, "*.csv"))):
            name = os.path.basename(path)[:-4]
            truth = scoring.read_truth(os.path.join(gt, name + ".csv"))
            audio = scoring.clip_audio(gt, name)
            seconds = scoring.clip_seconds(audio)
            steps = [t for t, _, label in truth if not label.startswith("other")]
            claims = scoring.read_predictions(path)
            if steps:
                before.add_clip(truth, claims, seconds)
                matched = scoring.match(steps, [t for t, _ in claims])
                free_steps = [steps[i] for i in set(range(len(steps))) - {a for a, _ in matched}]
                free_claims = [claims[i][0] for i in set(range(len(claims))) - {b for _, b in matched}]
                for c in free_claims:
                    gaps = [c - s for s in free_steps]
                    late += any(0.1 < g <= 0.3 for g in gaps)
                    early += any(-0.3 <= g < -0.1 for g in gaps)
            else:
                before.add_false_footsteps(claims, seconds)
            e = energies(audio)
            shifted = []
            for t, label in claims:
                new = first_contact(e, t, args.back, args.over, args.quiet)
                if new < t - 1e-9:
                    moved += 1
                    moved_by.append(t - new)
                shifted.append((new, label))
            if steps:
                after.add_clip(truth, shifted, seconds)
            else:
                after.add_false_footsteps(shifted, seconds)
    f0, f1 = before.figures(), after.figures()
    print(f"false footsteps 100-300 ms after an unmatched step: {late}; before one: {early}")
    print(f"claims moved back: {moved} (median {np.median(moved_by) * 1000 if moved_by else 0:.0f} ms)")
    for label, f in (("as found", f0), ("first contact", f1)):
        print(f"{label:14s} P {f['precision']:.3f} R {f['recall']:.3f} F1 {f['f1']:.3f} "
              f"false/h {f['false_per_hour'] or 0:.0f} macro {f['macro_f1']:.3f}")


if __name__ == "__main__":
    main()
