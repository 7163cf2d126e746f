#!/usr/bin/env python3
"""Fits the model's confidence calibration (`FootstepModel.confidenceCalibration`, `ConfidenceCalibration` in
Swift): for each label (the four types and `other`), an isotonic map from the confidence the whole pipeline gives
it to how often a label at that confidence is right (`scoring.Reliability`: a type matched one to one to a step
of that type, `other` with no step within ±100 ms) on families the model never heard.

    tools/.venv/bin/python tools/eval/output_calibration.py attach --models DIR [--predictions DIR]

It runs each fold model, without a calibration, over the training clips of its own fold (families it did not
train on), then fits fold K's maps on the other folds' events and the shipped model's (full.json) on every
fold's, and writes each into its model file (`make eval`). Swift applies the maps; it keeps a type's confidence
on its side of 0.5, so the labels do not change, only what their confidence says.
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import footstep_eval  # noqa: E402
import scoring  # noqa: E402
import sources  # noqa: E402

FOLDS = (0, 1, 2, 3)


def uncalibrated_events(args):
    """{fold: scoring.Reliability} of fold K's model (its calibration removed) on fold K's training clips."""
    work = args.predictions or tempfile.mkdtemp(prefix="footstep-calibration-")
    os.makedirs(work, exist_ok=True)
    events = {}
    for k in FOLDS:
        with open(os.path.join(args.models, f"fold-{k}.json")) as f:
            document = json.load(f)
        document.pop("confidenceCalibration", None)
        model = os.path.join(work, f"uncalibrated-{k}.json")
        with open(model, "w") as f:
            json.dump(document, f, separators=(",", ":"))
        gt = os.path.join(args.out, "train", str(k), "gt")
        pred = os.path.join(work, f"model-{k}", str(k))
        print(f"fold {k}: analysing its training clips", file=sys.stderr, flush=True)
        footstep_eval.analyze(args.footstepctl, model, gt, pred)
        reliability = scoring.Reliability()
        for name in footstep_eval.clip_names(gt):
            reliability.add_clip(scoring.read_truth(os.path.join(gt, name + ".csv")),
                                 scoring.read_rows(os.path.join(pred, name + ".csv")))
        events[k] = reliability
    return events


def fit(events, classes):
    """ConfidenceCalibration's `curves`, one for each of `classes` (the model file's `classes`, in its order), from
    (label, confidence, right) events."""
    from sklearn.isotonic import IsotonicRegression
    curves = []
    for name in classes:
        x = [c for label, c, _ in events if label == name]
        y = [float(r) for label, _, r in events if label == name]
        if len(x) < 20:
            sys.exit(f"only {len(x)} `{name}` labels to calibrate on: too few")
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y)
        curves.append(dict(x=[float(v) for v in iso.X_thresholds_], y=[float(v) for v in iso.y_thresholds_]))
    return curves


def attach(args):
    if not os.path.exists(args.footstepctl):
        sys.exit(f"{args.footstepctl} not found: build it (swift build -c release --product footstepctl)")
    missing = [name for name in [*(f"fold-{k}.json" for k in FOLDS), "full.json"]
               if not os.path.exists(os.path.join(args.models, name))]
    if missing:
        sys.exit(f"{args.models} lacks {', '.join(missing)}: train the fold models first (make eval)")
    events = uncalibrated_events(args)
    for k in [*FOLDS, "full"]:
        path = os.path.join(args.models, "full.json" if k == "full" else f"fold-{k}.json")
        pooled = scoring.Reliability()
        for j in FOLDS:
            if j != k:
                pooled.merge(events[j])
        with open(path) as f:
            document = json.load(f)
        document["confidenceCalibration"] = dict(curves=fit(pooled.events, document["classes"]))
        with open(path, "w") as f:
            json.dump(document, f, separators=(",", ":"))
        print(f"{path}: confidence calibration attached ({len(pooled.events)} labels; before it, ECE "
              f"{pooled.figures()['ece']:.3f})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("attach")
    p.add_argument("--models", required=True, help="fold-K.json and full.json, each with its frame network")
    p.add_argument("--predictions", help="where the uncalibrated analyses go (default: a new temporary directory)")
    p.add_argument("--footstepctl", default=os.path.join(sources.ROOT, ".build", "release", "footstepctl"))
    args = parser.parse_args()
    attach(args)


if __name__ == "__main__":
    main()
