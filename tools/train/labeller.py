#!/usr/bin/env python3
"""The one labelling network (issue 70): trained per fold, scored out of fold with its post-processor.

    tools/.venv/bin/python tools/train/labeller.py pictures [--out EVAL] [--work W]
    tools/.venv/bin/python tools/train/labeller.py train --fold K [--channels 32] [--batches 4000] [--work W]
    tools/.venv/bin/python tools/train/labeller.py score [--fold K ...] [--work W] [--json FILE]

One causal dilated convolutional network over the pipeline's own frame picture (`FramePicture`, written by
`footstep-dataset --frame-pictures`: 56 log bands every 10 ms) gives, for every frame, six logits:

- a footstep began (within ±20 ms of a step's onset);
- another impact began (a truth row `other:…`: a door, a knock, a drum hit, a clock's tick …);
- the four type scores (heel_strike, running, stomping, shuffling), learned at the frames of steps only.

It hears `receptive_frames(dilations)` frames of history (5.1 s with the default dilations: a gait or a beat) and
`LOOKAHEAD` frames after the frame it judges. It trains on the other folds' training clips, their randomised
sources and their negatives (`negatives.py`: beat music, clocks, machines …), never on the held-out fold's
families.

The post-processor (`Settings`): peaks of the footstep probability at least `threshold`, at least `min_gap` s
apart; the type of a step is the vote (mean) of the type scores of the steps of its bout (steps no more than
`bout_gap` s apart), or its own when `bout_vote` is off; a step whose probability is below `unknown_below` is
`unknown`. `score` chooses the threshold on the held-out fold's training clips (which its network never heard),
then scores the evaluation clips, the distractor clips and the negatives of that fold as `footstep_eval.py
score` does: detection P/R/F1, false footsteps an hour (pooled and per negative family), type recall, macro-F1.
"""
import argparse
import dataclasses
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.join(os.path.dirname(HERE), "eval")
sys.path.insert(0, EVAL)

import footstep_eval  # noqa: E402
import frame_data  # noqa: E402
import frame_network  # noqa: E402
import scoring  # noqa: E402
import sources  # noqa: E402

TYPES = scoring.CLASSES  # heel_strike, running, stomping, shuffling
DILATIONS = (1, 2, 4, 8, 16, 32, 64, 128)
LOOKAHEAD = 30  # frames (0.3 s): the frame network's, within the live-latency aim
FOLDS = list(range(4))
TRAINING_SPLITS = ("train", "train-randomised", "train-negatives")
SCORED_SPLITS = ("eval", "distractors", "negatives")


@dataclasses.dataclass
class Settings:
    """The post-processor's settings: the one place they are."""
    threshold: float = 0.5
    min_gap: float = 0.12
    bout_gap: float = 2.0
    bout_vote: bool = True
    unknown_below: float = 0.5


def targets(truth, frames):
    """Per frame: footstep onset (0/1), other onset (0/1), the step's type index (-1 where no step begins)."""
    step = np.zeros(frames, dtype=np.float32)
    other = np.zeros(frames, dtype=np.float32)
    kind = np.full(frames, -1, dtype=np.int64)
    for onset, _, label in truth:
        centre = int(round(onset / frame_data.FRAME_SECONDS))
        lo, hi = max(0, centre - frame_data.TARGET_FRAMES), min(frames, centre + frame_data.TARGET_FRAMES + 1)
        if label.startswith("other"):
            other[lo:hi] = 1
        elif label in TYPES:
            step[lo:hi] = 1
            kind[lo:hi] = TYPES.index(label)
    return step, other, kind


def load(out, work, split, fold):
    """{name: (picture, step, other, kind, truth, meta)} of a split's fold."""
    gt = os.path.join(out, split, str(fold), "gt")
    meta = frame_data.clip_meta(os.path.join(out, split, str(fold)))
    clips = {}
    for name in frame_data.clip_names(gt):
        pic = frame_network.read_picture(os.path.join(frame_network.picture_dir(work, split, fold), name + ".f32"))
        truth = scoring.read_truth(os.path.join(gt, name + ".csv"))
        clips[name] = (pic.astype(np.float16), *targets(truth, len(pic)), truth, meta.get(name, {}))
    return clips


def train(args):
    import torch

    torch.set_num_threads(args.threads)
    clips, negative = [], []
    for k in FOLDS:
        if k == args.fold:
            continue
        for split in args.splits:
            loaded = list(load(args.out, args.work, split, k).values())
            clips += loaded
            negative += [split == "train-negatives"] * len(loaded)
    print(f"fold {args.fold}: {len(clips)} training clips", flush=True)
    rng = np.random.default_rng(args.seed)
    clip_p = clip_shares(np.array(negative), args.negative_share)
    negatives = np.flatnonzero(negative)
    net = frame_data.network(args.seed, causal=True, channels=args.channels, dilations=DILATIONS, outputs=2 + len(TYPES))
    optimiser = torch.optim.Adam(net.parameters(), lr=2e-3)
    lead = frame_data.receptive_frames(DILATIONS)
    window = 600 + lead + LOOKAHEAD
    step_share = np.mean(np.concatenate([c[1] for c in clips]))
    other_share = np.mean(np.concatenate([c[2] for c in clips]))
    # Positives weighted a quarter of what would balance the classes (the frame network's rule weighs a sixteenth).
    bce_step = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((1 - step_share) / step_share / 4))
    bce_other = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((1 - other_share) / other_share / 4))
    cross = torch.nn.CrossEntropyLoss(ignore_index=-1)
    started = time.time()
    net.train()
    for batch in range(args.batches):
        xs, steps, others, kinds = [], [], [], []
        for _ in range(args.batch_size):
            pic, step, other, kind, _, _ = clips[int(rng.choice(len(clips), p=clip_p))]
            start = int(rng.integers(0, max(1, len(pic) - window)))
            x = pic[start:start + window].astype(np.float32) / frame_network.SCALE
            if len(x) < window:
                continue
            x = augment(x, rng) if args.augment else x + rng.normal(0, 0.15, size=(1, x.shape[1])).astype(np.float32)
            x = pool_bands(x, args.pool_bands)
            judged = slice(start + lead - LOOKAHEAD, start + window - LOOKAHEAD)
            other_target = other[judged]
            if args.mix_negatives and rng.random() < args.mix_negatives:
                x, mixed_other = mix_negative(x, [clips[i] for i in negatives], rng, lead)
                other_target = np.maximum(other_target, mixed_other)
            xs.append(x.T)
            # The output at frame t judges frame t - LOOKAHEAD; frames before `lead` have not heard enough.
            steps.append(step[judged])
            others.append(other_target)
            kinds.append(kind[start + lead - LOOKAHEAD:start + window - LOOKAHEAD])
        out = net(torch.from_numpy(np.stack(xs)))[:, :, lead:]
        loss = (bce_step(out[:, 0], torch.from_numpy(np.stack(steps)))
                + bce_other(out[:, 1], torch.from_numpy(np.stack(others)))
                + 0.5 * cross(out[:, 2:].transpose(1, 2).reshape(-1, len(TYPES)),
                              torch.from_numpy(np.stack(kinds)).reshape(-1)))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if batch == 3 * args.batches // 4:
            for group in optimiser.param_groups:
                group["lr"] = 5e-4
        if (batch + 1) % 250 == 0:
            print(f"fold {args.fold}: batch {batch + 1}, loss {loss.item():.3f}, {time.time() - started:.0f} s",
                  flush=True)
    net.eval()
    torch.save(dict(state=net.state_dict(), channels=args.channels, dilations=DILATIONS, lookahead=LOOKAHEAD,
                    pool_bands=args.pool_bands),
               model_path(args.work, args.fold))
    print(f"fold {args.fold}: wrote {model_path(args.work, args.fold)} ({time.time() - started:.0f} s)")


def clip_shares(negative, negative_share):
    """Each clip's chance of giving a training window: the negatives (`negative`, a bool per clip) together
    `negative_share` of them, the rest the other clips' (uniform within each); None (uniform) without a share."""
    if negative_share is None or not negative.any() or negative.all():
        return None
    return np.where(negative, negative_share / negative.sum(), (1 - negative_share) / (~negative).sum())


def augment(x, rng):
    """A window (frames x bands, in SCALE units of dB over each band's floor) as another room and microphone
    could have given it: a gain per band (σ 3 dB), a spectral tilt (up to ±6 dB from the lowest band to the
    highest), a level shift of the whole window (σ 3 dB, so that loud and faint steps both train) and, half of
    the time, up to 8 adjacent bands masked to their floor (SpecAugment)."""
    bands = x.shape[1]
    shift = rng.normal(0, 3.0) + rng.uniform(-6, 6) * np.linspace(-0.5, 0.5, bands) + rng.normal(0, 3.0, bands)
    x = x + (shift / frame_network.SCALE).astype(np.float32)[None]
    if rng.random() < 0.5:
        width = int(rng.integers(1, 9))
        low = int(rng.integers(0, bands - width))
        x[:, low:low + width] = 0
    return x


def mix_negative(x, negatives, rng, lead):
    """`x` with a window of a random negative clip (`negatives`: loaded clips) added at 0 to -20 dB, as
    powers: steps over music or a machine, the night a neighbour's radio plays while someone walks. Returns the
    mixed window and the negative's "other impact" targets for the judged frames (its steps: none)."""
    pic, _, other, _, _, _ = negatives[int(rng.integers(len(negatives)))]
    window = len(x)
    start = int(rng.integers(0, max(1, len(pic) - window)))
    y = pic[start:start + window].astype(np.float32) / frame_network.SCALE
    if len(y) < window:
        return x, np.zeros(window - lead, dtype=np.float32)
    gain = rng.uniform(-20, 0)
    db = frame_network.SCALE
    mixed = 10 * np.log10(10 ** (x * db / 10) + 10 ** ((y * db + gain) / 10)) / db
    return mixed.astype(np.float32), other[start + lead - LOOKAHEAD:start + window - LOOKAHEAD]


def pool_bands(x, k):
    """Each group of `k` adjacent bands replaced by its mean (frames x bands; `k` divides the 56 bands): the network
    hears the spectrum's shape more coarsely, less of one source's timbre. 1: unchanged."""
    if k <= 1:
        return x
    frames, bands = x.shape
    return np.repeat(x.reshape(frames, bands // k, k).mean(axis=2), k, axis=1).astype(np.float32)


def model_path(work, fold):
    return os.path.join(work, "labeller", f"fold-{fold}.pt")


def load_model(work, fold):
    import torch

    saved = torch.load(model_path(work, fold))
    net = frame_data.network(0, causal=True, channels=saved["channels"], dilations=tuple(saved["dilations"]),
                        outputs=2 + len(TYPES))
    net.load_state_dict(saved["state"])
    net.eval()
    net.pool_bands = saved.get("pool_bands", 1)
    return net


def predict(net, pic):
    """(footstep probability, other probability, type probabilities frames x 4), frame t judged LOOKAHEAD later;
    the last LOOKAHEAD frames, which a stream hears later, get nothing."""
    import torch

    with torch.no_grad():
        x = pool_bands(pic.astype(np.float32) / frame_network.SCALE, getattr(net, "pool_bands", 1))
        out = net(torch.from_numpy(x.T[None]))[0].numpy()
    out = np.concatenate([out[:, LOOKAHEAD:], np.full((out.shape[0], LOOKAHEAD), -30.0)], axis=1)
    step, other = 1 / (1 + np.exp(-out[0])), 1 / (1 + np.exp(-out[1]))
    types = np.exp(out[2:] - out[2:].max(axis=0))
    return step, other, (types / types.sum(axis=0)).T


def postprocess(step, types, settings):
    """Rows (onset s, label, confidence) from a clip's probabilities (`Settings`)."""
    gap = max(1, int(round(settings.min_gap / frame_data.FRAME_SECONDS)))
    padded = np.pad(step, gap, constant_values=-1)
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * gap + 1)
    index = np.flatnonzero((step >= settings.threshold) & (step >= windows.max(axis=1)))
    keep = np.ones(len(index), dtype=bool)
    keep[1:] = np.diff(index) > gap
    index = index[keep]
    scores = [types[max(0, i - 2):i + 3].mean(axis=0) for i in index]
    if settings.bout_vote and len(index):
        bouts = np.cumsum(np.concatenate([[0], np.diff(index) * frame_data.FRAME_SECONDS > settings.bout_gap]))
        for b in np.unique(bouts):
            members = np.flatnonzero(bouts == b)
            vote = np.mean([scores[m] for m in members], axis=0)
            for m in members:
                scores[m] = vote
    rows = []
    for i, score in zip(index, scores):
        p = float(step[i])
        rows.append((i * frame_data.FRAME_SECONDS, TYPES[int(np.argmax(score))] if p >= settings.unknown_below else "unknown",
                     p))
    return rows


def write_rows(path, rows):
    with open(path, "w") as f:
        f.write("onset_s,label,confidence\n")
        for onset, label, confidence in rows:
            f.write(f"{onset:.3f},{label},{confidence:.3f}\n")


def probabilities_of(net, work, out, split, fold, cache):
    """{name: (step, types)} of a split's fold, cached in `cache` (a dict) for choosing settings."""
    key = (split, fold)
    if key not in cache:
        cache[key] = {}
        for name, (pic, *_rest) in load(out, work, split, fold).items():
            step, _, types = predict(net, pic)
            cache[key][name] = (step, types)
    return cache[key]


def score_fold(args, fold, settings, cache, predictions):
    """Writes fold's predictions for the scored splits under predictions/<split>-<fold> and returns (the tally of the
    evaluation clips and all distractor-only audio, {"scenario": {value: Tally}, "family": {family or
    family/scenario: Tally}}), the distractor clips as the family `distractors`."""
    net = load_model(args.work, fold)
    total = scoring.Tally()
    by = {"scenario": {}, "family": {}}

    def merge(key, groups, prefix=""):
        for value, t in groups.items():
            by[key].setdefault(prefix + value, scoring.Tally()).merge(t)

    for split in SCORED_SPLITS:
        gt = os.path.join(args.out, split, str(fold), "gt")
        pred = os.path.join(predictions, f"{split}-{fold}")
        os.makedirs(pred, exist_ok=True)
        for name, (step, types) in probabilities_of(net, args.work, args.out, split, fold, cache).items():
            write_rows(os.path.join(pred, name + ".csv"), postprocess(step, types, settings))
        quiet = split != "eval"
        tally, groups = scoring.score_directory(pred, gt, group_by="scenario", false_footsteps_only=quiet)
        total.merge(tally)
        merge("scenario", groups)
        if split == "distractors":
            merge("family", {"distractors": tally})
            merge("family", groups, "distractors/")
        elif split == "negatives":
            for group_by in ("family", ("family", "scenario")):
                merge("family", scoring.score_directory(pred, gt, group_by=group_by, false_footsteps_only=True)[1])
    return total, by


def choose_threshold(args, fold, cache, limit_false_per_hour):
    """The threshold with the best F1 on fold's training clips (its network never heard their families) among those
    whose false footsteps an hour on its training clips and training negatives stay within `limit_false_per_hour`
    (the highest threshold when none does)."""
    import tempfile

    net = load_model(args.work, fold)
    best = None
    for threshold in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        tally = scoring.Tally()
        with tempfile.TemporaryDirectory() as pred:
            for split in ("train", "train-negatives"):
                gt = os.path.join(args.out, split, str(fold), "gt")
                for name, (step, types) in probabilities_of(net, args.work, args.out, split, fold, cache).items():
                    write_rows(os.path.join(pred, name + ".csv"), postprocess(step, types, Settings(threshold)))
                tally.merge(scoring.score_directory(pred, gt)[0])
        f = tally.figures()
        print(f"fold {fold} threshold {threshold}: training clips F1 {f['f1']:.3f}, "
              f"false footsteps/h {f['false_per_hour']:.0f}", flush=True)
        if f["false_per_hour"] <= limit_false_per_hour and (best is None or f["f1"] > best[1]):
            best = (threshold, f["f1"])
    return best[0] if best else 0.9


def score(args):
    predictions = args.predictions or os.path.join(args.work, "labeller", "predictions")
    unseen = scoring.Tally()
    by = {"scenario": {}, "family": {}}
    chosen = {}
    for fold in args.fold:
        cache = {}
        threshold = args.threshold or choose_threshold(args, fold, cache, args.limit)
        chosen[fold] = threshold
        total, fold_by = score_fold(args, fold, Settings(threshold=threshold), cache, predictions)
        unseen.merge(total)
        print(footstep_eval.figures_line(f"fold {fold} (threshold {threshold})", total.figures()), flush=True)
        for key in by:
            for value, t in fold_by[key].items():
                by[key].setdefault(value, scoring.Tally()).merge(t)
    label = "unseen families, one network"
    print(footstep_eval.HEADER)
    print(footstep_eval.figures_line(label, unseen.figures()))
    print(f"\nby scenario ({label}):\n" + footstep_eval.HEADER)
    for value, t in sorted(by["scenario"].items()):
        print(footstep_eval.figures_line(value, t.figures()))
    per_hour = {v: t.figures()["false_per_hour"] for v, t in by["family"].items()}
    hours = {v: t.figures()["distractor_only_hours"] for v, t in by["family"].items()}
    print(footstep_eval.negatives_table(label, per_hour, hours))
    print("\nconfusion (rows = truth):")
    for k in TYPES:
        print(f"  {k:12s} {unseen.figures()['confusion'].get(k, {})}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(unseen=unseen.figures(), thresholds=chosen, negatives=per_hour, negative_hours=hours,
                           scenario={v: t.figures() for v, t in by["scenario"].items()}), f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval", help="footstep_eval.py build's directory")
    ap.add_argument("--work", default=None, help="pictures and models (default: OUT/frames)")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pictures", help="footstep-dataset --frame-pictures for every split the labeller reads")
    p.add_argument("--split", action="append", default=None)
    t = sub.add_parser("train", help="train fold K's network on the other folds")
    t.add_argument("--fold", type=int, required=True, choices=FOLDS)
    t.add_argument("--channels", type=int, default=32)
    t.add_argument("--batches", type=int, default=4000)
    t.add_argument("--batch-size", type=int, default=24)
    t.add_argument("--seed", type=int, default=7)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--negative-share", type=float, default=None,
                   help="the share of training windows from train-negatives (default: as many as their clips)")
    t.add_argument("--augment", action="store_true", help="tilt, shift and mask the pictures (`augment`)")
    t.add_argument("--pool-bands", type=int, default=1, choices=[1, 2, 4, 7, 8],
                   help="average each group of this many adjacent bands (`pool_bands`)")
    t.add_argument("--mix-negatives", type=float, default=0.0,
                   help="the share of training windows with a negative mixed under them (`mix_negative`)")
    t.add_argument("--splits", nargs="+", default=list(TRAINING_SPLITS), help="what it trains on (default: %(default)s)")
    s = sub.add_parser("score", help="score fold K's network on fold K (unseen families)")
    s.add_argument("--fold", type=int, action="append", choices=FOLDS)
    s.add_argument("--threshold", type=float, help="instead of choosing one on the training clips")
    s.add_argument("--limit", type=float, default=30.0,
                   help="the false footsteps an hour the threshold may cost on the training clips and negatives")
    s.add_argument("--predictions", help="where the CSVs go (default WORK/labeller/predictions)")
    s.add_argument("--json")
    args = ap.parse_args()
    args.work = args.work or os.path.join(args.out, "frames")
    if args.command == "pictures":
        args.split = args.split or list(TRAINING_SPLITS + SCORED_SPLITS)
        frame_network.make_pictures(args)
    elif args.command == "train":
        os.makedirs(os.path.dirname(model_path(args.work, 0)), exist_ok=True)
        train(args)
    else:
        args.fold = args.fold or FOLDS
        score(args)


if __name__ == "__main__":
    main()
