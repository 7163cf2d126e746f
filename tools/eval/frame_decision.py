#!/usr/bin/env python3
"""Trains the frame network's decision (`FootstepModel.FrameNetwork.decision`, `FrameDecision` in
Swift): gradient-boosted trees that say, for every detection and every onset of the frame step network with no
detection within 100 ms, whether it is a footstep, from what is known within 2 s of it: the event model's label
and footstep probability, the network's probability at the onset, how many footsteps, detections and
network onsets lie around it, and how strongly the network hears a walk's beat through it. footstepd needs
it: a model's frame network without a decision is refused.

    tools/.venv/bin/python tools/eval/frame_decision.py choose --predictions DIR --frames DIR [--work W]
    tools/.venv/bin/python tools/eval/frame_decision.py attach --predictions DIR --frames DIR --models DIR [--threshold T]

`--predictions` are the pipeline's predictions on the training clips without a frame network
(`footstep_eval.py score --split train --analyze-option=--no-frame-network --predictions DIR`) and `--frames`
the fold networks (`frame_network.py train`: frame-K.json). Every candidate is out of fold: fold K's clips
through fold K's event model and network. `choose` trains the trees of fold K on the other folds' candidates
and scores fold K's clips with each threshold (the training clips, unseen families); `attach` trains the
trees of fold K the same way, and those of the shipped model on every fold's candidates, and writes each
with the threshold (by default the shipped model's: its one home) into fold-K.json's and full.json's frame
network (`make eval`).

A second look (trees judging each candidate again from the first looks around it, 2 s later) was tried and
dropped: docs/research.md.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import frame_data  # noqa: E402
import frame_network  # noqa: E402
import scoring  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
FOLDS = (0, 1, 2, 3)
# Seconds either side of a candidate that its features look at (`FrameDecision.window`).
WINDOW = 2.0
# A neighbour this close (s) is the candidate itself.
SELF = 0.05
# The network's onsets that are candidates, and the levels its onsets are counted at.
ONSET_FLOOR, STRONG_ONSET, SURE_ONSET = 0.3, 0.5, 0.8
NAMES = ["detection", "footstep_label", "footstep_probability", "network_50ms", "network_20ms", "duration_s",
         "nearest_footstep_s", "footsteps_2s", "network_onsets_05_2s", "network_onsets_08_2s",
         "network_onsets_03_2s", "detections_2s", "network_beat"]
# The network's beat (`network_beat`, `FrameDecision.networkBeat`): its highest probability within BEAT_REACH
# frames (`FrameDecision.beatReach`) one and two gait intervals of BEAT_LAGS frames (`FrameDecision.beatHops`,
# 0.25-1.15 s) before and after a candidate.
BEAT_REACH = 4
BEAT_LAGS = np.arange(25, 116)
# The trees' training: distractor-only clips' candidates weigh this much more (false footsteps an hour of them
# are what the aims bound), and the booster's settings.
DISTRACTOR_WEIGHT = 10.0
BOOSTER = dict(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, random_state=0)


def neighbours(times, t):
    """How many of `times` lie more than SELF and at most WINDOW seconds from `t`."""
    gaps = np.abs(times - t) if len(times) else np.array([])
    return float(np.sum((gaps > SELF) & (gaps <= WINDOW)))


def network_beat(peaks, centre):
    """How strongly the network hears a walk through frame `centre` (`FrameDecision.networkBeat`): over every
    gait interval d of BEAT_LAGS frames, the mean of the three highest of `peaks` (the network's probability,
    highest within BEAT_REACH frames: `beat_peaks`) at d and 2d before and after it, the highest such mean.
    A frame outside the clip, or more than the window after the candidate, counts 0."""
    def at(offsets):
        index = centre + offsets
        ok = (index >= 0) & (index < len(peaks)) & (offsets <= round(WINDOW / frame_data.FRAME_SECONDS))
        out = np.zeros(len(offsets))
        out[ok] = peaks[index[ok]]
        return out
    four = np.vstack([at(-BEAT_LAGS), at(BEAT_LAGS), at(-2 * BEAT_LAGS), at(2 * BEAT_LAGS)])
    return float(((four.sum(axis=0) - four.min(axis=0)) / 3).max())


def beat_peaks(prob):
    """The network's highest probability within BEAT_REACH frames of each frame."""
    from scipy.ndimage import maximum_filter1d
    return maximum_filter1d(np.asarray(prob, dtype=np.float64), size=2 * BEAT_REACH + 1, mode="constant")


def candidates(rows, prob):
    """(onset s, features, is a detection) for each detection (analyze's CSV rows) and each network onset
    ≥ ONSET_FLOOR with no detection within the scorer's tolerance, in NAMES order."""
    footsteps = np.array(sorted(float(r["onset_s"]) for r in rows if r["label"] != "other"))
    detections = np.array(sorted(float(r["onset_s"]) for r in rows))
    onsets = frame_data.peaks(prob, ONSET_FLOOR)
    beats = beat_peaks(prob)
    heights = np.array([prob[int(round(t / frame_data.FRAME_SECONDS))] for t in onsets])
    over05, over08 = onsets[heights >= STRONG_ONSET], onsets[heights >= SURE_ONSET]

    def context(t):
        gaps = np.abs(footsteps - t) if len(footsteps) else np.array([])
        gaps = gaps[gaps > SELF]
        nearest = min(float(gaps.min()), WINDOW) if len(gaps) else WINDOW
        return [nearest, neighbours(footsteps, t), neighbours(over05, t), neighbours(over08, t),
                neighbours(onsets, t), neighbours(detections, t),
                network_beat(beats, int(round(t / frame_data.FRAME_SECONDS)))]

    found = []
    for r in rows:
        t, footstep, confidence = float(r["onset_s"]), r["label"] != "other", float(r["confidence"])
        found.append((t, [1.0, float(footstep), confidence if footstep else 1 - confidence,
                          frame_data.near_maximum(prob, t), frame_data.near_maximum(prob, t, 2), float(r["duration_s"])]
                      + context(t), True))
    for t in onsets:
        if len(detections) and np.min(np.abs(detections - t)) <= scoring.TOLERANCE:
            continue
        found.append((float(t), [0.0, 0.0, 0.0, frame_data.near_maximum(prob, t), frame_data.near_maximum(prob, t, 2), 0.0]
                      + context(t), False))
    return found


def fold_candidates(args):
    """{fold: [(clip, scenario, seconds, truth, candidates, targets, weights)]}: every training clip's candidates,
    each fold's through its own network, with whether each matches a step (one to one, ±100 ms); with
    `--negative-predictions`, the fold's training negatives' candidates too (nobody walks in them)."""
    folds = {}
    for k in FOLDS:
        with open(os.path.join(args.frames, f"frame-{k}.json")) as f:
            frame = json.load(f)
        sets = [("train", args.predictions)]
        if args.negative_predictions:
            sets.append(("train-negatives", args.negative_predictions))
        clips = []
        for split, predictions in sets:
            clips += split_candidates(args, frame, split, k, predictions)
        folds[k] = clips
        print(f"fold {k}: {sum(len(c[4]) for c in clips)} candidates", file=sys.stderr, flush=True)
    return folds


def split_candidates(args, frame, split, k, predictions):
    """The candidates of one split's clips of fold k (`fold_candidates`)."""
    gt = os.path.join(args.out, split, str(k), "gt")
    meta = frame_data.clip_meta(os.path.join(args.out, split, str(k)))
    clips = []
    for name in frame_data.clip_names(gt):
        prob = frame_network.forward(frame, frame_network.read_picture(
            os.path.join(frame_network.picture_dir(args.work, split, k), name + ".f32")))
        truth = scoring.read_truth(os.path.join(gt, name + ".csv"))
        found = candidates(frame_data.pipeline_rows(predictions, k, k, name), prob)
        steps = [s[0] for s in truth if not s[2].startswith("other")]
        targets = np.zeros(len(found))
        for _, p in scoring.match(steps, [c[0] for c in found]):
            targets[p] = 1
        weight = 1.0 if steps else DISTRACTOR_WEIGHT
        clips.append((name, meta.get(name, {}).get("scenario", "?"), len(prob) * frame_data.FRAME_SECONDS, truth,
                      found, targets, np.full(len(found), weight)))
    return clips


def fit(folds, keep):
    """Trees trained on the candidates of the folds in `keep`."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    rows = [c for k in keep for c in folds[k] if c[4]]
    x = np.array([f for c in rows for _, f, _ in c[4]])
    y = np.concatenate([c[5] for c in rows])
    w = np.concatenate([c[6] for c in rows])
    return HistGradientBoostingClassifier(**BOOSTER).fit(x, y, sample_weight=w)


def judge(model, found):
    """The probability of each of a clip's candidates."""
    if not found:
        return np.array([])
    return model.predict_proba(np.array([f for _, f, _ in found]))[:, 1]


def export(model):
    """The trees as `FootstepModel.FrameNetwork.Decision`'s `trees` (one logit: a footstep), checked against
    scikit-learn's own decision function."""
    import train_classifier
    trees = train_classifier.export_trees(model)
    scale = [1, 1, 0.3, 0.3, 0.3, 0.5, 1, 3, 3, 2, 4, 3, 0.3]
    probe = np.random.default_rng(1).normal(0, 1, size=(200, len(NAMES))) * scale
    gap = np.abs(train_classifier.tree_logits(trees, probe)[:, 0] - model.decision_function(probe)).max()
    if gap > 1e-9:
        sys.exit(f"the exported trees differ from scikit-learn's by {gap:.2g}")
    return trees


THRESHOLDS = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


def choose(args):
    """Each threshold's figures on the training clips, every fold's trees trained without it."""
    folds = fold_candidates(args)
    tallies = defaultdict(scoring.Tally)
    for k in FOLDS:
        keep = [j for j in FOLDS if j != k]
        model = fit(folds, keep)
        for name, scenario, seconds, truth, found, _, _ in folds[k]:
            p = judge(model, found)
            for threshold in THRESHOLDS:
                claims = sorted((found[i][0], "footstep") for i in range(len(found)) if p[i] >= threshold)
                for g in ("all", scenario):
                    tallies[(threshold, g)].add_clip(truth, claims, seconds)
    groups = sorted({key[-1] for key in tallies})
    for threshold in THRESHOLDS:
        print(f"threshold {threshold}: " + frame_data.figure_cells(tallies, (threshold,), groups), flush=True)


def shipped_threshold():
    """The threshold of the shipped model's decision."""
    with open(os.path.join(ROOT, "Sources", "FootstepClassifier", "Resources", "footstep-model.json")) as f:
        decision = (json.load(f).get("frameNetwork") or {}).get("decision")
    if decision is None:
        sys.exit("the shipped model has no frame decision to take the threshold from: give --threshold "
                 "(frame_decision.py choose prints each one's figures)")
    return decision["threshold"]


def attach(args):
    """Fold K's trees (trained without fold K) into fold-K.json, every fold's into full.json, with `threshold`."""
    if args.threshold is None:
        args.threshold = shipped_threshold()
    folds = fold_candidates(args)
    for k in [*FOLDS, "full"]:
        path = os.path.join(args.models, "full.json" if k == "full" else f"fold-{k}.json")
        with open(path) as f:
            document = json.load(f)
        if "frameNetwork" not in document:
            sys.exit(f"{path} has no frame network: attach one first (frame_network.py folds)")
        keep = [j for j in FOLDS if j != k]
        decision = dict(trees=export(fit(folds, keep)), threshold=args.threshold, features=NAMES)
        document["frameNetwork"]["decision"] = decision
        # A calibration fitted to the pipeline with the previous decision no longer describes it.
        stale = document.pop("confidenceCalibration", None) is not None
        with open(path, "w") as f:
            json.dump(document, f, separators=(",", ":"))
        print(f"{path}: decision attached (threshold {args.threshold})"
              + ("; its confidence calibration removed: fit it again (output_calibration.py attach)" if stale else ""),
              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    parser.add_argument("--work", default="/tmp/frame-network", help="frame_network.py's pictures")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("choose", "attach"):
        p = commands.add_parser(name)
        p.add_argument("--predictions", required=True, help="the pipeline's predictions on the training clips, "
                                                            "without a frame network")
        p.add_argument("--frames", required=True, help="directory with frame-K.json")
        p.add_argument("--negative-predictions",
                       help="the same on the training negatives (score --split train-negatives): train on them too")
        if name == "attach":
            p.add_argument("--models", required=True, help="fold-K.json and full.json, each with its frame network")
            p.add_argument("--threshold", type=float, help="a footstep at or above it (default: the shipped model's)")
    args = parser.parse_args()
    {"choose": choose, "attach": attach}[args.command](args)


if __name__ == "__main__":
    main()
