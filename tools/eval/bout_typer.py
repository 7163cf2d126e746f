"""The bout typer: a footstep's type from its whole bout, fitted on detections of unseen families.

footstepd names a footstep's type twice. When it is released, live, from the
bout so far (`BoutTyping`, rules). When its bout has ended (no footstep for
1.5 s), `BoutReviser` names every step of the bout again with this model, which
sees the bout's cadence and each step's level and colour relative to the
bout and to the stream's other footsteps of the last five minutes: a person
hears stomps as heavier than the walker's ordinary steps, running as
cadence, shuffling as a scrape in most of a bout's steps. A changed type is
an appended revision.

`features` here and `BoutReviser.features` in Swift compute the same values
in the same order (`FEATURES`); a test pins them on one bout. The model is
scikit-learn's gradient-boosted trees (100 rounds of one tree of at most 15
leaves a type, balanced classes; `BoutTypePredictor` walks them in Swift),
written into the event model's JSON as `boutTyper`.

    python3 tools/eval/bout_typer.py --events DIR   # out-of-fold figures from analyze --format jsonl files
"""
import argparse
import collections
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import scoring  # noqa: E402
import train_classifier  # noqa: E402

# Must equal BoutReviser's constants.
BOUT_GAP = 1.5
STEP_INTERVALS = (0.2, 1.2)
REFERENCE_SECONDS = 300.0
MAX_BOUT_STEPS = 64
TYPES = ("stomping", "heel_strike", "shuffling", "running")
FEATURES = (
    "bout_cadence_hz", "local_cadence_hz", "bout_steps_log",
    "bout_level_over_q30_db", "bout_level_over_median_db", "level_over_q30_db", "level_over_bout_db",
    "bout_lc_minus_la_over_median_db", "lc_minus_la_over_median_db", "duration_log_s",
    "bout_p_stomping", "bout_p_heel_strike", "bout_p_shuffling", "bout_p_running",
    "p_stomping", "p_heel_strike", "p_shuffling", "p_running", "footstep_probability",
)


def percentile(values, q):
    """numpy's linear-interpolation percentile (the Swift side computes the same)."""
    return float(np.percentile(np.asarray(values, float), q))


def bouts(steps):
    """Index lists of consecutive footsteps (onset order) less than BOUT_GAP apart, at most MAX_BOUT_STEPS each."""
    out, current = [], []
    for i, e in enumerate(steps):
        if current and (e["onset_s"] - steps[current[-1]]["onset_s"] >= BOUT_GAP or len(current) == MAX_BOUT_STEPS):
            out.append(current)
            current = []
        current.append(i)
    if current:
        out.append(current)
    return out


def features(steps):
    """One row of FEATURES per footstep of `steps` (dicts of analyze's jsonl, footsteps only, onset order)."""
    onsets = np.array([e["onset_s"] for e in steps], float)
    levels = np.array([e["la_max"] for e in steps], float)
    colour = np.array([e["lc_max"] - e["la_max"] for e in steps], float)
    shares = np.array([[e["type_probabilities"][t] for t in TYPES] for e in steps], float)
    rows = np.zeros((len(steps), len(FEATURES)))
    lo, hi = STEP_INTERVALS
    for b in bouts(steps):
        last = onsets[b[-1]]
        known = (onsets <= last) & (onsets >= last - REFERENCE_SECONDS)
        q30, q50 = percentile(levels[known], 30), percentile(levels[known], 50)
        c50 = percentile(colour[known], 50)
        intervals = np.diff(onsets[b])
        intervals = intervals[(intervals >= lo) & (intervals <= hi)]
        cadence = 1 / percentile(intervals, 50) if len(intervals) else 0.0
        bout_level = percentile(levels[b], 50)
        bout_colour = percentile(colour[b], 50)
        bout_shares = shares[b].mean(axis=0)
        for i in b:
            d = np.abs(onsets[b] - onsets[i])
            d = d[(d >= lo) & (d <= hi)]
            e = steps[i]
            rows[i] = [
                cadence, 1 / d.min() if len(d) else 0.0, np.log(len(b)),
                bout_level - q30, bout_level - q50, levels[i] - q30, levels[i] - bout_level,
                bout_colour - c50, colour[i] - c50, np.log(max(e["duration_s"], 0.01)),
                *bout_shares, *shares[i], e["footstep_probability"],
            ]
    return rows


def load_jsonl(path):
    """analyze --format jsonl → {clip name: [event dicts]}."""
    by = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("record") == "event":
                by[os.path.splitext(os.path.basename(r["file"]))[0]].append(r)
    return by


def labelled(events_by_clip, gt_dir):
    """(X, y, clips): bout features of every released footstep and the type of the true step it matches
    ('none' when it matches none); clips = [(name, truth, steps, rows)] for scoring."""
    X, y, clips = [], [], []
    for name, events in sorted(events_by_clip.items()):
        truth = scoring.read_truth(os.path.join(gt_dir, name + ".csv"))
        true_steps = [t for t in truth if not t[2].startswith("other")]
        steps = sorted((e for e in events if e["kind"] == "footstep"), key=lambda e: e["onset_s"])
        rows = features(steps) if steps else np.zeros((0, len(FEATURES)))
        pairs = scoring.match([t[0] for t in true_steps], [e["onset_s"] for e in steps])
        label = {p: true_steps[g][2] for g, p in pairs}
        X.append(rows)
        y.extend(label.get(i, "none") for i in range(len(steps)))
        clips.append((name, truth, steps, rows))
    return (np.vstack(X) if X else np.zeros((0, len(FEATURES)))), np.array(y), clips


# The trees' settings (chosen out of fold on the training clips: `git show e9903ae:CHANGELOG.md`, session 54).
BOOSTER = dict(max_iter=100, max_leaf_nodes=15, learning_rate=0.1, class_weight="balanced")


def fit(X, y, seed=7):
    """The bout typer, gradient-boosted trees, on the rows that match a true step: a `BoutTypeModel` document
    (trees over the features as they are), checked against
    scikit-learn's own decision function."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    keep = y != "none"
    X, y = X[keep], y[keep]
    model = HistGradientBoostingClassifier(**BOOSTER, random_state=seed).fit(X, y)
    trees = train_classifier.export_trees(model)
    # scikit-learn orders the classes by name; the model file's are TYPES.
    order = [list(model.classes_).index(t) for t in TYPES]
    trees["baseline"] = [trees["baseline"][k] for k in order]
    for tree in trees["trees"]:
        tree["output"] = order.index(tree["output"])
    gap = np.abs(train_classifier.tree_logits(trees, X) - model.decision_function(X)[:, order]).max()
    if gap > 1e-9:
        sys.exit(f"the exported bout typer differs from scikit-learn's by {gap:.2g}")
    return dict(classes=list(TYPES), features=list(FEATURES), trees=trees)


def predict(typer, rows):
    """The type each row names (`BoutTypePredictor`): the trees' highest score."""
    logits = train_classifier.tree_logits(typer["trees"], np.asarray(rows, float))
    return [TYPES[k] for k in logits.argmax(axis=1)]


def retyped(steps, rows, typer):
    """The predictions of one clip with every footstep typed by its bout (unknown below 0.5 stays unknown)."""
    names = predict(typer, rows) if len(steps) else []
    return [(e["onset_s"], "footstep" if e["type"] == "unknown" else t) for e, t in zip(steps, names)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", required=True, help="DIR with fold-K.jsonl (model K on fold K's training clips)")
    ap.add_argument("--out", default="/tmp/footstep-eval")
    args = ap.parse_args()
    data = {}
    for k in range(4):
        data[k] = labelled(load_jsonl(os.path.join(args.events, f"fold-{k}.jsonl")),
                           os.path.join(args.out, "train", str(k), "gt"))
    before, after = scoring.Tally(), scoring.Tally()
    for k in range(4):
        typer = fit(np.vstack([data[j][0] for j in data if j != k]),
                       np.concatenate([data[j][1] for j in data if j != k]))
        for name, truth, steps, rows in data[k][2]:
            live = [(e["onset_s"], "footstep" if e["type"] == "unknown" else e["type"]) for e in steps]
            before.add_clip(truth, live, 45.0)
            after.add_clip(truth, retyped(steps, rows, typer), 45.0)
    for tag, tally in (("live types", before), ("bout typer", after)):
        f = tally.figures()
        print(f"{tag}: macro-F1 {f['macro_f1']:.3f}, recall " +
              " / ".join(f"{t} {f['per_class'][t]['recall']:.2f}" for t in scoring.CLASSES))


if __name__ == "__main__":
    main()
