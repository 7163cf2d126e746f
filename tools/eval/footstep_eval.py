#!/usr/bin/env python3
"""footstepd's evaluation on recordings it did not train on (`make eval`).

    python3 tools/eval/footstep_eval.py build [--jobs N] # the clips (needs tools/training-data/fetch.sh output;
                                                         # N folds at once, one process each: the same clips)
    python3 tools/eval/footstep_eval.py score [--models DIR] [--lockbox]

`build` writes, under --out (default /tmp/footstep-eval):
  eval/<fold>/gt/*.wav|csv + clips_meta.csv    clips scored (folds 0-3; lockbox/ only with --lockbox)
  train/<fold>/gt/*.wav|csv + clips_meta.csv   recordings the training may use (folds 0-3 only; never the lockbox)
  distractors/<fold>/gt/*.wav|csv + clips_meta.csv   clips without footsteps (folds 0-3 and the lockbox): more
                                               distractor-only audio for the false footsteps an hour
  negatives/<fold>/gt/*.wav|csv + clips_meta.csv     negatives that sound like footsteps (folds 0-3 and the
                                               lockbox; negatives.py: beat music, clocks, machines, ...), one
                                               family a clip, scored as false footsteps an hour per family
  train-negatives/<fold>/...                   the same families from other seeds, for training (folds 0-3)
Evaluation and training clips of a fold come from the same families with different seeds.

`score` runs `footstepctl analyze --output` on each fold's clips with the model trained
without that fold (DIR/fold-K.json; without --models, the shipped model, which trained on every fold, once) and
prints, side by side, the figures on unseen families (fold K with model K) and on seen
ones (the other folds with model K): detection P/R/F1 (±100 ms, one to one), false
footsteps per hour of distractor-only audio (the evaluation clips', distractors/<fold>'s and negatives/<fold>'s,
pooled; P/R/F1 over the evaluation clips alone), per-type recall and macro-F1, per
transmission model and microphone chain, and the false footsteps an hour of each negative family (with the
distractor clips as one more family), overall and per transmission model. `--lockbox` scores the lockbox with DIR/full.json
(or the shipped model): do that once, at the end.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoring  # noqa: E402
import sources  # noqa: E402

FOLDS = list(sources.FOLDS)


def load_inputs(data_dir, out):
    """The recordings of fetch.sh's wav directory by fold (`sources.load`) and the backgrounds made of them (with
    espeak-ng's voices, cached under out/cache)."""
    import backgrounds
    data = sources.load(data_dir)
    voices = backgrounds.espeak_voices(os.path.join(out, "cache"))
    return data, backgrounds.Backgrounds(data["background"]["speech"], data["background"]["music"], voices)


def build(args):
    data, bg = load_inputs(args.data, args.out)
    counts = dict(eval=args.eval_clips, train=args.train_clips, randomised=args.randomised_train_clips,
                  distractors=args.distractor_clips, negatives=args.negative_clips,
                  train_negatives=args.train_negative_clips)
    jobs = build_plan(args.out, counts, seconds=args.seconds, seed=args.seed, force=args.force,
                      wide_paths=args.wide_paths, only=args.only)
    run_builds(jobs, data, bg, processes=args.jobs)


def build_plan(out_dir, counts, seconds=45, seed=0, force=False, wide_paths=False, only=None):
    """The folds `build` writes, in order: a dict of `corpus.build`'s arguments for each (split, fold) that holds
    fewer clips than `counts` asks (keys `eval`, `train`, `randomised`, `distractors`, and `negatives` and
    `train_negatives`, whose jobs say `negatives: True` and go to `negatives.build`); each fold's clips are
    deterministic in (seed, index), so a fold built with fewer clips is extended, not rebuilt (a negatives fold is
    rebuilt whole, to the same clips). With `only`, a list of split names, the other splits are left alone."""
    plan = [("eval", k, counts["eval"]) for k in FOLDS]
    plan += [("train", k, counts["train"]) for k in FOLDS]
    plan += [("eval", sources.LOCKBOX_FOLD, counts["eval"])]
    plan += [("train-randomised", k, counts["randomised"]) for k in FOLDS]
    plan += [("distractors", k, counts["distractors"]) for k in FOLDS + [sources.LOCKBOX_FOLD]]
    plan += [("negatives", k, counts.get("negatives", 0)) for k in FOLDS + [sources.LOCKBOX_FOLD]]
    plan += [("train-negatives", k, counts.get("train_negatives", 0)) for k in FOLDS]
    jobs = []
    for split, fold, clips in plan:
        if only and split not in only:
            continue
        out = os.path.join(out_dir, split, str(fold))
        if split.endswith("negatives"):
            if clips and (force or built_clips(out) < clips):
                jobs.append(dict(out_dir=out, fold=fold, seed=fold_seed(split, fold, seed), clips=clips,
                                 seconds=seconds, first=0, negatives=True))
            continue
        existing = 0 if force else built_clips(out)
        if existing >= clips:
            continue
        jobs.append(dict(out_dir=out, fold=fold, seed=fold_seed(split, fold, seed), clips=clips, seconds=seconds,
                         first=existing, randomised=split == "train-randomised",
                         distractor_only_share=1.0 if split == "distractors" else 0.15,
                         wide_paths=wide_paths and split == "train-randomised"))
    return jobs


# The recordings and backgrounds of a `run_builds` call, for the processes it forks (read only).
_BUILD_INPUTS = None


def _build_one(job):
    import corpus
    data, bg = _BUILD_INPUTS
    started = time.time()
    if job.get("negatives"):
        import backgrounds
        import negatives
        quiet = backgrounds.Backgrounds([], [], [], families=negatives.QUIET)
        rows = negatives.build(job["out_dir"], negatives.fold_sources(data[job["fold"]], bg, quiet), job["seed"],
                               job["clips"], job["seconds"])
        return job, rows, time.time() - started
    options = {k: v for k, v in job.items() if k not in ("out_dir", "fold")}
    rows = corpus.build(job["out_dir"], data[job["fold"]], bg, **options)
    return job, rows, time.time() - started


def run_builds(jobs, data, bg, processes=1):
    """Runs `build_plan`'s jobs, `processes` at a time (forked: each fold is one process's work, and the same
    clips come out however many run), printing each fold as it is written."""
    global _BUILD_INPUTS
    _BUILD_INPUTS = (data, bg)
    started = time.time()

    def report(job, rows, seconds):
        steps = sum(int(r["steps"]) for r in rows)
        name = os.path.relpath(job["out_dir"], os.path.dirname(os.path.dirname(job["out_dir"])))
        print(f"{name}: {len(rows)} clips ({len(rows) - job['first']} new), {steps} steps "
              f"({seconds:.0f} s; {time.time() - started:.0f} s in all)", flush=True)

    try:
        if processes <= 1 or len(jobs) <= 1:
            for job in jobs:
                report(*_build_one(job))
            return
        import concurrent.futures
        import multiprocessing
        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
            for done in concurrent.futures.as_completed([pool.submit(_build_one, job) for job in jobs]):
                report(*done.result())
    finally:
        _BUILD_INPUTS = None


def fold_seed(split, fold, seed=0):
    """The seed `build` gives `corpus.build` for a split's fold (`seed`: build's --seed)."""
    if fold == sources.LOCKBOX_FOLD:
        return {"eval": 999, "distractors": 499, "negatives": 599}[split] + 1000 * seed
    base = {"eval": 100, "train": 200, "train-randomised": 300, "distractors": 400, "negatives": 500,
            "train-negatives": 600}[split]
    return base + FOLDS.index(fold) + 1000 * seed


def built_clips(out):
    """How many clips out/clips_meta.csv lists (0 if the fold is not built)."""
    path = os.path.join(out, "clips_meta.csv")
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return max(0, sum(1 for _ in f) - 1)


def clip_names(gt_dir, limit=None):
    """The clips of gt_dir; with `limit`, that many spread evenly over them (every transmission model and mic chain)."""
    names = sorted(n[:-4] for n in os.listdir(gt_dir) if n.endswith(".csv"))
    if not limit or limit >= len(names):
        return names
    return [names[int(i * len(names) / limit)] for i in range(limit)]


SLICE = os.path.join(HERE, "fixtures", "slice")


def make_slice(args):
    """The small fixed slice `make test` scores (tools/eval/test_slice.py): OpenClonk's steps and
    distractors (CC-BY-3.0 / CC0) over synthetic backgrounds only, as FLAC."""
    import backgrounds
    import corpus
    data = sources.load(args.data)
    openclonk = {key: [s for s in data[1][key] if s.family == "openclonk-data"] for key in ("steps", "distractors")}
    bg = backgrounds.Backgrounds([], [], [], families=backgrounds.SYNTHETIC)
    rows = corpus.build(args.slice_dir, openclonk, bg, seed=20261124, clips=8, seconds=20,
                        distractor_only_share=0.25, audio_format="flac")
    print(f"{args.slice_dir}: {len(rows)} clips, {sum(r['steps'] for r in rows)} steps, "
          f"{sum(r['distractor_only'] for r in rows)} without steps")


def analyze(footstepctl, model, gt_dir, pred_dir, extra=(), limit=None):
    os.makedirs(pred_dir, exist_ok=True)
    wavs = [scoring.clip_audio(gt_dir, n) for n in clip_names(gt_dir, limit)]
    command = [footstepctl, "analyze", "--quiet", "--output", pred_dir] + (["--model", model] if model else [])
    command += list(extra) + wavs
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def figures_line(name, f):
    fa = f["false_per_hour"]
    cls = f["per_class"]
    macro = f["macro_f1"]
    return (f"| {name} | {f['tp'] + f['fn']} | {f['precision']:.3f} / {f['recall']:.3f} / **{f['f1']:.3f}** | "
            f"{'-' if fa is None else f'{fa:.0f}'} | {'-' if macro is None else f'{macro:.3f}'} | "
            + " / ".join(f"{cls[k]['recall']:.2f}" for k in scoring.CLASSES) + " |")


HEADER = ("| set | steps | detection P / R / F1 | false footsteps / h (distractor-only) | macro-F1 | "
          "recall heel / run / stomp / shuffle |\n| --- | --- | --- | --- | --- | --- |")


def negatives_table(label, per_hour, hours):
    """False footsteps an hour per negative family, overall and in each building (`score`'s `negatives`)."""
    import transmission
    families = sorted(k for k in per_hour if "/" not in k)
    lines = [f"\nfalse footsteps an hour by negative family ({label}; negatives.py, the distractor clips as "
             "`distractors`):",
             "| family | hours | false footsteps / h | " + " | ".join(transmission.MODELS) + " |",
             "| --- | --- | --- |" + " --- |" * len(transmission.MODELS)]
    for f in families:
        cells = [per_hour.get(f"{f}/{m}") for m in transmission.MODELS]
        lines.append(f"| {f} | {hours[f]:.2f} | **{per_hour[f]:.0f}** | "
                     + " | ".join("-" if c is None else f"{c:.0f}" for c in cells) + " |")
    return "\n".join(lines)


def reliability_table(label, r):
    """The confidence the pipeline gives its labels against how often they are right (`scoring.Reliability`)."""
    if not r["events"]:
        return f"\ncalibration ({label}): no labelled events"
    lines = [f"\ncalibration ({label}, every label but `unknown`): ECE {r['ece']:.3f} over {r['events']} events",
             "| confidence | events | mean confidence | accuracy |", "| --- | --- | --- | --- |"]
    lines += [f"| {b['low']:.2f}–{b['high']:.2f} | {b['events']} | {b['confidence']:.3f} | {b['accuracy']:.3f} |"
              for b in r["bins"]]
    return "\n".join(lines)


def score(args):
    footstepctl = args.footstepctl
    if not os.path.exists(footstepctl):
        sys.exit(f"{footstepctl} not found: build it (swift build -c release --product footstepctl)")
    work = args.predictions or tempfile.mkdtemp(prefix="footstep-eval-pred-")
    extra = (["--no-gait-context"] if args.no_gait_context else []) + args.analyze_option
    unseen, seen = scoring.Tally(), scoring.Tally()
    reliability = scoring.Reliability()
    by = {key: {"unseen": {}, "seen": {}} for key in ("scenario", "mic")}
    # False footsteps of each negative family ("distractors": the distractor clips), and of each family in each
    # building ("family/scenario").
    negatives = {"unseen": {}, "seen": {}}
    per_fold = []
    folds = [sources.LOCKBOX_FOLD] if args.lockbox else FOLDS
    if args.lockbox and args.split != "eval":
        sys.exit("the lockbox has evaluation clips only")
    for model_fold in folds:
        model = None
        if args.models:
            model = os.path.join(args.models, "full.json" if args.lockbox else f"fold-{model_fold}.json")
            if not os.path.exists(model):
                sys.exit(f"{model} missing: train the fold models first (tools/eval/train_folds.py --models {args.models})")
        # Without --models every fold is scored once with the shipped model, which trained on all four.
        for data_fold in folds if args.lockbox else (FOLDS if args.models else [model_fold]):
            gt = os.path.join(args.out, args.split, str(data_fold), "gt")
            if not os.path.isdir(gt):
                sys.exit(f"{gt} missing: run `footstep_eval.py build` first")
            pred = os.path.join(work, f"model-{model_fold}", str(data_fold))
            analyze(footstepctl, model, gt, pred, extra, args.limit)
            clips = clip_names(gt, args.limit)
            side = "unseen" if data_fold == model_fold else "seen"
            pair = scoring.Tally()  # this model on this fold's clips
            for key in by:
                total, groups = scoring.score_directory(pred, gt, group_by=key, clips=clips)
                for value, tally in groups.items():
                    by[key][side].setdefault(value, scoring.Tally()).merge(tally)
            pair.merge(total)
            for split in ("distractors", "negatives") if args.split == "eval" else ():
                # Audio without footsteps (the distractor clips; negatives.py's families): it counts towards the
                # false footsteps an hour only, and per negative family (the distractor clips as one).
                quiet = os.path.join(args.out, split, str(data_fold), "gt")
                if not os.path.isdir(quiet):
                    continue
                quiet_pred = os.path.join(work, f"model-{model_fold}", f"{split}-{data_fold}")
                analyze(footstepctl, model, quiet, quiet_pred, extra, args.limit)
                quiet_clips = clip_names(quiet, args.limit)
                for key in by:
                    total, groups = scoring.score_directory(quiet_pred, quiet, group_by=key, clips=quiet_clips,
                                                            false_footsteps_only=True)
                    for value, tally in groups.items():
                        by[key][side].setdefault(value, scoring.Tally()).merge(tally)
                pair.merge(total)
                families = ("family", ("family", "scenario")) if split == "negatives" else ("scenario",)
                for group_by in families:
                    _, groups = scoring.score_directory(quiet_pred, quiet, group_by=group_by, clips=quiet_clips,
                                                        false_footsteps_only=True)
                    prefix = "" if split == "negatives" else "distractors/"
                    for value, tally in groups.items():
                        negatives[side].setdefault(prefix + value, scoring.Tally()).merge(tally)
                if split == "distractors":
                    negatives[side].setdefault("distractors", scoring.Tally()).merge(total)
            (unseen if side == "unseen" else seen).merge(pair)
            if side == "unseen":
                per_fold.append((data_fold, pair.figures()))
                for name in clips:
                    reliability.add_clip(scoring.read_truth(os.path.join(gt, name + ".csv")),
                                         scoring.read_rows(os.path.join(pred, name + ".csv")))
    result = {"unseen": unseen.figures(), "seen": seen.figures() if seen.c["clips"] else None,
              "per_fold": {str(k): v for k, v in per_fold}, "reliability": reliability.figures(),
              "by": {key: {side: {v: t.figures() for v, t in d.items()} for side, d in sides.items()} for key, sides in by.items()},
              "negatives": {side: {v: t.figures()["false_per_hour"] for v, t in d.items()} for side, d in negatives.items()},
              "negative_hours": {side: {v: t.figures()["distractor_only_hours"] for v, t in d.items()}
                                 for side, d in negatives.items()}}
    label = "lockbox" if args.lockbox else ("unseen families" if args.models else "shipped model, folds 0-3")
    print(f"false footsteps an hour over {result['unseen']['distractor_only_hours']:.2f} h of distractor-only audio "
          f"({label})" + (f", {result['seen']['distractor_only_hours']:.2f} h (seen families)" if result["seen"] else ""))
    print(HEADER)
    print(figures_line(label, result["unseen"]))
    if result["seen"]:
        print(figures_line("seen families", result["seen"]))
        print(f"\nseen − unseen F1: {result['seen']['f1'] - result['unseen']['f1']:+.3f}")
    if not args.lockbox:
        for k, f in per_fold:
            print(figures_line(f"fold {k}", f))
    for key in by:
        print(f"\nby {key} ({label}):\n" + HEADER)
        for value, f in sorted(result["by"][key]["unseen"].items()):
            print(figures_line(value, f))
    if result["negatives"]["unseen"]:
        print(negatives_table(label, result["negatives"]["unseen"], result["negative_hours"]["unseen"]))
    print("\nconfusion (" + label + ", rows = truth):")
    for k in scoring.CLASSES:
        print(f"  {k:12s} {result['unseen']['confusion'].get(k, {})}")
    print(reliability_table(label, result["reliability"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    print(f"\npredictions in {work}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval", help="corpus directory")
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the evaluation and training clips")
    b.add_argument("--data", default="/tmp/train-data/wav", help="fetch.sh's wav directory")
    b.add_argument("--eval-clips", type=int, default=32, help="clips per fold (and in the lockbox)")
    b.add_argument("--train-clips", type=int, default=360, help="training recordings per fold")
    b.add_argument("--randomised-train-clips", type=int, default=360,
                   help="further training recordings per fold whose sources are randomised (corpus.randomise_source)")
    b.add_argument("--distractor-clips", type=int, default=80,
                   help="clips without footsteps per fold and in the lockbox (distractors/<fold>), beside the "
                        "evaluation clips' own, for the false footsteps an hour")
    b.add_argument("--negative-clips", type=int, default=96,
                   help="negatives that sound like footsteps per fold and in the lockbox (negatives/<fold>: every "
                        "family through every building, twice)")
    b.add_argument("--train-negative-clips", type=int, default=96,
                   help="the same families from other seeds per fold, for training (train-negatives/<fold>)")
    b.add_argument("--only", action="append", choices=["eval", "train", "train-randomised", "distractors", "negatives",
                                                       "train-negatives"],
                   help="build only this split (repeatable; default: all)")
    b.add_argument("--wide-paths", action="store_true",
                   help="draw the randomised training recordings' floors and rooms from transmission.widen's wider "
                        "ranges (the building changes, nothing else; not the shipped recipe: docs/evaluation.md)")
    b.add_argument("--seconds", type=float, default=45)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--force", action="store_true", help="rebuild folds that exist (without it a fold with fewer clips is extended)")
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="folds built at once, one process each (the clips are the same however many; default: the cores)")
    sl = sub.add_parser("slice", help="write the small fixed slice make test scores (tools/eval/fixtures/slice)")
    sl.add_argument("--data", default="/tmp/train-data/wav", help="fetch.sh's wav directory")
    sl.add_argument("--slice-dir", default=SLICE)
    s = sub.add_parser("score", help="run footstepctl analyze on the clips and score it")
    s.add_argument("--footstepctl", default=os.path.join(sources.ROOT, ".build", "release", "footstepctl"))
    s.add_argument("--models", help="directory with fold-K.json (and full.json) from tools/train_classifier.py --folds")
    s.add_argument("--lockbox", action="store_true", help="score the lockbox once with the final model")
    s.add_argument("--no-gait-context", action="store_true")
    s.add_argument("--split", choices=["eval", "train", "train-negatives"], default="eval",
                   help="train: score the training clips instead (for choosing settings without looking at eval clips); "
                        "train-negatives: the training negatives (for a decision that trains on them)")
    s.add_argument("--limit", type=int, help="score only the first N clips of each fold")
    s.add_argument("--analyze-option", action="append", default=[],
                   help="extra option for footstepctl analyze (repeatable), e.g. --analyze-option=--threshold=1.2")
    s.add_argument("--predictions", help="where analyze writes (default: a new temporary directory)")
    s.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    {"build": build, "score": score, "slice": make_slice}[args.command](args)


if __name__ == "__main__":
    main()
