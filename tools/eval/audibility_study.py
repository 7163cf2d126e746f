#!/usr/bin/env python3
"""Were the steps footstepd misses there to be heard? Out of fold on the evaluation's training clips.

    python3 tools/eval/audibility_study.py --predictions DIR [--out /tmp/footstep-eval] [--every 3]

DIR is what `footstep_eval.py score --split train --predictions DIR` wrote (DIR/model-K/K/CLIP.csv, each fold's
clips analysed by the model that never trained on them). Every `--every`-th training clip of each fold is rendered
again (`corpus.make_clip` is deterministic in its seed; the truth is checked against the stored one) with each
step's own sound kept. A step's **audibility** is its best band's ratio, in dB, of its own energy to the energy of
everything else in the mix (background, distractors, the ringing of earlier steps, a second walker) in the 250 ms
from its onset, over 1/3-octave bands from 25 Hz to 3.2 kHz, before the microphone chain (a linear filter scales
both alike within a band). No detector working on this mix hears a step below 0 dB in every band; one well above
it in some band is there to be found.

Printed per transmission model: the share of steps in each audibility range and what became of them (a typed
footstep, detected and called `other`, undetected); and for the undetected steps at 15 dB or more, whether they
began inside an event the detector was still measuring or within 0.4 s of its onset (the detector's re-onset
rules), or with no detection before them in that time.
"""
import argparse
import collections
import csv
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import corpus  # noqa: E402
import footstep_eval  # noqa: E402
import scoring  # noqa: E402

RATE = corpus.RATE
EDGES = 25 * 2 ** (np.arange(0, 22) / 3)  # 1/3-octave band edges, 25 Hz to 3.2 kHz
WINDOW = int(0.25 * RATE)
RANGES = [(0, "below 0 dB"), (6, "0-6 dB"), (15, "6-15 dB"), (np.inf, "15 dB or more")]


def band_energies(x):
    """Energy per 1/3-octave band of a Hann-windowed segment."""
    f = np.fft.rfftfreq(len(x), 1 / RATE)
    power = np.abs(np.fft.rfft(x * np.hanning(len(x)))) ** 2
    return np.array([power[(f >= lo) & (f < hi)].sum() + 1e-30 for lo, hi in zip(EDGES[:-1], EDGES[1:])])


def audibility(mix, start, own):
    """The best band's own-to-rest ratio (dB) of a step whose sound `own` starts at sample `start` of `mix`."""
    segment = mix[start:start + WINDOW]
    mine = np.zeros(len(segment))
    n = min(len(own), len(segment))
    mine[:n] = own[:n]
    return float(np.max(10 * np.log10(band_energies(mine) / band_energies(segment - mine))))


def blocked_by(onset, rows):
    """Why an undetected step may have been passed over: the detection before it whose event still lasted, or one
    within 0.4 s before it, or none."""
    before = [(float(r["onset_s"]), float(r["duration_s"])) for r in rows if float(r["onset_s"]) < onset - 0.1]
    if any(on + duration + 0.03 > onset for on, duration in before):
        return "inside a detected event"
    if any(onset - on < 0.4 for on, _ in before):
        return "within 0.4 s of an onset"
    return "no detection before it"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval", help="the evaluation corpus (footstep_eval.py build)")
    ap.add_argument("--data", default="/tmp/train-data/wav", help="fetch.sh's wav directory")
    ap.add_argument("--predictions", required=True, help="footstep_eval.py score --split train --predictions DIR")
    ap.add_argument("--every", type=int, default=3,
                    help="every Nth training clip of each fold; odd, since the clips take the transmission models "
                         "in turn")
    ap.add_argument("--seed", type=int, default=0, help="footstep_eval.py build's --seed")
    ap.add_argument("--seconds", type=float, default=45, help="footstep_eval.py build's --seconds")
    args = ap.parse_args()
    if args.every < 1 or args.every % 2 == 0:
        ap.error(f"--every {args.every}: give an odd number (clip i is through transmission model i mod 4, so an "
                 f"even step skips some of them)")

    data, bg = footstep_eval.load_inputs(args.data, args.out)
    counts = collections.defaultdict(collections.Counter)
    for fold in footstep_eval.FOLDS:
        split_dir = os.path.join(args.out, "train", str(fold))
        clips = footstep_eval.built_clips(split_dir)
        if not clips:
            sys.exit(f"{split_dir} holds no clips: build them first (python3 tools/eval/footstep_eval.py "
                     f"--out {args.out} build)")
        seed = footstep_eval.fold_seed("train", fold, args.seed)
        for i in range(0, clips, args.every):
            rng, name, model, mic, with_steps = corpus.clip_plan(seed, i)
            if not with_steps:
                continue
            parts = {}
            _, truth, _ = corpus.make_clip(rng, data[fold], bg, args.seconds, model, mic, with_steps, parts=parts)
            stored = scoring.read_truth(os.path.join(split_dir, "gt", name + ".csv"))
            if len(stored) != len(truth) or any(abs(a[0] - b[0]) > 2e-4 for a, b in zip(stored, truth)):
                sys.exit(f"{name}: the rendered truth differs from the stored one (was the corpus built with "
                         f"another --seed or --seconds, or another version of corpus.py?)")
            predicted = os.path.join(args.predictions, f"model-{fold}", str(fold), name + ".csv")
            if not os.path.exists(predicted):
                sys.exit(f"{predicted} missing: --predictions takes what footstep_eval.py score --split train "
                         f"--predictions DIR wrote for every fold")
            with open(predicted, newline="") as f:
                rows = list(csv.DictReader(f))
            steps = sorted(parts["step_sounds"], key=lambda s: s[0])
            fates = scoring.step_fates([start / RATE for start, _ in steps], rows)
            for (start, own), what in zip(steps, fates):
                level = audibility(parts["mix"], start, own)
                heard = next(label for limit, label in RANGES if level < limit)
                for key in (model, "all"):
                    counts[(key, heard)][what] += 1
                    if what == "undetected" and heard == RANGES[-1][1]:
                        counts[(key, "why")][blocked_by(start / RATE, rows)] += 1
        print(f"fold {fold} done", file=sys.stderr, flush=True)

    print("| transmission | audibility (best band) | steps | share | footstep / other / undetected |")
    print("| --- | --- | --- | --- | --- |")
    for model in ("all",) + tuple(corpus.tx.MODELS):
        total = sum(sum(counts[(model, label)].values()) for _, label in RANGES)
        for _, label in RANGES:
            c = counts[(model, label)]
            n = sum(c.values())
            if n:
                print(f"| {model} | {label} | {n} | {n / total:.1%} | "
                      f"{c['footstep'] / n:.2f} / {c['other'] / n:.2f} / {c['undetected'] / n:.2f} |")
    print("\nundetected steps at 15 dB or more:")
    for model in ("all",) + tuple(corpus.tx.MODELS):
        c = counts[(model, "why")]
        n = sum(c.values())
        print(f"  {model}: {n}; " + ", ".join(f"{k} {v / n:.0%}" for k, v in c.most_common()))


if __name__ == "__main__":
    main()
