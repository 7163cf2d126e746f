#!/usr/bin/env python3
"""Train footstepd's event classifier and write its model file.

    python3 tools/train_classifier.py            # regenerate data, train, evaluate, write the model

Creates tools/.venv (numpy + scikit-learn pinned in tools/requirements-train.txt)
on first use and re-runs itself there. The datasets come from the
`footstep-dataset` executable (synthetic scenarios through the real detector;
train and validation use disjoint seed ranges). Everything is seeded: the same
repository gives the same model.

The model is a one-hidden-layer MLP (or multinomial logistic regression with
--hidden 0) over standardised features, with temperature scaling fitted on a
held-out part of the training scenarios (split by scenario, not by event).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "tools", ".venv")
CLASSES = ["stomping", "heel_strike", "shuffling", "running", "other"]
FOOTSTEPS = CLASSES[:4]
MODEL_PATH = os.path.join(ROOT, "Sources", "FootstepClassifier", "Resources", "footstep-model.json")


def ensure_venv():
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "-q", "-r",
                               os.path.join(ROOT, "tools", "requirements-train.txt")])
    os.execv(python, [python] + sys.argv)


def generate(split, scenarios, path, jobs, real_dir, labelled_dir=None, scratch=".build-cls"):
    subprocess.check_call(["swift", "build", "-c", "release", "--scratch-path", scratch, "--product",
                           "footstep-dataset"], cwd=ROOT)
    subprocess.check_call([os.path.join(ROOT, scratch, "release", "footstep-dataset"), "--split", split,
                           "--scenarios", str(scenarios), "--jobs", str(jobs), "-o", path]
                          + (["--real", real_dir] if real_dir else [])
                          + (["--labelled", labelled_dir] if labelled_dir else []), cwd=ROOT)


LABELLED_BATCH = 60


def make_labelled(real_dir, labelled_dir, files):
    """Walks and runs built from the real footstep samples of the training side (tools/real_footstep_check.py),
    in batches of LABELLED_BATCH files: batch k uses seed k + 1, names its files with prefix "", "b-", "c-", ...,
    and every second batch varies the samples' speed and tilt (--augment): half the recordings keep the
    samples as recorded."""
    if os.path.isdir(labelled_dir):
        existing = sum(1 for n in os.listdir(labelled_dir) if n.endswith(".wav"))
        if existing == files:
            return
        if existing:
            sys.exit(f"{labelled_dir} holds {existing} recordings, not {files}: delete it to make them again")
    for batch in range((files + LABELLED_BATCH - 1) // LABELLED_BATCH):
        count = min(LABELLED_BATCH, files - batch * LABELLED_BATCH)
        prefix = "" if batch == 0 else chr(ord("a") + batch) + "-"
        subprocess.check_call([sys.executable, os.path.join(ROOT, "tools", "real_footstep_check.py"), "--data", real_dir,
                               "--make-training", labelled_dir, "--prefix", prefix, "--seed", str(batch + 1),
                               "--files", str(count), "--duration", "120"] + (["--augment"] if batch % 2 else []),
                              cwd=ROOT)


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
    import numpy as np
    if hasattr(model, "coefs_"):
        h = Xs
        for i, (W, b) in enumerate(zip(model.coefs_, model.intercepts_)):
            h = h @ W + b
            if i < len(model.coefs_) - 1:
                h = np.maximum(h, 0)
        return h
    return Xs @ model.coef_.T + model.intercept_


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


def main():
    ensure_venv()
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default="/tmp/footstep-classifier-data")
    ap.add_argument("--reuse", action="store_true", help="use existing CSVs in --data-dir")
    ap.add_argument("--train-scenarios", type=int, default=280)
    ap.add_argument("--validation-scenarios", type=int, default=84)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--real-dir", default="/tmp/train-data/wav",
                    help="real negative recordings (tools/training-data/fetch.sh OUTDIR → OUTDIR/wav); '' to skip")
    ap.add_argument("--hidden", type=int, default=64, help="hidden units; 0 = multinomial logistic regression")
    ap.add_argument("--alpha", type=float, default=1e-3, help="L2 penalty of the MLP")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--real-weight", type=float, default=3.0, help="training weight of real negative recordings")
    ap.add_argument("--other-weight", type=float, default=5.0,
                    help="training weight of `other` events (a false footstep costs more than a missed type)")
    ap.add_argument("--labelled-files", type=int, default=120,
                    help="two-minute recordings built from real footstep samples for training (0: none; needs --real-dir)")
    ap.add_argument("--labelled-weight", type=float, default=0.5, help="training weight of those recordings' footsteps")
    ap.add_argument("--output", default=MODEL_PATH)
    ap.add_argument("--scratch-path", default=".build-cls",
                    help="SwiftPM build folder for footstep-dataset (.build shares a release build of footstepctl)")
    args = ap.parse_args()

    os.makedirs(args.data_dir, exist_ok=True)
    real_dir = args.real_dir if args.real_dir and os.path.isdir(args.real_dir) else None
    if args.real_dir and not real_dir:
        print(f"note: {args.real_dir} not found; training without real negatives (run tools/training-data/fetch.sh)")
    train_csv = os.path.join(args.data_dir, "train.csv")
    val_csv = os.path.join(args.data_dir, "validation.csv")
    labelled_dir = None
    if real_dir and args.labelled_files > 0:
        labelled_dir = os.path.join(args.data_dir, "labelled")
        make_labelled(real_dir, labelled_dir, args.labelled_files)
    if not (args.reuse and os.path.exists(train_csv)):
        generate("train", args.train_scenarios, train_csv, args.jobs, real_dir, labelled_dir, args.scratch_path)
    if not (args.reuse and os.path.exists(val_csv)):
        generate("validation", args.validation_scenarios, val_csv, args.jobs, real_dir, scratch=args.scratch_path)

    started = time.time()
    names, X, y, sources, truth, _ = load(train_csv)
    # Detections near a footstep but not matched to it (late or double detections) are
    # neither a clean footstep nor `other`: left out of training and evaluation.
    keep = truth != "near_footstep"
    X, y, sources = X[keep], y[keep], sources[keep]
    real_rows = bool(np.char.startswith(sources, "real-").any())
    vnames, VX, vy, _, vtruth, vsnr = load(val_csv)
    vkeep = vtruth != "near_footstep"
    print(f"left out {int((~keep).sum())} train / {int((~vkeep).sum())} validation detections near a footstep")
    VX, vy, vtruth, vsnr = VX[vkeep], vy[vkeep], vtruth[vkeep], vsnr[vkeep]
    assert names == vnames, "train and validation feature lists differ"

    # Calibration split: every 5th scenario (by name order) is held out for temperature scaling.
    unique = sorted(set(sources))
    held = {s for i, s in enumerate(unique) if i % 5 == 4}
    cal = np.array([s in held for s in sources])

    mean = X[~cal].mean(axis=0)
    scale = X[~cal].std(axis=0)
    scale[scale < 1e-6] = 1.0
    standardise = lambda A: (A - mean) / scale

    if args.hidden > 0:
        model = MLPClassifier(hidden_layer_sizes=(args.hidden,), activation="relu", alpha=args.alpha,
                              max_iter=800, random_state=args.seed, tol=1e-5)
    else:
        model = LogisticRegression(C=1.0, max_iter=3000)
    weights = np.where(y[~cal] == CLASSES.index("other"), args.other_weight, 1.0)
    weights[np.char.startswith(sources[~cal], "real-")] = args.real_weight
    weights[np.char.startswith(sources[~cal], "labelled-") & (y[~cal] != CLASSES.index("other"))] = args.labelled_weight
    model.fit(standardise(X[~cal]), y[~cal], sample_weight=weights)
    temperature = fit_temperature(logits(model, standardise(X[cal])), y[cal])
    train_seconds = time.time() - started

    p_cal = softmax(logits(model, standardise(X[cal])) / temperature)
    p_val = softmax(logits(model, standardise(VX)) / temperature)
    cal_result = evaluate(p_cal, y[cal])
    val_result = evaluate(p_val, vy)
    print(f"trained {type(model).__name__} on {int((~cal).sum())} events in {train_seconds:.1f} s; "
          f"temperature {temperature:.3f} from {int(cal.sum())} held-out events")
    report("calibration split (train scenarios held out)", cal_result)
    report("VALIDATION (disjoint seeds)", val_result)
    # Per distractor type: how often each was called a footstep.
    decisions = decide(p_val)
    for label in sorted(set(vtruth)):
        idx = [i for i in range(len(vy)) if vtruth[i] == label and CLASSES[vy[i]] == "other"]
        if idx:
            rate = sum(1 for i in idx if decisions[i][0] == "footstep") / len(idx)
            print(f"  other/{label}: {len(idx)} events, {100 * rate:.1f} % called footstep")
    low = vsnr < 8
    if low.any():
        print(f"  validation at SNR < 8 dB: macro-F1 {evaluate(p_val[low], vy[low])['macroF1']:.3f} ({int(low.sum())} events)")

    if args.hidden > 0:
        layers = [{"weights": W.T.tolist(), "biases": b.tolist(), "activation": "relu" if i < len(model.coefs_) - 1 else "linear"}
                  for i, (W, b) in enumerate(zip(model.coefs_, model.intercepts_))]
    else:
        layers = [{"weights": model.coef_.tolist(), "biases": model.intercept_.tolist(), "activation": "linear"}]
    feature_version = int(subprocess.check_output(
        ["grep", "-oP", r"static let version = \K[0-9]+",
         os.path.join(ROOT, "Sources", "FootstepClassifier", "EventFeatures.swift")]).decode().strip())
    dataset_version = subprocess.check_output(
        ["grep", "-oP", r'static let version = "\K[^"]+', os.path.join(ROOT, "Sources", "footstep-dataset", "DatasetPlan.swift")]
    ).decode().strip()
    document = {
        "format": "footstepd-event-classifier",
        "formatVersion": 1,
        "featureVersion": feature_version,
        "trainingDataVersion": f"{dataset_version}/train{args.train_scenarios}/seed{args.seed}"
                               + (f"/real{int(np.char.startswith(sources, 'real-').sum())}" if real_rows else "")
                               + (f"/labelled{int(np.char.startswith(sources, 'labelled-').sum())}"
                                  if np.char.startswith(sources, "labelled-").any() else ""),
        "classes": CLASSES,
        "features": names,
        "means": mean.tolist(),
        "scales": scale.tolist(),
        "layers": layers,
        "temperature": temperature,
        "validation": {k: v for k, v in val_result.items() if k != "reliability"},
    }
    def rounded(o):
        if isinstance(o, float):
            return float(f"{o:.7g}")
        if isinstance(o, list):
            return [rounded(v) for v in o]
        if isinstance(o, dict):
            return {k: rounded(v) for k, v in o.items()}
        return o
    with open(args.output, "w") as f:
        json.dump(rounded(document), f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {os.path.relpath(args.output, ROOT)} ({os.path.getsize(args.output)} bytes)")


if __name__ == "__main__":
    main()
