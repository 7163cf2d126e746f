#!/usr/bin/env python3
"""Trains the classifier once per held-out fold, and once on every fold, from the evaluation's training clips.

    python3 tools/eval/train_folds.py [--out /tmp/footstep-eval] [--models DIR] [--install]

Needs `footstep_eval.py build` (the training clips of folds 0-3, plain and with randomised
sources; the lockbox has none). Steps:
1. `footstep-dataset --labelled` runs the real pipeline over each fold's training clips
   (both sets) and writes one feature row per detection, labelled from the clip's truth,
   and the event's picture beside it (`--pictures`); the synthetic scenarios (built-in
   synthesizer) are added to every model's training. A fold's randomised clips are
   held out with the fold; only its plain clips are scored out of fold.
2. For each fold K: a model on the other folds and the synthesizer (DIR/fold-K.json):
   the trees and the picture network averaged with them (`--no-picture-network`: the trees alone).
   Its temperature is fitted on the out-of-fold predictions of the *other* folds' models,
   so the fold it is scored on never calibrates it; ECE is reported on fold K.
3. DIR/full.json: every fold and the synthesizer, temperature from all out-of-fold
   predictions.
4. The bout typers (`bout_typer.py`): `footstepctl analyze` runs each fold's training
   clips with that fold's model (steps it did not train on, as in use); fold-K.json
   gets a typer fitted on the other folds' bouts, full.json one fitted on all.
   `--bout-typers-only` redoes this step (and step 5) alone: `make eval` skips it here
   (`--no-bout-typers`) and runs it once the frame network and its decision are
   attached, so that the typers learn from the footsteps the whole pipeline releases
   (fitted on the event model's footsteps alone, they type the released ones worse:
   `git show e9903ae:CHANGELOG.md`, session 54).
5. The synthetic distractor check: full.json over `DistractorRejectionTests`' audio
   (`footstepctl synth --scenario distractors`, its seed and 20 minutes); more false
   footsteps an hour than that test allows and `--install` refuses to copy full.json
   over the model footstepd ships (the suite would fail on it).

Every step is seeded.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import train_classifier as tc  # noqa: E402
import bout_typer  # noqa: E402
import picture_network  # noqa: E402
import sources  # noqa: E402
import transmission  # noqa: E402

FOLDS = list(sources.FOLDS)

# DistractorRejectionTests' scenario and bound (Tests/FootstepClassifierTests): keep the two alike.
DISTRACTOR_SEED = 9_200_001
DISTRACTOR_SECONDS = 1200
DISTRACTOR_BOUND_PER_HOUR = 20


def footsteps_in_csv(text):
    """How many rows of `footstepctl analyze --format csv` output are footsteps."""
    rows = csv.DictReader(io.StringIO(text))
    if rows.fieldnames is None or "kind" not in rows.fieldnames:
        raise ValueError(f"footstepctl analyze printed no CSV header with a kind column: {text[:200]!r}")
    return sum(1 for row in rows if row["kind"] == "footstep")


def distractor_check(footstepctl, model):
    """False footsteps an hour `model` gives on the synthetic distractors (with gait context)."""
    with tempfile.TemporaryDirectory(prefix="footstep-distractors-") as work:
        audio = os.path.join(work, "distractors.wav")  # the Swift test's figures (FLAC's differ by a few)
        subprocess.run([footstepctl, "synth", "--scenario", "distractors", "--seed", str(DISTRACTOR_SEED),
                        "--duration", str(DISTRACTOR_SECONDS), "--output", audio],
                       check=True, stdout=subprocess.DEVNULL)
        result = subprocess.run([footstepctl, "analyze", "--format", "csv", "--model", model, audio],
                                check=True, capture_output=True, text=True)
    return footsteps_in_csv(result.stdout) * 3600 / DISTRACTOR_SECONDS


def keep_frame_network(full):
    """The installed model's frame step network (trained on pictures, not on this model's events) goes into
    full.json when it has none, so that installing it does not drop the network (`frame_network.py folds`
    trains a new one)."""
    with open(full) as f:
        model = json.load(f)
    if "frameNetwork" in model or not os.path.exists(tc.MODEL_PATH):
        return
    with open(tc.MODEL_PATH) as f:
        frame = json.load(f).get("frameNetwork")
    if frame is None:
        return
    model["frameNetwork"] = frame
    with open(full, "w") as f:
        json.dump(model, f, separators=(",", ":"))
    channels = frame["convolutions"][0]["outputs"]
    print(f"{os.path.basename(full)}: kept the installed model's {channels}-channel frame network "
          f"(tools/eval/frame_network.py folds trains new ones)")


def check_and_install(args, full):
    """Step 5: the synthetic distractor check (with the installed frame network kept, `keep_frame_network`);
    installs full.json only if it passes."""
    keep_frame_network(full)
    per_hour = distractor_check(args.footstepctl, full)
    verdict = "within" if per_hour <= DISTRACTOR_BOUND_PER_HOUR else "OVER"
    print(f"synthetic distractors: {per_hour:.0f} false footsteps/h with {os.path.basename(full)} "
          f"({verdict} DistractorRejectionTests' bound of {DISTRACTOR_BOUND_PER_HOUR}/h)")
    if not args.install:
        return
    if per_hour > DISTRACTOR_BOUND_PER_HOUR:
        sys.exit(f"train_folds: not installed: {full} labels {per_hour:.0f} synthetic distractors an hour as "
                 f"footsteps; the suite allows {DISTRACTOR_BOUND_PER_HOUR} (docs/evaluation.md)")
    shutil.copyfile(full, tc.MODEL_PATH)
    print(f"installed {os.path.relpath(tc.MODEL_PATH, tc.ROOT)}")


def dataset(binary, out, work, synthetic_scenarios, jobs, randomised=False, negatives=False):
    """The feature rows (and pictures) of each fold's training clips, keyed by fold; with `randomised` also of
    its source-randomised training clips, keyed "Kr"; with `negatives` also of its training negatives (nobody
    walking: beat music, clocks, machines; `negatives.py`), keyed "Kn"; and of the synthesizer's scenarios."""
    os.makedirs(work, exist_ok=True)
    paths = {}
    splits = [("train", k, str(k)) for k in FOLDS]
    if randomised:
        splits += [("train-randomised", k, f"{k}r") for k in FOLDS]
    if negatives:
        splits += [("train-negatives", k, f"{k}n") for k in FOLDS]
    for split, k, key in splits:
        clips = os.path.join(out, split, str(k), "gt")
        if not os.path.isdir(clips):
            hint = {"train-randomised": " or train without them (--no-randomised)",
                    "train-negatives": " or train without them (--no-negatives)"}.get(split, "")
            sys.exit(f"{clips} missing: build the clips first (python3 tools/eval/footstep_eval.py --out {out} build)"
                     + hint)
        if not os.path.exists(binary):
            sys.exit(f"{binary} missing: swift build -c release --product footstep-dataset")
        path = os.path.join(work, f"fold{key}.csv")
        # Features of clips built since are stale: `footstep_eval.py build --force` rewrites clips_meta.csv.
        meta = os.path.join(out, split, str(k), "clips_meta.csv")
        if stale(path, meta):
            subprocess.run([binary, "--split", "train", "--scenarios", "1", "--duration", "5", "--labelled",
                            clips, "-o", path, "--pictures", pictures_path(path)], check=True)
        paths[key] = path
    synthetic = os.path.join(work, "synthetic.csv")
    if stale(synthetic):
        subprocess.run([binary, "--split", "train", "--scenarios", str(synthetic_scenarios), "--jobs", str(jobs),
                        "-o", synthetic, "--pictures", pictures_path(synthetic)], check=True)
    return paths, synthetic


def pictures_path(csv):
    """Where `footstep-dataset --pictures` puts a dataset's event pictures."""
    return csv[:-len(".csv")] + ".pictures"


def stale(path, source=None):
    """A dataset is rebuilt when it or its pictures are missing, or older than the clips it comes from."""
    if not os.path.exists(path) or not os.path.exists(pictures_path(path)):
        return True
    return source is not None and os.path.getmtime(path) < os.path.getmtime(source)


def training_rows(sources, truth, synthetic, leave_out=None):
    """Which rows of one dataset train: not a near-footstep's; of a labelled run (not synthetic) only its
    clips' (its one placeholder scenario is left out), and with `leave_out` none of that transmission
    model's clips (named `labelled-<model>-…`)."""
    import numpy as np
    keep = truth != "near_footstep"
    if not synthetic:
        keep &= np.char.startswith(sources, "labelled-")
        if leave_out is not None:
            keep &= ~np.char.startswith(sources, f"labelled-{leave_out}-")
    return keep


def load_all(paths, synthetic, leave_out=None):
    """The feature rows of every fold's clips and the synthesizer's, without near-footstep rows; with
    `leave_out` (a transmission model) without the rows of that model's clips, so it is never heard in
    training, calibration or bout typing (the synthesizer's own floors stay)."""
    import numpy as np
    X, y, group, truths, pictures = [], [], [], [], []
    names = None
    for k, path in list(paths.items()) + [("synthetic", synthetic)]:
        n, Xk, yk, sk, truth, _ = tc.load(path)
        keep = training_rows(sk, truth, k == "synthetic", leave_out)
        names = names or n
        assert n == names
        X.append(Xk[keep]); y.append(yk[keep])
        pictures.append(picture_network.load_pictures(pictures_path(path), len(yk))[keep])
        group += [str(k)] * int(keep.sum())  # "K", "Kr"/"Kn" (fold K's randomised clips, negatives) or "synthetic"
        truths.append(truth[keep])
    return names, np.vstack(X), np.concatenate(y), np.array(group), np.concatenate(truths), np.concatenate(pictures)


def fit(X, y, weights, args):
    """The event model on X (rows of EventFeatures) -> (model, mean, scale); the model sees (X - mean) / scale.
    mean and scale are rounded as the model file stores them, so the trees' splits see exactly the values
    FootstepModelClassifier computes."""
    import numpy as np
    mean = np.array([float(f"{v:.7g}") for v in X.mean(axis=0)])
    scale = X.std(axis=0)
    scale[scale < 1e-6] = 1.0
    scale = np.array([float(f"{v:.7g}") for v in scale])
    from sklearn.ensemble import HistGradientBoostingClassifier
    model = HistGradientBoostingClassifier(max_iter=args.trees, learning_rate=args.learning_rate,
                                           max_leaf_nodes=args.leaves, min_samples_leaf=40,
                                           l2_regularization=1.0, early_stopping=False, random_state=args.seed)
    model.fit((X - mean) / scale, y, sample_weight=weights)
    return model, mean, scale


def fit_network(X, y, pictures, weights, mean, scale, args):
    """The picture network (`picture_network.py`) on the same rows and weights as the event model, or None
    (`--no-picture-network`)."""
    if not args.picture_network:
        return None
    return picture_network.fit(pictures, (X - mean) / scale, y != tc.CLASSES.index("other"), weights, seed=args.seed)


def event_logits(model, network, X, pictures, mean, scale):
    """The event model's five logits, fused with the picture network's when there is one."""
    z = tc.logits(model, (X - mean) / scale)
    if network is None:
        return z
    return picture_network.fuse(z, picture_network.forward(network, pictures, (X - mean) / scale))


def class_weights(y, other_weight):
    import numpy as np
    counts = np.bincount(y, minlength=len(tc.CLASSES)).astype(float)
    w = counts.sum() / (len(tc.CLASSES) * np.maximum(counts, 1))
    w[tc.CLASSES.index("other")] *= other_weight
    return w[y]


def add_bout_typers(out, models, footstepctl, leave_out=None):
    """Step 4: fits the bout typers on each fold's out-of-fold detections and writes them into the models
    (with `leave_out`, not on that transmission model's clips)."""
    import json
    import numpy as np
    if not os.path.exists(footstepctl):
        sys.exit(f"{footstepctl} missing: swift build -c release --product footstepctl")
    data = {}
    for k in FOLDS:
        gt = os.path.join(out, "train", str(k), "gt")
        clips = sorted(os.path.join(gt, n) for n in os.listdir(gt)
                       if n.endswith(".wav") and not (leave_out and n.startswith(f"{leave_out}-")))
        result = subprocess.run([footstepctl, "analyze", "--format", "jsonl", "--model",
                                 os.path.join(models, f"fold-{k}.json")] + clips,
                                check=True, capture_output=True, text=True)
        # A study's detections stay beside its models, not over the shipped recipe's.
        path = os.path.join(os.path.join(out, "features") if leave_out is None else models, f"bouts-fold{k}.jsonl")
        with open(path, "w") as f:
            f.write(result.stdout)
        data[k] = bout_typer.labelled(bout_typer.load_jsonl(path), gt)
    for name, folds in [(f"fold-{k}.json", [j for j in FOLDS if j != k]) for k in FOLDS] + [("full.json", FOLDS)]:
        typer = bout_typer.fit(np.vstack([data[j][0] for j in folds]), np.concatenate([data[j][1] for j in folds]))
        path = os.path.join(models, name)
        with open(path) as f:
            model = json.load(f)
        model["boutTyper"] = typer
        with open(path, "w") as f:
            json.dump(model, f, separators=(",", ":"))
    print(f"bout typers written into {models}/fold-*.json and full.json")


def parser():
    """The options, whose defaults are the shipped model's settings (`parser().parse_args([])` gives them)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval", help="the evaluation corpus (footstep_eval.py build)")
    ap.add_argument("--models", default="/tmp/footstep-eval/models")
    ap.add_argument("--dataset-binary", default=os.path.join(tc.ROOT, ".build", "release", "footstep-dataset"))
    ap.add_argument("--synthetic-scenarios", type=int, default=280)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--trees", type=int, default=100, help="boosting rounds (one tree per class each)")
    ap.add_argument("--learning-rate", type=float, default=0.1)
    ap.add_argument("--leaves", type=int, default=15, help="leaves per tree")
    ap.add_argument("--other-weight", type=float, default=4.0,
                    help="extra weight of `other` after class balancing (chosen on the training clips: docs/evaluation.md)")
    ap.add_argument("--picture-network", action=argparse.BooleanOptionalAction, default=True,
                    help="average the event model with a small network over the event's picture (picture_network.py; "
                         "chosen on the training clips: docs/evaluation.md)")
    ap.add_argument("--drum-weight", type=float, default=3.0,
                    help="extra weight of the recorded drum hits, the commonest false footstep "
                         "(chosen on the training clips with --other-weight: docs/evaluation.md)")
    ap.add_argument("--synthetic-weight", type=float, default=0.5, help="weight of the synthesizer's events")
    ap.add_argument("--negatives", action=argparse.BooleanOptionalAction, default=False,
                    help="also train on each fold's training negatives (footstep_eval.py build "
                         "--train-negative-clips N: beat music, clocks, machines, nobody walking)")
    ap.add_argument("--randomised", action=argparse.BooleanOptionalAction, default=True,
                    help="also train on the source-randomised training clips (footstep_eval.py build "
                         "--randomised-train-clips N; chosen on the training clips: docs/evaluation.md)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--footstepctl", default=os.path.join(tc.ROOT, ".build", "release", "footstepctl"))
    ap.add_argument("--leave-out", choices=transmission.MODELS,
                    help="train without the clips of this transmission model (the synthesizer's floors stay), "
                         "to measure how the models do on a floor they never heard (docs/evaluation.md)")
    ap.add_argument("--bout-typers", action=argparse.BooleanOptionalAction, default=True,
                    help="fit the bout typers after training (step 4; make eval fits them later, "
                         "with --bout-typers-only, once the frame decision is attached)")
    ap.add_argument("--bout-typers-only", action="store_true",
                    help="only (re)fit the bout typers into the existing models (step 4)")
    ap.add_argument("--install", action="store_true",
                    help="copy full.json over the shipped model (refused if it fails the synthetic distractor check)")
    return ap


def main():
    tc.ensure_venv()
    import numpy as np
    args = parser().parse_args()
    if args.install and args.leave_out:
        sys.exit("train_folds: --install with --leave-out: a model that never heard a floor is a study, not one to ship")
    if args.bout_typers_only:
        add_bout_typers(args.out, args.models, args.footstepctl, args.leave_out)
        check_and_install(args, os.path.join(args.models, "full.json"))
        return

    paths, synthetic = dataset(args.dataset_binary, args.out, os.path.join(args.out, "features"),
                               args.synthetic_scenarios, args.jobs, args.randomised, args.negatives)
    names, X, y, group, truth, pictures = load_all(paths, synthetic, args.leave_out)
    print(f"{len(y)} events: " + ", ".join(f"{g} {int((group == g).sum())}" for g in sorted(set(group))))
    weights = class_weights(y, args.other_weight) * np.where(group == "synthetic", args.synthetic_weight, 1.0)
    fold = np.char.rstrip(group, "rn")  # a randomised clip or a negative belongs to its sources' fold
    weights *= np.where(np.char.endswith(truth.astype(str), "music_hit"), args.drum_weight, 1.0)
    os.makedirs(args.models, exist_ok=True)

    fold_models = {}
    out_of_fold = {}
    for k in FOLDS:
        train = fold != str(k)
        model, mean, scale = fit(X[train], y[train], weights[train], args)
        network = fit_network(X[train], y[train], pictures[train], weights[train], mean, scale, args)
        fold_models[k] = (model, mean, scale, network)
        test = group == str(k)
        out_of_fold[k] = (event_logits(model, network, X[test], pictures[test], mean, scale), y[test])
        # The exported walk (FootstepModel's) must give sklearn's logits.
        sample = (X[test][:2000] - mean) / scale
        difference = np.abs(tc.tree_logits(tc.export_trees(model), sample) - model.decision_function(sample)).max()
        assert difference < 1e-6, f"exported trees differ from the model by {difference}"
    for k in FOLDS:
        others = [j for j in FOLDS if j != k]
        temperature = tc.fit_temperature(np.vstack([out_of_fold[j][0] for j in others]),
                                         np.concatenate([out_of_fold[j][1] for j in others]))
        z, yk = out_of_fold[k]
        result = tc.evaluate(tc.softmax(z / temperature), yk)
        tc.report(f"fold {k} unseen (temperature {temperature:.2f} from the other folds)", result)
        model, mean, scale, network = fold_models[k]
        tc.write_model(os.path.join(args.models, f"fold-{k}.json"), model, names, mean, scale, temperature,
                       f"{tc.dataset_version()}/eval-folds-without-{k}/seed{args.seed}",
                       {key: v for key, v in result.items() if key != "reliability"}, network)
    all_z = np.vstack([out_of_fold[k][0] for k in FOLDS])
    all_y = np.concatenate([out_of_fold[k][1] for k in FOLDS])
    temperature = tc.fit_temperature(all_z, all_y)
    pooled = tc.evaluate(tc.softmax(all_z / temperature), all_y)
    tc.report("all folds, out-of-fold (unseen families)", pooled)
    model, mean, scale = fit(X, y, weights, args)
    network = fit_network(X, y, pictures, weights, mean, scale, args)
    full = os.path.join(args.models, "full.json")
    tc.write_model(full, model, names, mean, scale, temperature, f"{tc.dataset_version()}/eval-folds-all/seed{args.seed}",
                   {key: v for key, v in pooled.items() if key != "reliability"}, network)
    print(f"wrote {args.models}/fold-*.json and full.json")
    if args.bout_typers:
        add_bout_typers(args.out, args.models, args.footstepctl, args.leave_out)
    check_and_install(args, full)


if __name__ == "__main__":
    main()
