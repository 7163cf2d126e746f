#!/usr/bin/env python3
"""A study: is an impact that sounds like the footsteps already heard in the recording a footstep?

    python3 tools/eval/memory_study.py --out /tmp/footstep-eval --models DIR [--split train] [SETTING ...]

A neighbour's steps through one floor sound alike all night; a listener who has heard a few clear ones
knows the doubtful ones by ear. For each fold K, fold K's model (which never trained on fold K's families)
runs over fold K's clips twice: without gait context (`--format jsonl`: every detection with its
P(footstep) and LAFmax) and with the rules but without the memory rule (`--no-memory --output`). Each
detection gets its timbre from the clip's audio (`walk_study.timbre`). A detection the rules left `other`
is counted a footstep when its P(footstep) is at least PMIN and at least C *sure footsteps* (the rules'
footsteps with P(footstep) at least PC) from W seconds before it to the hold after it (3.45 s; none after
it for a sure `other` under 0.05, which is not held) are within T dB of its timbre and L dB of its LAFmax.
A SETTING is `W,PC,T,L,C,PMIN`; without any, a small grid. Printed per setting: F1, false footsteps an hour
on distractor-only clips, macro-F1 (a rescued impact is an untyped footstep here; footstepd's bout names
its type), the impacts rescued and the steps among them, and F1 / false footsteps an hour per transmission.
GaitContextRefiner's memory rule (W 60, PC 0.8, T 8, L 10, C 3, PMIN 0.3) is what this chose:
docs/evaluation.md, *The recording's own footsteps*; the candidates' figures are in the CHANGELOG
(*Studies moved from docs/evaluation.md*, session 53).
"""
import argparse
import csv
import itertools
import os
import sys
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoring  # noqa: E402
import sources  # noqa: E402
from footstep_eval import clip_names  # noqa: E402
import walk_study  # noqa: E402
from walk_study import CONTEXT  # noqa: E402


def run(footstepctl, model, gt, work):
    """Every clip of `gt` as the study needs it: detections without gait context and the rules' labels."""
    dets, rules = walk_study.run(footstepctl, model, gt, work, ["--no-memory"])
    names = clip_names(gt)
    meta_path = os.path.join(os.path.dirname(os.path.normpath(gt)), "clips_meta.csv")
    with open(meta_path, newline="") as f:
        meta = {r["clip"]: r for r in csv.DictReader(f)}
    clips = []
    for name in names:
        events = dets.get(name, [])
        with open(os.path.join(rules, name + ".csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        by_onset = {round(float(r["onset_s"]), 3): r["label"] for r in rows}
        labels = [by_onset.get(round(e["onset_s"], 3), "other") for e in events]
        known = {round(e["onset_s"], 3) for e in events}
        clips.append(dict(
            truth=scoring.read_truth(os.path.join(gt, name + ".csv")),
            seconds=scoring.clip_seconds(scoring.clip_audio(gt, name)),
            scenario=meta.get(name, {}).get("scenario", "?"),
            t=np.array([e["onset_s"] for e in events]),
            p=np.array([e["footstep_probability"] for e in events]),
            la=np.array([e["la_max"] for e in events]),
            timbre=np.array([e["timbre"] for e in events]).reshape(-1, 8),
            labels=labels,
            step=np.array([not lab.startswith("other") for lab in labels], dtype=bool),
            # Rules' rows no raw detection matches (none expected; kept so nothing is lost).
            extra=[(float(r["onset_s"]), r["label"]) for r in rows if round(float(r["onset_s"]), 3) not in known]))
    return clips


def rescued(clip, span, sure, timbre_db, level_db, company, minimum):
    """Indices of the detections the memory rule makes footsteps (see the module's doc)."""
    t, p, la, tb, step = clip["t"], clip["p"], clip["la"], clip["timbre"], clip["step"]
    remembered = np.where(step & (p >= sure))[0]
    out = set()
    if len(remembered) < company:
        return out
    for i in np.where(~step & (p >= minimum))[0]:
        reach = t[i] + (CONTEXT if p[i] >= 0.05 else 0.0)
        js = remembered[(t[remembered] >= t[i] - span) & (t[remembered] <= reach)]
        if len(js) < company:
            continue
        alike = (np.mean(np.abs(tb[js] - tb[i]), axis=1) <= timbre_db) & (np.abs(la[js] - la[i]) <= level_db)
        if alike.sum() >= company:
            out.add(int(i))
    return out


def score(clips, setting=None):
    """(figures over all clips, {transmission: figures}, [steps among the rescued, rescued])."""
    total = scoring.Tally()
    groups = defaultdict(scoring.Tally)
    added = [0, 0]
    for c in clips:
        extra = rescued(c, *setting) if setting else set()
        predictions = [(c["t"][i], c["labels"][i] if c["labels"][i] in scoring.CLASSES else "footstep")
                       for i in range(len(c["t"])) if c["step"][i]]
        predictions += [(c["t"][i], "footstep") for i in extra]
        predictions += [(on, lab if lab in scoring.CLASSES else "footstep")
                        for on, lab in c["extra"] if not lab.startswith("other")]
        one = scoring.Tally()
        one.add_clip(c["truth"], predictions, c["seconds"])
        total.merge(one)
        groups[c["scenario"]].merge(one)
        if extra:
            steps = [o for o, _, lab in c["truth"] if lab in scoring.CLASSES]
            added[0] += len(scoring.match(steps, [c["t"][i] for i in extra]))
            added[1] += len(extra)
    return total.figures(), {g: v.figures() for g, v in groups.items()}, added


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval")
    ap.add_argument("--models", required=True)
    ap.add_argument("--split", choices=["train", "eval"], default="train")
    ap.add_argument("--footstepctl", default=os.path.join(sources.ROOT, ".build", "release", "footstepctl"))
    ap.add_argument("--work", help="default: MODELS/memory-study-SPLIT")
    ap.add_argument("settings", nargs="*", help="W,PC,T,L,C,PMIN (default: a small grid)")
    args = ap.parse_args()
    work = args.work or os.path.join(args.models, f"memory-study-{args.split}")
    clips = []
    for k in sources.FOLDS:
        clips += run(args.footstepctl, os.path.join(args.models, f"fold-{k}.json"),
                     os.path.join(args.out, args.split, str(k), "gt"), os.path.join(work, str(k)))
    settings = [None] + ([tuple(float(v) for v in s.split(",")) for s in args.settings] or
                         list(itertools.product([60], [0.8], [6, 8], [6, 10], [2, 3], [0.2, 0.3])))
    for s in settings:
        f, by, (steps, impacts) = score(clips, s and (s[0], s[1], s[2], s[3], int(s[4]), s[5]))
        name = "rules without memory" if s is None else "W {:g} PC {:g} T {:g} L {:g} C {:g} PMIN {:g}".format(*s)
        print(f"{name}: F1 {f['f1']:.4f} (P {f['precision']:.3f} R {f['recall']:.3f}), "
              f"{f['false_per_hour']:.0f} false footsteps/h, macro-F1 {f['macro_f1']:.3f}, "
              f"rescued {impacts} ({steps} steps) | "
              + " ".join(f"{g} {v['f1']:.3f}/{v['false_per_hour'] or 0:.0f}" for g, v in sorted(by.items())),
              flush=True)


if __name__ == "__main__":
    main()
