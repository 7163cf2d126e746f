#!/usr/bin/env python3
"""Train footstepd's event classifier and install its model file.

    python3 tools/train_classifier.py            # = tools/eval/train_folds.py --install

Creates tools/.venv (numpy, scikit-learn and PyTorch pinned in
tools/requirements-train.txt) on first use and re-runs itself there. The training data are the evaluation's
training clips (real recordings of folds 0-3, tools/eval/footstep_eval.py build;
never the lockbox) and the built-in synthesizer's scenarios, both through the
real detector (`footstep-dataset`). The model is gradient-boosted trees
(scikit-learn's HistGradientBoostingClassifier over standardised features), optionally averaged with a
small convolutional network over the event's picture (`--picture-network`,
tools/eval/picture_network.py), with temperature scaling fitted on
out-of-fold predictions. Everything is seeded: the same repository
gives the same model.

This file also holds the helpers tools/eval/train_folds.py uses (loading a
dataset, the model's forward pass, calibration, validation figures, writing
the model file).
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "tools", ".venv")
CLASSES = ["stomping", "heel_strike", "shuffling", "running", "other"]
FOOTSTEPS = CLASSES[:4]
MODEL_PATH = os.path.join(ROOT, "Sources", "FootstepClassifier", "Resources", "footstep-model.json")


def ensure_venv():
    """Re-runs the script in tools/.venv, creating it, or installing the requirements again when
    requirements-train.txt changed since (a copy of it is kept in the venv)."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    requirements = os.path.join(ROOT, "tools", "requirements-train.txt")
    installed = os.path.join(VENV, "requirements-train.txt")
    with open(requirements) as f:
        wanted = f.read()
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    current = None
    if os.path.exists(installed):
        with open(installed) as f:
            current = f.read()
    if current != wanted:
        subprocess.check_call([python, "-m", "pip", "install", "-q", "-r", requirements])
        with open(installed, "w") as f:
            f.write(wanted)
    os.execv(python, [python] + sys.argv)


def load(path):
    import numpy as np
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [line.rstrip("\n").split(",") for line in f if line.strip()]
    first = header.index("strength_log") - 0  # sanity: features exist
    start = header.index("floor") + 1
    names = header[start:]
    X = np.array([[float(v) for v in r[start:]] for r in rows], dtype=np.float64)
    y = np.array([CLASSES.index(r[header.index("label")]) for r in rows])
    sources = np.array([r[header.index("source")] for r in rows])
    truth = np.array([r[header.index("truth_label")] for r in rows])
    snr = np.array([float(r[header.index("snr_db")]) for r in rows])
    del first
    return names, X, y, sources, truth, snr


def logits(model, Xs):
    """The trees' five logits for the standardised rows `Xs`."""
    return model.decision_function(Xs)


def softmax(z):
    import numpy as np
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_temperature(z, y):
    import numpy as np
    best = (1.0, float("inf"))
    for t in np.exp(np.linspace(np.log(0.3), np.log(5), 200)):
        p = softmax(z / t)
        nll = -np.mean(np.log(p[np.arange(len(y)), y] + 1e-12))
        if nll < best[1]:
            best = (float(t), nll)
    return best[0]


def decide(p):
    """The Swift decision rule: returns (kind, type) per row."""
    import numpy as np
    out = []
    for row in p:
        k = int(np.argmax(row))
        if CLASSES[k] == "other":
            out.append(("other", "unknown"))
        elif row[k] < 0.5:
            out.append(("footstep" if row[:4].sum() >= row[4] else "other", "unknown"))
        else:
            out.append(("footstep", CLASSES[k]))
    return out


def evaluate(p, y):
    import numpy as np
    decisions = decide(p)
    pred_type = [t for _, t in decisions]
    per_class = {}
    for c in FOOTSTEPS:
        tp = sum(1 for i in range(len(y)) if CLASSES[y[i]] == c and pred_type[i] == c)
        fp = sum(1 for i in range(len(y)) if CLASSES[y[i]] != c and pred_type[i] == c)
        fn = sum(1 for i in range(len(y)) if CLASSES[y[i]] == c and pred_type[i] != c)
        prec = tp / (tp + fp) if tp + fp else 1.0
        rec = tp / (tp + fn) if tp + fn else 1.0
        per_class[c] = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    others = [i for i in range(len(y)) if CLASSES[y[i]] == "other"]
    other_as_footstep = sum(1 for i in others if decisions[i][0] == "footstep") / max(1, len(others))
    footsteps = [i for i in range(len(y)) if CLASSES[y[i]] != "other"]
    footstep_as_other = sum(1 for i in footsteps if decisions[i][0] == "other") / max(1, len(footsteps))
    unknown = sum(1 for i in footsteps if decisions[i] == ("footstep", "unknown")) / max(1, len(footsteps))
    conf = p.max(axis=1)
    correct = p.argmax(axis=1) == y
    table = []
    edges = [0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0001]
    lo = 0.0
    for hi in edges:
        m = (conf >= lo) & (conf < hi)
        if m.sum():
            table.append({"from": lo, "to": min(hi, 1.0), "count": int(m.sum()),
                          "meanConfidence": float(conf[m].mean()), "accuracy": float(correct[m].mean())})
        lo = hi
    ece = sum(r["count"] * abs(r["meanConfidence"] - r["accuracy"]) for r in table) / len(y)
    return {
        "macroF1": float(np.mean(list(per_class.values()))), "f1": per_class,
        "otherAsFootstepRate": other_as_footstep, "footstepAsOtherRate": footstep_as_other,
        "footstepUnknownRate": unknown, "accuracy": float(correct.mean()), "events": int(len(y)),
        "otherEvents": len(others), "expectedCalibrationError": float(ece), "reliability": table,
    }


def report(title, result):
    print(f"== {title}: {result['events']} events ({result['otherEvents']} other)")
    print(f"macro-F1 (4 types) {result['macroF1']:.3f}  " +
          "  ".join(f"{c} {result['f1'][c]:.3f}" for c in FOOTSTEPS))
    print(f"other->footstep {100 * result['otherAsFootstepRate']:.1f} %  footstep->other "
          f"{100 * result['footstepAsOtherRate']:.1f} %  footstep->unknown {100 * result['footstepUnknownRate']:.1f} %  "
          f"5-class accuracy {result['accuracy']:.3f}  ECE {result['expectedCalibrationError']:.3f}")
    print("| confidence | events | mean confidence | accuracy |\n| --- | --- | --- | --- |")
    for r in result["reliability"]:
        print(f"| {r['from']:.2f}–{r['to']:.2f} | {r['count']} | {r['meanConfidence']:.3f} | {r['accuracy']:.3f} |")


def dataset_version():
    return subprocess.check_output(
        ["grep", "-oP", r'static let version = "\K[^"]+', os.path.join(ROOT, "Sources", "footstep-dataset", "DatasetPlan.swift")]
    ).decode().strip()


def export_trees(model):
    """A HistGradientBoostingClassifier as FootstepModel's `trees` (TreeEnsemble): per tree its class
    and its nodes; a leaf has feature -1. Checked against the model's own decision_function by tree_logits."""
    import numpy as np
    baseline = np.asarray(model._baseline_prediction, dtype=float).reshape(-1)
    trees = []
    for iteration in model._predictors:
        for output, predictor in enumerate(iteration):
            nodes = predictor.nodes
            leaf = nodes["is_leaf"].astype(bool)
            trees.append({
                "output": output,
                "feature": np.where(leaf, -1, nodes["feature_idx"]).astype(int).tolist(),
                "threshold": np.where(leaf, 0.0, nodes["num_threshold"]).astype(float).tolist(),
                "left": np.where(leaf, 0, nodes["left"]).astype(int).tolist(),
                "right": np.where(leaf, 0, nodes["right"]).astype(int).tolist(),
                "missingLeft": [bool(v) for v in nodes["missing_go_to_left"]],
                "value": np.where(leaf, nodes["value"], 0.0).astype(float).tolist(),
            })
    return {"baseline": baseline.tolist(), "trees": trees}


def tree_logits(ensemble, X):
    """FootstepModel's tree walk in numpy (the Swift FlatTreeEnsemble), for checking an export."""
    import numpy as np
    z = np.tile(np.array(ensemble["baseline"]), (len(X), 1))
    for tree in ensemble["trees"]:
        feature, threshold = np.array(tree["feature"]), np.array(tree["threshold"])
        left, right, missing = np.array(tree["left"]), np.array(tree["right"]), np.array(tree["missingLeft"])
        node = np.zeros(len(X), dtype=int)
        while True:
            inner = feature[node] >= 0
            if not inner.any():
                break
            rows = np.nonzero(inner)[0]
            n = node[rows]
            x = X[rows, feature[n]]
            go_left = np.where(np.isnan(x), missing[n], x <= threshold[n])
            node[rows] = np.where(go_left, left[n], right[n])
        z[:, tree["output"]] += np.array(tree["value"])[node]
    return z


def write_model(path, model, names, mean, scale, temperature, training, validation, network=None):
    """Writes the model file FootstepModel reads (an sklearn HistGradientBoostingClassifier, and the picture
    network's section when there is one)."""
    trees = export_trees(model)
    feature_version = int(subprocess.check_output(
        ["grep", "-oP", r"static let version = \K[0-9]+",
         os.path.join(ROOT, "Sources", "FootstepClassifier", "EventFeatures.swift")]).decode().strip())
    document = {
        "format": "footstepd-event-classifier",
        "formatVersion": 1,
        "featureVersion": feature_version,
        "trainingDataVersion": training,
        "classes": CLASSES,
        "features": names,
        "means": mean.tolist(),
        "scales": scale.tolist(),
        "trees": trees,
        **({"network": network} if network else {}),
        "temperature": temperature,
        "validation": validation,
    }

    def rounded(o, key=None):
        if isinstance(o, float):
            # A split threshold keeps every digit: rounded, a value on it could go the other way.
            return o if key == "threshold" else float(f"{o:.7g}")
        if isinstance(o, list):
            return [rounded(v, key) for v in o]
        if isinstance(o, dict):
            return {k: rounded(v, k) for k, v in o.items()}
        return o
    with open(path, "w") as f:
        json.dump(rounded(document), f, separators=(",", ":"))
        f.write("\n")


def main():
    sys.path.insert(0, os.path.join(ROOT, "tools", "eval"))
    import train_folds
    if "--install" not in sys.argv:
        sys.argv.append("--install")
    train_folds.main()


if __name__ == "__main__":
    main()
