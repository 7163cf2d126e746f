#!/usr/bin/env python3
"""Does a small convolutional network over the impact's log-mel picture and its surroundings tell footsteps
from other impacts better than the shipped gradient-boosted trees over the 48 event features? Out of fold on
the evaluation's training clips, whole recording families held out.

    python3 -m venv /tmp/cnn && /tmp/cnn/bin/pip install torch numpy scipy scikit-learn
    /tmp/cnn/bin/python tools/eval/cnn_study.py [--out /tmp/footstep-eval] [--small] [--per-fold N]

Needs `footstep_eval.py build` and `train_folds.py` (its per-fold feature tables, OUT/features/foldK.csv:
one row per detection of the real pipeline, labelled from the truth). The pictures are cut from the clips'
audio at each detection by `picture_study.cut`:

- **event**: log-mel, 32 bands 25 Hz-4 kHz x 50 frames of 10 ms from 50 ms before the onset, relative to its
  own maximum (no absolute level);
- **heard**: 8 octave bands in 50 ms cells, 1.5 s before the onset to 0.5 s after, relative to the event,
  with the cells a live classifier has not heard when it emits the event left at -40 dB.

Models, each trained on three folds and scored on the fourth (footstep vs other):

- **trees**: the shipped event model's training (`train_folds.fit` with `train_folds.py`'s defaults: gradient-
  boosted trees over the 48 features, five classes, its class weights) on the same detections (not the
  synthesizer's); its score is the log-odds of any footstep;
- **cnn**: two convolutional branches (event: 3 blocks of 3x3 convolution, batch norm, ReLU and 2x2 pooling,
  16-32-32 channels; heard: two 1-D convolutions over time, 16 channels) and the standardised features, joined by
  a 64-unit layer. SpecAugment-style masking of 4 mel bands and 5 frames, a random shift of up to 2 frames,
  Adam (1e-3, weight decay 1e-4), 10 epochs of batch 256, each detection weighted as the trees weigh it
  (`--small`: the picture pooled 2x2 to 16 bands x 25 frames first, 8-16-16 channels);
- **cnn without features** (`--pictures-alone`): the pictures alone; `--no-context` leaves out the context
  branch (the event's picture and the features only);
- **trees + cnn**: the mean of the two models' logits.

Printed: ROC AUC per held-out fold and the share of detected steps kept when 5, 10 and 20 % of the other
detections are let through (footstepd works near 10 %), and that share at 10 % per transmission model (the
threshold is the fold's, over all its other detections).
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import picture_study  # noqa: E402
import train_folds  # noqa: E402

FOLDS = range(4)
OTHER = train_folds.tc.CLASSES.index("other")


def kept_at(y, score, rates=(0.05, 0.10, 0.20)):
    from sklearn.metrics import roc_curve
    fpr, tpr, _ = roc_curve(y, score)
    return [float(np.interp(r, fpr, tpr)) for r in rates]


def kept_by_scenario(y, score, scenario, rate=0.10):
    """Detected steps kept per transmission model at the fold's threshold that lets `rate` of all other
    detections through: {scenario: (kept, steps)}."""
    threshold = np.quantile(score[y == 0], 1 - rate)
    steps = y == 1
    return {s: (int((steps & (scenario == s) & (score > threshold)).sum()), int((steps & (scenario == s)).sum()))
            for s in np.unique(scenario)}


def trees(train, test, settings):
    """The shipped event model's training (`train_folds.fit`: five classes, its class weights) on the fold's
    detections; the score is the log-odds of any footstep."""
    model, mean, scale = train_folds.fit(train["features"], train["label"],
                                         train_folds.class_weights(train["label"], settings.other_weight), settings)
    other = list(model.classes_).index(OTHER)
    p_other = np.clip(model.predict_proba((test["features"] - mean) / scale)[:, other], 1e-7, 1 - 1e-7)
    return np.log((1 - p_other) / p_other)


def network(use_features, n_features, small=False, use_context=True):
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            def block(i, o):
                return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))

            if small:   # the picture pooled 2x2 first (16 bands x 25 frames of 20 ms), 8-16-16 channels
                self.event = nn.Sequential(nn.AvgPool2d(2), block(1, 8), block(8, 16), block(16, 16),
                                           nn.AdaptiveAvgPool2d(1), nn.Flatten())
            else:
                self.event = nn.Sequential(block(1, 16), block(16, 32), block(32, 32), nn.AdaptiveAvgPool2d(1),
                                           nn.Flatten())
            self.heard = nn.Sequential(nn.Conv1d(8, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(),
                                       nn.MaxPool1d(2), nn.Conv1d(16, 16, 5, padding=2), nn.ReLU(),
                                       nn.AdaptiveMaxPool1d(1), nn.Flatten()) if use_context else None
            width = (16 if small else 32) + (16 if use_context else 0) + (n_features if use_features else 0)
            self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, 1))

        def forward(self, event, heard, features):
            parts = [self.event(event[:, None])] + ([self.heard(heard.transpose(1, 2))] if use_context else [])
            if use_features:
                parts.append(features)
            return self.head(torch.cat(parts, dim=1))[:, 0]

    return Net()


def cnn(train, test, use_features, settings, epochs, seed, small=False, use_context=True):
    import torch
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    mean, scale = train["features"].mean(axis=0), train["features"].std(axis=0) + 1e-6
    tensors = lambda d: (torch.from_numpy(((d["event"] + 40) / 20).astype(np.float32)),  # noqa: E731
                         torch.from_numpy(((d["heard"] + 10) / 15).astype(np.float32)),
                         torch.from_numpy(((d["features"] - mean) / scale).astype(np.float32)))
    event, heard, features = tensors(train)
    y = torch.from_numpy(train["y"].astype(np.float32))
    w = torch.from_numpy(train_folds.class_weights(train["label"], settings.other_weight).astype(np.float32))
    net = network(use_features, features.shape[1], small, use_context)
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)
    loss = torch.nn.BCEWithLogitsLoss(reduction="none")
    n = len(y)
    for _ in range(epochs):
        net.train()
        for batch in np.array_split(rng.permutation(n), n // 256):
            e = event[batch].clone()
            shift = int(rng.integers(-2, 3))
            e = torch.roll(e, shift, dims=2)
            band = int(rng.integers(0, 29))
            e[:, band:band + 4, :] = 0
            frame = int(rng.integers(0, 46))
            e[:, :, frame:frame + 5] = 0
            optimiser.zero_grad()
            out = net(e, heard[batch], features[batch])
            (loss(out, y[batch]) * w[batch]).mean().backward()
            optimiser.step()
    net.eval()
    cost(net, event, heard, features)
    event, heard, features = tensors(test)
    with torch.no_grad():
        return torch.cat([net(event[i:i + 2048], heard[i:i + 2048], features[i:i + 2048])
                          for i in range(0, len(event), 2048)]).numpy()


def cost(net, event, heard, features):
    """Prints the network's multiply-adds and its time for one event on one thread (what footstepd would pay)."""
    import torch
    macs = []
    hook = lambda m, i, o: macs.append(  # noqa: E731
        o.numel() * (m.in_channels // m.groups) * int(np.prod(m.kernel_size)) if hasattr(m, "kernel_size")
        else o.numel() * m.in_features)
    handles = [m.register_forward_hook(hook) for m in net.modules() if isinstance(m, (torch.nn.Conv1d,
                                                                                     torch.nn.Conv2d,
                                                                                     torch.nn.Linear))]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with torch.no_grad():
        net(event[:1], heard[:1], features[:1])
        for h in handles:
            h.remove()
        started = time.perf_counter()
        for i in range(200):
            net(event[i:i + 1], heard[i:i + 1], features[i:i + 1])
    elapsed = (time.perf_counter() - started) / 200
    torch.set_num_threads(threads)
    print(f"network: {sum(p.numel() for p in net.parameters())} parameters, {sum(macs) / 1e6:.2f} M multiply-adds, "
          f"{elapsed * 1e6:.0f} µs an event on one thread (PyTorch)", file=sys.stderr, flush=True)


def subsample(data, limit, seed):
    if limit <= 0 or len(data["y"]) <= limit:
        return data
    keep = np.sort(np.random.default_rng(seed).choice(len(data["y"]), limit, replace=False))
    return {k: v[keep] for k, v in data.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval", help="the evaluation corpus (footstep_eval.py build)")
    ap.add_argument("--features", default=None, help="the fold feature tables (default: OUT/features)")
    ap.add_argument("--per-fold", type=int, default=0, help="detections used per fold (0: all)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--other-weight", type=float, default=None,
                    help="the weight of `other` for both models (default: the shipped model's, train_folds.py)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--small", action="store_true",
                    help="a network about 15 times cheaper: the picture pooled 2x2, 8-16-16 channels")
    ap.add_argument("--no-context", action="store_true",
                    help="without the context branch: the event's picture and the features only")
    ap.add_argument("--pictures-alone", action="store_true", help="also train the network without the features")
    args = ap.parse_args()
    args.features = args.features or os.path.join(args.out, "features")
    settings = train_folds.parser().parse_args([] if args.other_weight is None
                                               else ["--other-weight", str(args.other_weight)])
    bank = picture_study.mel_bank()
    data = {}
    for k in FOLDS:
        started = time.time()
        data[k] = subsample(picture_study.cut(args, k, bank, pooled=False), args.per_fold, args.seed + k)
        print(f"fold {k}: {len(data[k]['y'])} detections, {int(data[k]['y'].sum())} steps "
              f"({time.time() - started:.0f} s)", file=sys.stderr, flush=True)
    from sklearn.metrics import roc_auc_score
    names = ["trees", "cnn"] + (["cnn without features"] if args.pictures_alone else []) + ["trees + cnn"]
    results = {name: ([], []) for name in names}
    by_scenario = {name: {} for name in names}
    for k in FOLDS:
        train = {key: np.concatenate([data[j][key] for j in FOLDS if j != k]) for key in data[k]}
        test = data[k]
        started = time.time()
        scores = {"trees": trees(train, test, settings),
                  "cnn": cnn(train, test, True, settings, args.epochs, args.seed, args.small,
                             not args.no_context)}
        if args.pictures_alone:
            scores["cnn without features"] = cnn(train, test, False, settings, args.epochs, args.seed,
                                                 args.small, not args.no_context)
        scores["trees + cnn"] = (scores["trees"] + scores["cnn"]) / 2
        for name, score in scores.items():
            results[name][0].append(roc_auc_score(test["y"], score))
            results[name][1].append(kept_at(test["y"], score))
            for scenario, (kept, steps) in kept_by_scenario(test["y"], score, test["scenario"]).items():
                total = by_scenario[name].setdefault(scenario, [0, 0])
                total[0] += kept
                total[1] += steps
        print(f"fold {k} scored ({time.time() - started:.0f} s): "
              + ", ".join(f"{name} {results[name][0][-1]:.3f}" for name in results), file=sys.stderr, flush=True)
    print("| model | AUC fold 0 / 1 / 2 / 3 | mean AUC | steps kept at 5 / 10 / 20 % of other let through |")
    print("| --- | --- | --- | --- |")
    for name, (aucs, kept) in results.items():
        kept = np.mean(kept, axis=0)
        print(f"| {name} | {' / '.join(f'{a:.3f}' for a in aucs)} | {np.mean(aucs):.3f} | "
              f"{kept[0]:.2f} / {kept[1]:.2f} / {kept[2]:.2f} |")
    scenarios = sorted(by_scenario["trees"])
    print()
    print("| model | detected steps kept at 10 % of other let through: " + " / ".join(scenarios) + " |")
    print("| --- | --- |")
    for name, totals in by_scenario.items():
        print(f"| {name} | " + " / ".join(f"{totals[s][0] / totals[s][1]:.2f}" for s in scenarios) + " |")


if __name__ == "__main__":
    main()
