#!/usr/bin/env python3
"""A study: does what sounds between the impacts of a regular walk tell steps from a music beat?

    python3 tools/eval/walk_background_study.py --out /tmp/footstep-eval --models DIR [--split train]

The walk rule (`GaitContextRefiner`) needs the event model to lean towards footsteps over a walk (mean
P(footstep) >= 0.45), because half of the regular trains of alike impacts the model doubts are the beat of
a music background (`docs/evaluation.md`, *Rhythm as evidence*). A listener tells a beat from a walk by
what is heard between the thumps: music goes on between its beats (pitched notes, a bass line), a walk
over a fan or rain does not. For each fold K, fold K's model over fold K's clips (`walk_study.run`: every
detection without gait context, with its timbre) gives the walks of walk_study.walks at any probability;
for each walk that the shipped rule leaves out (mean P < 0.45) this measures, over the audio between its
impacts (from 150 ms after one to 30 ms before the next), the *tonality*: the 95th percentile, over
100-2000 Hz, of the averaged power spectrum over its own 31-bin running median, in dB (a noise floor is
flat after averaging; notes, voices and hum stand out). Printed: the walks' impacts by tonality, and the
share of them that are steps, by background family.
"""
import argparse
import csv
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoring  # noqa: E402
import sources  # noqa: E402
import walk_study  # noqa: E402

RATE = 16000


def chains(events, length=4, level_db=6.0, timbre_db=8.0, spread=0.012):
    """Every maximal walk (a list of detection indices) by walk_study's rule, at any probability."""
    t = np.array([e["onset_s"] for e in events])
    la = np.array([e["la_max"] for e in events])
    tb = [e["timbre"] for e in events]
    found = []
    n = len(events)

    def alike(a, b):
        return abs(la[a] - la[b]) <= level_db and float(np.mean(np.abs(tb[a] - tb[b]))) <= timbre_db

    covered = set()
    for i in range(n):
        for j in range(i + 1, n):
            d = t[j] - t[i]
            if d > walk_study.INTERVALS[1]:
                break
            if d < walk_study.INTERVALS[0] or not alike(i, j):
                continue
            chain = walk_study.extend_chain([i, j], t, alike)
            if len(chain) >= length and not set(chain) <= covered:
                gaps = np.diff(t[chain])
                if np.std(gaps) / np.mean(gaps) >= spread:
                    found.append(chain)
                    covered |= set(chain)
    return found


def tonality(x, onsets):
    """dB: the 95th percentile over 100-2000 Hz of the gaps' averaged spectrum over its running median."""
    frames = []
    win = np.hanning(1024)
    for a, b in zip(onsets, onsets[1:]):
        s, e = int((a + 0.15) * RATE), int((b - 0.03) * RATE)
        for k in range(s, e - 1024, 512):
            frames.append(np.abs(np.fft.rfft(x[k:k + 1024] * win)) ** 2)
    if len(frames) < 4:
        return None
    spec = np.mean(frames, axis=0) + 1e-20
    freqs = np.fft.rfftfreq(1024, 1 / RATE)
    band = (freqs >= 100) & (freqs <= 2000)
    db = 10 * np.log10(spec)
    half = 15
    med = np.array([np.median(db[max(0, i - half):i + half + 1]) for i in range(len(db))])
    return float(np.percentile((db - med)[band], 95))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval")
    ap.add_argument("--models", required=True)
    ap.add_argument("--split", choices=["train", "eval"], default="train")
    ap.add_argument("--limit", type=int, default=0, help="clips a fold (0: all)")
    ap.add_argument("--footstepctl", default=os.path.join(sources.ROOT, ".build", "release", "footstepctl"))
    args = ap.parse_args()
    work = os.path.join(args.models, f"walk-study-{args.split}")
    rows = []
    for k in sources.FOLDS:
        gt = os.path.join(args.out, args.split, str(k), "gt")
        with open(os.path.join(args.out, args.split, str(k), "clips_meta.csv")) as f:
            meta = {r["clip"]: r for r in csv.DictReader(f)}
        dets, _ = walk_study.run(args.footstepctl, os.path.join(args.models, f"fold-{k}.json"), gt,
                                 os.path.join(work, str(k)), ["--no-walks", "--no-memory"])
        for n, (clip, events) in enumerate(sorted(dets.items())):
            if args.limit and n >= args.limit:
                break
            truth = [o for o, _, lab in scoring.read_truth(os.path.join(gt, clip + ".csv")) if lab in scoring.CLASSES]
            x = walk_study.read_wav(scoring.clip_audio(gt, clip))
            for chain in chains(events):
                p = np.mean([events[i]["footstep_probability"] for i in chain])
                onsets = [events[i]["onset_s"] for i in chain]
                steps = len(scoring.match(truth, onsets))
                rows.append((k, clip, meta[clip]["scenario"], meta[clip]["background"], p, len(chain), steps,
                             tonality(x, onsets)))
        print(f"fold {k}: {len(rows)} walks so far", flush=True)
    with open(os.path.join(work, "walk-background.csv"), "w") as f:
        w = csv.writer(f)
        w.writerow(["fold", "clip", "scenario", "background", "mean_p", "impacts", "steps", "tonality_db"])
        w.writerows(rows)

    def table(title, selected):
        print(title)
        edges = [-99, 3, 4, 5, 6, 8, 10, 15, 99]
        for lo, hi in zip(edges, edges[1:]):
            part = [r for r in selected if r[7] is not None and lo <= r[7] < hi]
            imp = sum(r[5] for r in part)
            st = sum(r[6] for r in part)
            print(f"  tonality {lo:>4}-{hi:<3} dB: walks {len(part):5d} impacts {imp:6d} steps {st:6d} "
                  f"({st / max(imp, 1):.2f})")
    low = [r for r in rows if r[4] < 0.45]
    table("walks the rule leaves out (mean P < 0.45):", low)
    table("walks the rule takes (mean P >= 0.45):", [r for r in rows if r[4] >= 0.45])
    print("left out, by background (impacts, step share; tonality < 5 dB / >= 5 dB):")
    fams = sorted({b for r in low for b in r[3].split("+")})
    for fam in fams:
        part = [r for r in low if fam in r[3].split("+") and r[7] is not None]
        a = [r for r in part if r[7] < 5]
        b = [r for r in part if r[7] >= 5]
        print(f"  {fam:10s} {sum(r[5] for r in a):6d} {sum(r[6] for r in a) / max(sum(r[5] for r in a), 1):.2f}   "
              f"{sum(r[5] for r in b):6d} {sum(r[6] for r in b) / max(sum(r[5] for r in b), 1):.2f}")


if __name__ == "__main__":
    main()
