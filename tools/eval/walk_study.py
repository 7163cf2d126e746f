#!/usr/bin/env python3
"""A study: is a regular walk of alike impacts a walk whatever the event model says of each impact?

    python3 tools/eval/walk_study.py --out /tmp/footstep-eval --models DIR [--split train]

A person hears a walk from its rhythm and from its steps sounding alike, even when no single step is
clear. For each fold K, fold K's model (which never trained on fold K's families) runs over fold K's
clips twice: without gait context (`--format jsonl`: every detection with its P(footstep) and LAFmax) and
with the rules but without walks (`--no-walks --no-memory --output`: the memory and sure-company rules came
later). Each detection gets its timbre from the clip's
audio: the energy in eight bands (30 Hz-4 kHz) of the 100 ms from 5 ms before its onset, relative to
their total. A *walk* is a chain of at least N detections, each interval 0.25-1.15 s and within 15 % of
the one before, each impact within L dB (LAFmax) of the one before and within T dB (mean absolute band
difference) of its timbre, whose intervals are not machine-exact (their spread over their mean at least
S) and whose mean P(footstep) is at least M. A member the rules would release at once (P < 0.05) sees
only the walk before it, a held one 3.45 s after it, as in footstepd. Every member of a walk that the
rules left `other` (the predictions of `analyze --no-walks --no-memory`) is counted a footstep, and the predictions
are scored against the truth beside the rules' own. Printed per setting: F1, false footsteps an hour on
distractor-only clips, and what share of the impacts the walks added are steps (all, and per transmission
model).
GaitContextRefiner's walk rule (N 4, L 6, T 8, S 0.012, M 0.45) is what this chose: docs/evaluation.md,
*Rhythm as evidence*; the candidates' figures are in the CHANGELOG (*Studies moved from docs/evaluation.md*, session 53).
"""
import argparse
import csv
import itertools
import json
import os
import subprocess
import sys
import wave

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoring  # noqa: E402
import sources  # noqa: E402
from footstep_eval import clip_names  # noqa: E402

RATE = 16000
EDGES = [30, 50, 80, 125, 250, 500, 1000, 2000, 4000]
INTERVALS = (0.25, 1.15)
TOLERANCE = 0.15
# How long footstepd holds an impact it is unsure of (GaitContextRefiner.holdSeconds with walks).
CONTEXT = 3.45


def read_wav(path):
    with wave.open(path) as w:
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
        if w.getnchannels() > 1:
            x = x.reshape(-1, w.getnchannels()).mean(axis=1)
    return x


def timbre(x, onset):
    """Eight band levels (dB) relative to their total, from 5 ms before `onset` for 100 ms."""
    start = max(0, int((onset - 0.005) * RATE))
    seg = x[start:start + int(0.1 * RATE)]
    if len(seg) < 64:
        return np.zeros(8)
    seg = seg * np.hanning(len(seg))
    spec = np.abs(np.fft.rfft(seg, 2048)) ** 2
    freqs = np.fft.rfftfreq(2048, 1 / RATE)
    bands = np.array([spec[(freqs >= lo) & (freqs < hi)].sum() for lo, hi in zip(EDGES, EDGES[1:])]) + 1e-20
    return np.clip(10 * np.log10(bands / bands.sum()), -60, 0)


def run(footstepctl, model, gt, work, rules_options):
    """(detections without gait context {clip: [event with its `timbre`]}, the directory of the rules' predictions
    with `rules_options`, e.g. `--no-walks`). Both are cached in `work`."""
    os.makedirs(work, exist_ok=True)
    names = clip_names(gt)
    wavs = [scoring.clip_audio(gt, n) for n in names]
    cache = os.path.join(work, "raw.jsonl")
    if not os.path.exists(cache):
        with open(cache + ".tmp", "w") as f:
            subprocess.run([footstepctl, "analyze", "--no-gait-context", "--format", "jsonl", "--model", model] + wavs,
                           check=True, stdout=f)
        os.rename(cache + ".tmp", cache)
    shipped = os.path.join(work, "rules")
    if not os.path.isdir(shipped):
        subprocess.run([footstepctl, "analyze", "--quiet", "--output", shipped + ".tmp", "--model", model]
                       + rules_options + wavs,
                       check=True, stdout=subprocess.DEVNULL)
        os.rename(shipped + ".tmp", shipped)
    dets = {}
    with open(cache) as f:
        for line in f:
            r = json.loads(line)
            if r.get("record") == "event":
                dets.setdefault(os.path.splitext(os.path.basename(r["file"]))[0], []).append(r)
    for clip, events in dets.items():
        events.sort(key=lambda e: e["onset_s"])
        x = read_wav(scoring.clip_audio(gt, clip))
        for e in events:
            e["timbre"] = timbre(x, e["onset_s"])
    return dets, shipped


def extend_chain(chain, t, alike):
    """`chain` (two or more detection indices) extended while a next detection falls within TOLERANCE of the
    last interval, at an interval within INTERVALS, and is `alike(last, next)`; the nearest such one each time."""
    n = len(t)
    while True:
        interval = t[chain[-1]] - t[chain[-2]]
        target = t[chain[-1]] + interval
        best = None
        for m in range(chain[-1] + 1, n):
            if t[m] > target + TOLERANCE * interval:
                break
            if abs(t[m] - target) <= TOLERANCE * interval and INTERVALS[0] <= t[m] - t[chain[-1]] <= INTERVALS[1] \
                    and alike(chain[-1], m) and (best is None or abs(t[m] - target) < abs(t[best] - target)):
                best = m
        if best is None:
            return chain
        chain.append(best)


def walks(events, length, level_db, timbre_db, spread, mean_p=0.0, hindsight=False):
    """Indices of the detections that belong to a walk (see the module's doc)."""
    t = np.array([e["onset_s"] for e in events])
    la = np.array([e["la_max"] for e in events])
    p = np.array([e["footstep_probability"] for e in events])
    tb = [e["timbre"] for e in events]
    members = set()
    n = len(events)

    def alike(a, b):
        return abs(la[a] - la[b]) <= level_db and float(np.mean(np.abs(tb[a] - tb[b]))) <= timbre_db

    for i in range(n):
        for j in range(i + 1, n):
            d = t[j] - t[i]
            if d > INTERVALS[1]:
                break
            if d < INTERVALS[0] or not alike(i, j):
                continue
            chain = extend_chain([i, j], t, alike)
            if len(chain) >= length:
                gaps = np.diff(t[chain])
                if np.std(gaps) / np.mean(gaps) >= spread and np.mean(p[chain]) >= mean_p:
                    # What footstepd knows when it settles a member: the held ones (P >= 0.05) wait
                    # CONTEXT seconds, a sure `other` is settled at once and sees only the impacts before it.
                    # With `hindsight`, every member sees the whole walk (as a later revision of its label would).
                    for m in chain:
                        reach = np.inf if hindsight else t[m] + (CONTEXT if p[m] >= 0.05 else 0.0)
                        if sum(1 for c in chain if t[c] <= reach + 1e-9) >= length:
                            members.add(m)
    return members


def write(pred_dir, shipped_dir, dets, walk_members):
    """The rules' predictions with every walk member that they left `other` made a footstep."""
    os.makedirs(pred_dir, exist_ok=True)
    added = {}
    for clip, events in dets.items():
        rows = list(csv.DictReader(open(os.path.join(shipped_dir, clip + ".csv"))))
        steps = {round(float(r["onset_s"]), 3) for r in rows if not r["label"].startswith("other")}
        extra = []
        for i in walk_members.get(clip, ()):
            on = round(events[i]["onset_s"], 3)
            if not any(abs(on - s) < 0.002 for s in steps):
                extra.append(on)
        added[clip] = extra
        with open(os.path.join(pred_dir, clip + ".csv"), "w") as f:
            f.write("onset_s,label,confidence\n")
            for r in rows:
                if r["label"].startswith("other") and any(abs(float(r["onset_s"]) - on) < 0.002 for on in extra):
                    continue
                f.write(f"{r['onset_s']},{r['label']},{r['confidence']}\n")
            for on in extra:
                f.write(f"{on:.3f},unknown,0.5\n")
    return added


def added_precision(added, gt, meta):
    """(steps, impacts) among the added impacts, overall and by transmission model."""
    by = {}
    for clip, onsets in added.items():
        truth = [o for o, _, lab in scoring.read_truth(os.path.join(gt, clip + ".csv")) if lab in scoring.CLASSES]
        hits = len(scoring.match(truth, onsets))
        key = meta.get(clip, {}).get("scenario", "?")
        a = by.setdefault(key, [0, 0])
        a[0] += hits
        a[1] += len(onsets)
    return by


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval")
    ap.add_argument("--models", required=True)
    ap.add_argument("--split", choices=["train", "eval"], default="train")
    ap.add_argument("--footstepctl", default=os.path.join(sources.ROOT, ".build", "release", "footstepctl"))
    ap.add_argument("--work", help="default: MODELS/walk-study-SPLIT")
    ap.add_argument("--lengths", default="4,5")
    ap.add_argument("--levels", default="6")
    ap.add_argument("--timbres", default="6,8,99", help="99: timbre not compared")
    ap.add_argument("--spreads", default="0.012")
    ap.add_argument("--mean-probabilities", default="0,0.4,0.45", help="the walk's mean P(footstep) at least")
    ap.add_argument("--hindsight", action="store_true",
                    help="every member sees the whole walk: what revising labels after the walk would add")
    args = ap.parse_args()
    work = args.work or os.path.join(args.models, f"walk-study-{args.split}")
    folds = list(sources.FOLDS)
    data = {}
    for k in folds:
        gt = os.path.join(args.out, args.split, str(k), "gt")
        with open(os.path.join(args.out, args.split, str(k), "clips_meta.csv")) as f:
            meta = {r["clip"]: r for r in csv.DictReader(f)}
        # The rules as the walk rule was chosen on: without the later memory and sure-company rules.
        dets, shipped = run(args.footstepctl, os.path.join(args.models, f"fold-{k}.json"), gt,
                            os.path.join(work, str(k)), ["--no-walks", "--no-memory"])
        data[k] = (gt, dets, shipped, meta)
        print(f"fold {k}: {sum(len(v) for v in dets.values())} detections", flush=True)
    base = scoring.Tally()
    for k in folds:
        t, _ = scoring.score_directory(data[k][2], data[k][0])
        base.merge(t)
    f = base.figures()
    print(f"rules without walks: F1 {f['f1']:.3f} P {f['precision']:.3f} R {f['recall']:.3f} {f['false_per_hour']:.0f}/h "
          f"macro {f['macro_f1']:.3f}", flush=True)
    grid = itertools.product(*(map(float, s.split(",")) for s in (args.lengths, args.levels, args.timbres, args.spreads,
                                                          args.mean_probabilities)))
    for length, level, tdb, spread, mean_p in grid:
        total = scoring.Tally()
        by = {}
        for k in folds:
            gt, dets, shipped, meta = data[k]
            members = {c: walks(ev, int(length), level, tdb, spread, mean_p, args.hindsight) for c, ev in dets.items()}
            pred = os.path.join(work, "walk", str(k))
            added = write(pred, shipped, dets, members)
            t, _ = scoring.score_directory(pred, gt)
            total.merge(t)
            for key, (h, n) in added_precision(added, gt, meta).items():
                a = by.setdefault(key, [0, 0])
                a[0] += h
                a[1] += n
        f = total.figures()
        hits = sum(h for h, _ in by.values())
        n = sum(m for _, m in by.values())
        per = " ".join(f"{key} {h}/{m}" for key, (h, m) in sorted(by.items()))
        print(f"N={int(length)} L={level:g} T={tdb:g} S={spread:g} M={mean_p:g}: F1 {f['f1']:.3f} P {f['precision']:.3f} "
              f"R {f['recall']:.3f} {f['false_per_hour']:.0f}/h; added {n}, steps {hits} "
              f"({hits / max(n, 1):.2f}); {per}", flush=True)


if __name__ == "__main__":
    main()
