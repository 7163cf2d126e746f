#!/usr/bin/env python3
"""How the models fare through buildings beyond the harness's ranges. Out of fold on the evaluation's training clips.

    python3 tools/eval/wide_paths_study.py --models DIR [--models DIR2 ...] [--out /tmp/footstep-eval]
        [--work /tmp/footstep-wide-study] [--clips 120]

The first `--clips` training clips of each fold are rendered again through `transmission.widen`'s buildings (the same
scenes: `corpus.build(wide_paths=True)` keeps every other draw; the truth is checked against the stored clip's), and
the same clips as built (their links) are scored beside them. Each `--models` directory's fold models
(`train_folds.py`) score both sets, each fold's clips by the model that never trained on them. Printed per model and
transmission: F1 and false footsteps an hour through the harness's buildings and through the wide ones, and where the
steps went through the wide ones (a footstep claim, detected and called `other`, not detected).
"""
import argparse
import csv
import filecmp
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoring  # noqa: E402
import sources  # noqa: E402

FOLDS = list(sources.FOLDS)


def build_sets(args):
    """Writes WORK/narrow/train/K (links to the stored clips) and WORK/wide/train/K (the same scenes, wide buildings)."""
    import corpus
    import footstep_eval
    data, bg = footstep_eval.load_inputs(args.data, args.out)
    for k in FOLDS:
        stored = os.path.join(args.out, "train", str(k))
        narrow = os.path.join(args.work, "narrow", "train", str(k))
        wide = os.path.join(args.work, "wide", "train", str(k))
        if footstep_eval.built_clips(stored) < args.clips:
            sys.exit(f"{stored} holds {footstep_eval.built_clips(stored)} training clips, fewer than --clips "
                     f"{args.clips}: build the corpus first (footstep_eval.py --out {args.out} build) or ask for fewer")
        existing = footstep_eval.built_clips(wide)
        if existing > args.clips:
            sys.exit(f"{wide} holds {existing} clips, more than --clips {args.clips}: give that many or another --work")
        if existing < args.clips:  # deterministic in (seed, index): a smaller set is extended
            corpus.build(wide, data[k], bg, seed=footstep_eval.fold_seed("train", k), clips=args.clips,
                         seconds=args.seconds, first=existing, wide_paths=True)
        os.makedirs(os.path.join(narrow, "gt"), exist_ok=True)
        with open(os.path.join(stored, "clips_meta.csv"), newline="") as f:
            rows = list(csv.DictReader(f))[: args.clips]
        with open(os.path.join(narrow, "clips_meta.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        for row in rows:
            for ext in (".wav", ".csv"):
                link = os.path.join(narrow, "gt", row["clip"] + ext)
                if not os.path.lexists(link):
                    os.symlink(os.path.join(stored, "gt", row["clip"] + ext), link)
            if not filecmp.cmp(os.path.join(stored, "gt", row["clip"] + ".csv"),
                               os.path.join(wide, "gt", row["clip"] + ".csv"), shallow=False):
                sys.exit(f"{row['clip']}: the wide clip's truth is not the stored clip's (built with other sources?)")


def where(pred_root, gt_root):
    """Per transmission model: [steps found, detected and called `other`, not detected] over the unseen pairs."""
    out = {}
    for k in FOLDS:
        gt, pred = os.path.join(gt_root, "train", str(k), "gt"), os.path.join(pred_root, f"model-{k}", str(k))
        for name in sorted(n for n in os.listdir(pred) if n.endswith(".csv")):
            truth = [t for t, _, label in scoring.read_truth(os.path.join(gt, name)) if not label.startswith("other")]
            if not truth:
                continue
            with open(os.path.join(pred, name), newline="") as f:
                fates = scoring.step_fates(truth, list(csv.DictReader(f)))
            tally = out.setdefault(name.split("-")[0], [0, 0, 0])
            for i, fate in enumerate(("footstep", "other", "undetected")):
                tally[i] += fates.count(fate)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", action="append", required=True, help="a directory of fold-K.json (repeatable)")
    ap.add_argument("--out", default="/tmp/footstep-eval", help="the evaluation corpus (footstep_eval.py build)")
    ap.add_argument("--data", default="/tmp/train-data/wav", help="fetch.sh's wav directory")
    ap.add_argument("--work", default="/tmp/footstep-wide-study")
    ap.add_argument("--clips", type=int, default=120, help="training clips a fold (the first ones)")
    ap.add_argument("--seconds", type=float, default=45, help="the clips' length (footstep_eval.py build's)")
    args = ap.parse_args()
    build_sets(args)
    for models in args.models:
        tag = os.path.basename(os.path.normpath(models))
        figures = {}
        for kind in ("narrow", "wide"):
            result, pred = (os.path.join(args.work, f"{tag}-{kind}{x}") for x in (".json", "-predictions"))
            subprocess.run([sys.executable, os.path.join(HERE, "footstep_eval.py"), "--out",
                            os.path.join(args.work, kind), "score", "--split", "train", "--models", models,
                            "--json", result, "--predictions", pred], check=True, stdout=subprocess.DEVNULL)
            with open(result) as f:
                figures[kind] = json.load(f)
        fates = where(pred, os.path.join(args.work, "wide"))  # pred: the wide set's, scored last
        print(f"\n{models}: | transmission | harness's buildings: F1 (false footsteps / h) | wide buildings | "
              "wide: found / `other` / not detected |")
        for scenario in ["all"] + sorted(fates):
            cells = []
            for kind in ("narrow", "wide"):
                f = figures[kind]["unseen"] if scenario == "all" else figures[kind]["by"]["scenario"]["unseen"][scenario]
                cells.append(f"{f['f1']:.3f} ({'-' if f['false_per_hour'] is None else round(f['false_per_hour'])})")
            counts = [sum(c) for c in zip(*fates.values())] if scenario == "all" else fates[scenario]
            total = sum(counts)
            print(f"| {scenario} | {cells[0]} | {cells[1]} | " + " / ".join(f"{c / total:.3f}" for c in counts) + " |")


if __name__ == "__main__":
    main()
