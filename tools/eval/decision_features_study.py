#!/usr/bin/env python3
"""Study: does the frame decision (`frame_decision.py`) judge better with evidence a listener uses beyond its
own features (`frame_decision.NAMES`): the rhythm around a candidate (is it on the beat of the steps near it), its loudness and
bassiness relative to the impacts around it, and a second look that counts the neighbours the first look
called footsteps?

Every figure is out of fold on the training clips (fold K's trees trained on the other folds' candidates,
scored on fold K's clips: families those trees never saw), as `frame_decision.py choose` prints them.

    tools/.venv/bin/python tools/eval/decision_features_study.py --predictions DIR --frames DIR [--work W] \
        [--only base,beat,level,wide,all,two-pass,all+two-pass] [--causal]

`--predictions` and `--frames` as for `frame_decision.py choose`; the candidates are cached in `--cache`.
"""
import argparse
import os
import pickle
import sys
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_decision  # noqa: E402
import frame_detector_study as study  # noqa: E402
import scoring  # noqa: E402

FOLDS = frame_decision.FOLDS
# Seconds either side the loudness of the impacts around a candidate is taken from.
LEVEL_WINDOW = 5.0


def beat_error(t, times):
    """`frame_decision.beat_miss`: how far `t` misses the beat of `times`, 1 when none is on it."""
    return frame_decision.beat_miss(t, np.asarray(times, dtype=float)) if len(times) else 1.0


def extra_features(rows, found, prob):
    """Per candidate: beat error over the footsteps and strong network onsets, level (la_max) and bassiness
    (lc_max − la_max) relative to the median over the detections within LEVEL_WINDOW, footsteps within 4 s."""
    footsteps = np.array(sorted(float(r["onset_s"]) for r in rows if r["label"] != "other"))
    onsets = study.peaks(prob, frame_decision.STRONG_ONSET)
    beats = np.array(sorted(set(np.round(np.concatenate([footsteps, onsets]), 2))))
    det_t = np.array([float(r["onset_s"]) for r in rows])
    det_la = np.array([float(r["la_max"]) for r in rows])
    det_bass = np.array([float(r["lc_max"]) - float(r["la_max"]) for r in rows])
    out = []
    for t, features, is_detection in found:
        others = beats[np.abs(beats - t) > frame_decision.SELF] if len(beats) else beats
        be = beat_error(t, others)
        rel_la, rel_bass = 0.0, 0.0
        if is_detection and len(det_t):
            me = np.argmin(np.abs(det_t - t))
            near = (np.abs(det_t - t) <= LEVEL_WINDOW) & (np.abs(det_t - t) > frame_decision.SELF)
            if near.any():
                rel_la = det_la[me] - float(np.median(det_la[near]))
                rel_bass = det_bass[me] - float(np.median(det_bass[near]))
        gaps = np.abs(footsteps - t) if len(footsteps) else np.array([])
        wide = float(np.sum((gaps > frame_decision.SELF) & (gaps <= 4.0)))
        out.append([be, rel_la, rel_bass, wide])
    return out


def load(args):
    """[(fold, clip, scenario, seconds, truth, found, extra, targets, weights)], cached in --cache."""
    if os.path.exists(args.cache):
        with open(args.cache, "rb") as f:
            return pickle.load(f)
    original = frame_decision.candidates
    keep = {}

    def candidates(rows, prob):
        found = original(rows, prob)
        keep[id(found)] = extra_features(rows, found, prob)
        return found

    frame_decision.candidates = candidates
    folds = frame_decision.fold_candidates(args)
    clips = []
    for k, fold in folds.items():
        for name, scenario, seconds, truth, found, targets, weights in fold:
            clips.append((k, name, scenario, seconds, truth, found, keep[id(found)], targets, weights))
    with open(args.cache, "wb") as f:
        pickle.dump(clips, f)
    return clips


def matrix(clip, columns, extra_columns):
    """The clip's candidates' features: `columns` of frame_decision's NAMES, then `extra_columns` of ours."""
    base = np.array([f for _, f, _ in clip[5]]).reshape(len(clip[5]), -1)
    extra = np.array(clip[6]).reshape(len(clip[6]), -1)
    return np.hstack([base[:, columns], extra[:, extra_columns]])


def second_look(clip, p, causal):
    """Per candidate: how many candidates within 2 s (not itself) the first look called footsteps (≥ 0.5),
    their mean first-look probability, and the beat error over them (with `causal`, only those before it)."""
    times = np.array([c[0] for c in clip[5]])
    out = []
    sure = times[p >= 0.5]
    for i, t in enumerate(times):
        gaps = np.abs(times - t)
        near = (gaps > frame_decision.SELF) & (gaps <= frame_decision.WINDOW)
        if causal:
            near &= times < t
            sure = times[(p >= 0.5) & (times < t)]
        count = float(np.sum(near & (p >= 0.5)))
        mean = float(p[near].mean()) if near.any() else 0.0
        be = beat_error(t, sure[np.abs(sure - t) > frame_decision.SELF])
        out.append([p[i], count, mean, be])
    return np.array(out).reshape(len(times), 4)


def run(clips, columns, extra_columns, label, two_pass=False, causal=False):
    """Prints the figures at 0.4, 0.5 and 0.6 of trees over the chosen features (with `two_pass`, of the second
    look's trees), every fold's trained on the other folds' candidates."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    tallies = defaultdict(scoring.Tally)
    for k in FOLDS:
        train = [c for c in clips if c[0] != k and c[5]]
        x = np.vstack([matrix(c, columns, extra_columns) for c in train])
        y = np.concatenate([c[7] for c in train])
        w = np.concatenate([c[8] for c in train])
        model = HistGradientBoostingClassifier(**frame_decision.BOOSTER).fit(x, y, sample_weight=w)
        if two_pass:
            # The second look trains on first looks that are themselves out of fold within the training folds.
            inner = {}
            for j in FOLDS:
                if j == k:
                    continue
                fit_on = [c for c in train if c[0] != j]
                m = HistGradientBoostingClassifier(**frame_decision.BOOSTER).fit(
                    np.vstack([matrix(c, columns, extra_columns) for c in fit_on]),
                    np.concatenate([c[7] for c in fit_on]), sample_weight=np.concatenate([c[8] for c in fit_on]))
                for c in train:
                    if c[0] == j:
                        inner[c[1], j] = m.predict_proba(matrix(c, columns, extra_columns))[:, 1]
            x2 = np.vstack([np.hstack([matrix(c, columns, extra_columns), second_look(c, inner[c[1], c[0]], causal)])
                            for c in train])
            model2 = HistGradientBoostingClassifier(**frame_decision.BOOSTER).fit(x2, y, sample_weight=w)
        for c in clips:
            if c[0] != k:
                continue
            found = c[5]
            if found:
                p = model.predict_proba(matrix(c, columns, extra_columns))[:, 1]
                if two_pass:
                    p = model2.predict_proba(np.hstack([matrix(c, columns, extra_columns), second_look(c, p, causal)]))[:, 1]
            else:
                p = np.array([])
            for threshold in (0.4, 0.5, 0.6):
                claims = sorted((found[i][0], "footstep") for i in range(len(found)) if p[i] >= threshold)
                for g in ("all", c[2]):
                    tallies[(threshold, g)].add_clip(c[4], claims, c[3])
    groups = ["all", "ceiling", "same_room", "slab", "timber"]
    for threshold in (0.4, 0.5, 0.6):
        print(f"{label} @{threshold}: " + study.figure_cells(tallies, (threshold,), groups), flush=True)


def coverage(clips):
    """How many steps have a candidate within the scorer's tolerance: the decision's ceiling on recall."""
    steps = found = 0
    for c in clips:
        truth = [s[0] for s in c[4] if not s[2].startswith("other")]
        steps += len(truth)
        found += len(scoring.match(truth, [x[0] for x in c[5]]))
    print(f"candidates cover {found} of {steps} steps ({found / max(steps, 1):.3f})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    parser.add_argument("--work", default="/tmp/frame-network")
    parser.add_argument("--predictions", required=True)
    parser.add_argument("--frames", required=True)
    parser.add_argument("--cache", default="/tmp/decision-features.pkl")
    parser.add_argument("--only", help="comma-separated variants to run")
    parser.add_argument("--causal", action="store_true", help="the second look sees only the candidates before")
    args = parser.parse_args()
    clips = load(args)
    coverage(clips)
    base = list(range(len(frame_decision.NAMES)))
    variants = {
        "base": (base, [], False),
        "beat": (base, [0], False),
        "level": (base, [1, 2], False),
        "wide": (base, [3], False),
        "all": (base, [0, 1, 2, 3], False),
        "two-pass": (base, [], True),
        "all+two-pass": (base, [0, 1, 2, 3], True),
    }
    for name in (args.only.split(",") if args.only else variants):
        columns, extra_columns, two_pass = variants[name]
        run(clips, columns, extra_columns, name, two_pass, args.causal)


if __name__ == "__main__":
    main()
