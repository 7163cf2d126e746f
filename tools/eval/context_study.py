#!/usr/bin/env python3
"""A study: does a *learned* look at an impact's neighbours beat the hand-written gait-context rules?

    tools/.venv/bin/python tools/eval/context_study.py --out /tmp/footstep-eval --models DIR

For each fold K, `footstepctl analyze --no-gait-context --format jsonl` runs fold K's model over fold K's
*training* clips (families that model never trained on) and keeps every detection with the event model's
P(footstep), levels and duration. Each detection gets features of its neighbourhood (3 s before, 2.4 s
after: the reach `GaitContextRefiner` already waits for): how many impacts, how sure the event model is
of them, whether they fall on a beat through this one, how loud it is against them. Gradient-boosted
trees on those features, trained on the other folds' detections, give fold K's detections a new
P(footstep); the predictions are written as analyze CSVs and scored by `scoring.py` against the clips'
truth, beside the shipped rules (`analyze` with gait context) and the event model alone.
Nothing here is shipped; the CHANGELOG (*Studies moved from docs/evaluation.md*, session 53) reports what it measured.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scoring  # noqa: E402
import sources  # noqa: E402
from footstep_eval import clip_names  # noqa: E402

BEFORE, AFTER = 3.0, 2.4
INTERVALS = (0.25, 1.2)
TOLERANCE = 0.15
TYPES = scoring.CLASSES


def detections(footstepctl, model, gt, cache):
    """{clip: [event dict]} from analyze's jsonl without gait context (cached)."""
    if not os.path.exists(cache):
        names = clip_names(gt)
        wavs = [scoring.clip_audio(gt, n) for n in names]
        with open(cache + ".tmp", "w") as f:
            subprocess.run([footstepctl, "analyze", "--no-gait-context", "--format", "jsonl", "--model", model] + wavs,
                           check=True, stdout=f)
        os.rename(cache + ".tmp", cache)
    out = {}
    with open(cache) as f:
        for line in f:
            r = json.loads(line)
            if r.get("record") != "event":
                continue
            clip = os.path.splitext(os.path.basename(r["file"]))[0]
            out.setdefault(clip, []).append(r)
    return out


def logit(p):
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def on_beat(t, p, i, lo, hi):
    """Best P-weighted evidence that detection i sits on a beat: pairs (j, k) with i-j and j-k (or k-i) equal
    within TOLERANCE, the interval in INTERVALS. Returns (before-before, before-after, after-after) scores."""
    best = [0.0, 0.0, 0.0]
    for j in range(lo, hi):
        if j == i:
            continue
        d = t[i] - t[j]
        ad = abs(d)
        if not INTERVALS[0] <= ad <= INTERVALS[1]:
            continue
        for k in range(lo, hi):
            if k in (i, j):
                continue
            if d > 0:  # j before i
                if abs((t[j] - t[k]) - d) <= TOLERANCE * d:
                    best[0] = max(best[0], p[j] * p[k])
                if abs((t[k] - t[i]) - d) <= TOLERANCE * d:
                    best[1] = max(best[1], p[j] * p[k])
            else:  # j after i
                if abs((t[k] - t[j]) - ad) <= TOLERANCE * ad:
                    best[2] = max(best[2], p[j] * p[k])
    return best


def chain(t, p, la, i, lo, hi):
    """The longest run of regular impacts through i (each interval in INTERVALS and within TOLERANCE of the
    one before), extended greedily both ways from i's best neighbour; (length, mean P, level spread)."""
    best = (1, p[i], 0.0)
    for j in range(lo, hi):
        if j == i:
            continue
        d = abs(t[i] - t[j])
        if not INTERVALS[0] <= d <= INTERVALS[1]:
            continue
        members = sorted([i, j], key=lambda m: t[m])
        # extend forwards and backwards with the same interval
        for direction in (1, -1):
            last = members[-1] if direction == 1 else members[0]
            prev = members[-2] if direction == 1 else members[1]
            while True:
                interval = abs(t[last] - t[prev])
                target = t[last] + direction * interval
                cands = [m for m in range(lo, hi) if m not in members and abs(t[m] - target) <= TOLERANCE * interval]
                if not cands:
                    break
                m = max(cands, key=lambda c: p[c])
                prev, last = last, m
                if direction == 1:
                    members.append(m)
                else:
                    members.insert(0, m)
        if len(members) > best[0] or (len(members) == best[0] and np.mean([p[m] for m in members]) > best[1]):
            best = (len(members), float(np.mean([p[m] for m in members])),
                    float(np.ptp([la[m] for m in members])))
    return best


FEATURES = ["logit", "duration", "lc_minus_la", "n_before", "n_after", "sum_p_before", "sum_p_after",
            "max_p_before", "max_p_after", "gap_before", "gap_after", "p_nearest_before", "p_nearest_after",
            "beat_bb", "beat_ba", "beat_aa", "chain_length", "chain_mean_p", "chain_level_spread",
            "la_minus_max", "la_minus_sure_median", "sure_count", "sure_long_before", "mean_p_long_before"]
LONG = 10.0


def features(events):
    """One row of FEATURES per detection of a clip (events in onset order)."""
    t = np.array([e["onset_s"] for e in events])
    p = np.array([e["footstep_probability"] for e in events])
    la = np.array([e["la_max"] for e in events])
    rows = []
    n = len(events)
    for i, e in enumerate(events):
        lo = int(np.searchsorted(t, t[i] - BEFORE, "left"))
        hi = int(np.searchsorted(t, t[i] + AFTER, "right"))
        longlo = int(np.searchsorted(t, t[i] - LONG, "left"))
        before = [j for j in range(lo, i)]
        after = [j for j in range(i + 1, hi)]
        near_b = [j for j in before if t[i] - t[j] <= 1.5]
        near_a = [j for j in after if t[j] - t[i] <= 1.5]
        window = before + after
        sure = [j for j in window if p[j] >= 0.5]
        bb, ba, aa = on_beat(t, p, i, lo, hi)
        length, mean_p, spread = chain(t, p, la, i, lo, hi)
        rows.append([
            logit(p[i]), e["duration_s"], e["lc_max"] - e["la_max"], len(before), len(after),
            float(p[before].sum()) if before else 0.0, float(p[after].sum()) if after else 0.0,
            float(p[near_b].max()) if near_b else 0.0, float(p[near_a].max()) if near_a else 0.0,
            t[i] - t[i - 1] if i > 0 and t[i] - t[i - 1] < BEFORE else BEFORE,
            t[i + 1] - t[i] if i + 1 < n and t[i + 1] - t[i] < AFTER else AFTER,
            p[i - 1] if i > 0 and t[i] - t[i - 1] < BEFORE else 0.0,
            p[i + 1] if i + 1 < n and t[i + 1] - t[i] < AFTER else 0.0,
            bb, ba, aa, length, mean_p, spread,
            la[i] - la[lo:hi].max(), la[i] - float(np.median(la[sure])) if sure else 0.0, len(sure),
            int((p[longlo:i] >= 0.5).sum()), float(p[longlo:i].mean()) if i > longlo else 0.0])
    return rows


def labelled(dets, gt):
    """(clip, index, is_step) for every detection, matched one-to-one to the truth's footsteps (±0.1 s)."""
    out = {}
    for clip, events in dets.items():
        truth = [o for o, _, lab in scoring.read_truth(os.path.join(gt, clip + ".csv")) if lab in TYPES]
        pairs = scoring.match(truth, [e["onset_s"] for e in events])
        y = np.zeros(len(events), dtype=int)
        for _, d in pairs:
            y[d] = 1
        out[clip] = y
    return out


def write_predictions(pred_dir, dets, prob, threshold):
    os.makedirs(pred_dir, exist_ok=True)
    for clip, events in dets.items():
        with open(os.path.join(pred_dir, clip + ".csv"), "w") as f:
            f.write("onset_s,label,confidence\n")
            for e, q in zip(events, prob[clip]):
                if q >= threshold:
                    shares = e["type_probabilities"]
                    label = max(shares, key=shares.get)
                    f.write(f"{e['onset_s']:.3f},{label},{q:.3f}\n")
                else:
                    f.write(f"{e['onset_s']:.3f},other,{1 - q:.3f}\n")


def score(pred_dir, gts):
    """Figures over every fold: fold K's predictions are in pred_dir/K (clip names repeat across folds)."""
    total = scoring.Tally()
    for k, gt in enumerate(gts):
        t, _ = scoring.score_directory(os.path.join(pred_dir, str(k)), gt)
        total.merge(t)
    return total.figures()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval")
    ap.add_argument("--models", required=True)
    ap.add_argument("--footstepctl", default=os.path.join(sources.ROOT, ".build", "release", "footstepctl"))
    ap.add_argument("--work", help="default: MODELS/context-study")
    ap.add_argument("--thresholds", default="0.5,0.6,0.7,0.75,0.8,0.85")
    args = ap.parse_args()
    work = args.work or os.path.join(args.models, "context-study")
    os.makedirs(work, exist_ok=True)
    from sklearn.ensemble import HistGradientBoostingClassifier

    folds = list(sources.FOLDS)
    data = {}
    for k in folds:
        gt = os.path.join(args.out, "train", str(k), "gt")
        dets = detections(args.footstepctl, os.path.join(args.models, f"fold-{k}.json"), gt,
                          os.path.join(work, f"fold{k}.jsonl"))
        dets = {c: sorted(v, key=lambda e: e["onset_s"]) for c, v in dets.items()}
        ys = labelled(dets, gt)
        clips = sorted(dets)
        X = np.array([row for c in clips for row in features(dets[c])])
        y = np.concatenate([ys[c] for c in clips])
        data[k] = (gt, dets, clips, X, y)
        print(f"fold {k}: {len(y)} detections, {int(y.sum())} steps among them", flush=True)

    gts = [data[k][0] for k in folds]
    # the event model alone, by its own P
    for threshold in [0.5]:
        pred = os.path.join(work, f"event-{threshold}")
        for k in folds:
            _, dets, clips, X, _ = data[k]
            write_predictions(os.path.join(pred, str(k)), dets,
                              {c: [e["footstep_probability"] for e in dets[c]] for c in clips}, threshold)
        f = score(pred, gts)
        print(f"event model alone  P>={threshold}: F1 {f['f1']:.3f} P {f['precision']:.3f} R {f['recall']:.3f} "
              f"{f['false_per_hour']:.0f}/h")

    prob = {k: {} for k in folds}
    for k in folds:
        train = [j for j in folds if j != k]
        X = np.vstack([data[j][3] for j in train])
        y = np.concatenate([data[j][4] for j in train])
        model = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.08, max_leaf_nodes=15,
                                               min_samples_leaf=40, l2_regularization=1.0, random_state=7)
        model.fit(X, y)
        _, dets, clips, Xk, yk = data[k]
        q = model.predict_proba(Xk)[:, 1]
        start = 0
        for c in clips:
            prob[k][c] = q[start:start + len(dets[c])]
            start += len(dets[c])
        from sklearn.metrics import roc_auc_score
        base = roc_auc_score(yk, Xk[:, 0])
        print(f"fold {k}: AUC event model {base:.3f}, with context {roc_auc_score(yk, q):.3f}", flush=True)
    for threshold in [float(v) for v in args.thresholds.split(",")]:
        pred = os.path.join(work, f"context-{threshold}")
        for k in folds:
            _, dets, clips, _, _ = data[k]
            write_predictions(os.path.join(pred, str(k)), dets, prob[k], threshold)
        f = score(pred, gts)
        print(f"learned context P>={threshold}: F1 {f['f1']:.3f} P {f['precision']:.3f} R {f['recall']:.3f} "
              f"{f['false_per_hour']:.0f}/h", flush=True)


if __name__ == "__main__":
    main()
