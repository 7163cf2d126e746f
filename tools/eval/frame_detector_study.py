#!/usr/bin/env python3
"""Could a learned, frame-by-frame step detector find the steps footstepd's detector and event model lose?
Measured out of fold on the evaluation's training clips (whole recording families held out).

    tools/.venv/bin/python tools/eval/frame_detector_study.py --predictions DIR [--out /tmp/footstep-eval]
        [--work /tmp/frame-study] [--minutes 6] [--seed 7] [--randomised] [--positive-share 0.25] [--tag NAME]
    ... --predictions DIR --tag NAME --fuse
    ... --predictions DIR --tag NAME --evaluate 'rescue=0.5,veto=0.1,add=0.5,company=1.5' --eval-predictions EDIR

The old CHANGELOG, `git show e9903ae:CHANGELOG.md` (*Frame network studies, sessions 40–46*) reports run 1 (the defaults), run 2
(`--randomised --positive-share 0.0625 --minutes 8 --tag s2`) and run 3 (run 2's with `--minutes 6 --trailing 30
--lookahead 30 --tag causal30`, which `--evaluate` needs again), with session 35's fold models' predictions;
docs/evaluation.md (*A learned frame detector and the decision over the evidence*) what ships from them.

Needs `footstep_eval.py build` (the training clips, OUT/train/K/gt) and the pipeline's predictions on them
(`footstep_eval.py score --split train --predictions DIR`: DIR/model-K/K/CLIP.csv, every detection with its
label), which are the baseline on the same clips.

For each clip it forms a picture of the whole stream, 10 ms frames: 16 log bands 20-400 Hz from 128 ms frames
and 40 log bands 400-7600 Hz from 32 ms frames (the onset detector's two resolutions), each band relative to
its own 20th percentile over the clip (the level of the microphone and of the background taken out). A small
network of dilated 1-D convolutions over time (56 bands in, 48 channels, dilations 1-32: it sees ±0.64 s,
the step before and the step after at a walk) gives each frame the probability that a step begins within
20 ms of it. For fold K it is trained on the clips of the other three folds (random 8 s windows, `--minutes`
of CPU time) and scored on fold K's: a frame is an onset where its probability is a local maximum over
±60 ms above a threshold, and each onset is a footstep claim (no type).

Printed, per threshold and against the pipeline on the same clips: detection P/R/F1 and false footsteps an
hour of distractor-only audio (`scoring.Tally`, the independent evaluation's definitions), overall and by
transmission; and how many of the steps the pipeline does not find the network does, at what cost.
The networks and their probabilities are saved under --work. `--fuse` then scores `FUSIONS`, footstepd's labels
changed by the network (`fused_claims`), on the same clips; `--evaluate` scores one fusion once on the
evaluation clips, unseen and seen families side by side.
"""
import argparse
import csv
import json
import os
import sys
import time
import wave
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoring  # noqa: E402

RATE = 16000
HOP = 160
FRAME_SECONDS = HOP / RATE
FOLDS = range(4)
TARGET_FRAMES = 2  # a frame within 20 ms of a step's onset is a positive
PEAK_FRAMES = 6  # onsets are local maxima over ±60 ms


def log_bands(lowest, highest, count):
    """The edges of `count` bands equally spaced in log frequency."""
    return np.geomspace(lowest, highest, count + 1)


def filterbank(n_fft, edges):
    """Bands x bins: each band the mean power of the bins inside it (the bin nearest its centre when none is)."""
    freqs = np.arange(n_fft // 2 + 1) * RATE / n_fft
    bank = np.zeros((len(edges) - 1, len(freqs)), dtype=np.float32)
    for b in range(len(edges) - 1):
        inside = (freqs >= edges[b]) & (freqs < edges[b + 1])
        if not inside.any():
            inside = np.zeros_like(inside)
            inside[np.argmin(np.abs(freqs - np.sqrt(edges[b] * edges[b + 1])))] = True
        bank[b, inside] = 1.0 / inside.sum()
    return bank


LOW_FFT, HIGH_FFT = 2048, 512
LOW_BANK = filterbank(LOW_FFT, log_bands(20, 400, 16))
HIGH_BANK = filterbank(HIGH_FFT, log_bands(400, 7600, 40))
BANDS = LOW_BANK.shape[0] + HIGH_BANK.shape[0]


def read_wav(path):
    with wave.open(path) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768


def picture(samples, trailing=None):
    """Frames x BANDS, dB relative to each band's 20th percentile over the clip, or with `trailing` (seconds)
    over the frames of the last `trailing` seconds before each second (all there are at the clip's start),
    as a streaming detector could keep it."""
    import torch

    x = torch.from_numpy(samples)
    parts = []
    for n_fft, bank in ((LOW_FFT, LOW_BANK), (HIGH_FFT, HIGH_BANK)):
        spec = torch.stft(x, n_fft, hop_length=HOP, window=torch.hann_window(n_fft), center=True, return_complex=True)
        power = (spec.abs() ** 2).numpy()
        parts.append(10 * np.log10(bank @ power + 1e-12))
    frames = min(p.shape[1] for p in parts)
    db = np.concatenate([p[:, :frames] for p in parts], axis=0).T
    db -= np.percentile(db, 20, axis=0, keepdims=True) if trailing is None else trailing_floors(db, trailing)
    return np.clip(db, -10, 60).astype(np.float16)


def trailing_floors(db, seconds):
    """Frames x bands: each band's 20th percentile over the `seconds` before each whole second (over the first
    second for the first), held for that second."""
    second = int(round(1 / FRAME_SECONDS))
    floors = np.empty_like(db)
    for start in range(0, len(db), second):
        history = db[max(0, start - int(seconds * second)):max(start, second)]
        floors[start:start + second] = np.percentile(history, 20, axis=0)
    return floors


def clip_names(gt_dir):
    return sorted(n[:-4] for n in os.listdir(gt_dir) if n.endswith(".csv"))


def clip_meta(split_dir):
    """{clip: its clips_meta.csv row} for one fold's directory of a split."""
    with open(os.path.join(split_dir, "clips_meta.csv"), newline="") as f:
        return {r["clip"]: r for r in csv.DictReader(f)}


def load_fold(out, work, fold, split="train", trailing=None):
    """{clip: (picture, targets, truth rows, meta)} for fold `fold`'s clips of `split` (the training clips, or
    `train-randomised`), cached under work."""
    gt = os.path.join(out, split, str(fold), "gt")
    variant = "" if trailing is None else f"-trailing{trailing:g}"
    cache = os.path.join(work, f"{split}-fold{fold}{variant}.npz")
    meta = clip_meta(os.path.join(out, split, str(fold)))
    names = clip_names(gt)
    if os.path.exists(cache):
        stored = np.load(cache)
        pictures = {n: stored[n] for n in names}
    else:
        pictures = {n: picture(read_wav(os.path.join(gt, n + ".wav")), trailing) for n in names}
        np.savez(cache, **pictures)
    clips = {}
    for n in names:
        truth = scoring.read_truth(os.path.join(gt, n + ".csv"))
        pic = pictures[n]
        target = np.zeros(len(pic), dtype=np.float32)
        for onset, _, label in truth:
            if label.startswith("other"):
                continue
            centre = int(round(onset / FRAME_SECONDS))
            target[max(0, centre - TARGET_FRAMES):centre + TARGET_FRAMES + 1] = 1
        clips[n] = (pic, target, truth, meta.get(n, {}))
    return clips


DILATIONS = (1, 2, 4, 8, 16, 32)


def receptive_frames(dilations):
    """How many frames the network's last layer sees: 3 for the first convolution, 2·d more for each block."""
    return 3 + 2 * sum(dilations)


def network(seed, causal=False, channels=48, dilations=DILATIONS, outputs=1):
    """Centred convolutions (with the default dilations each output frame sees ±0.64 s), or with `causal` only
    the frames up to it (1.28 s); `channels` wide, one residual block per dilation, `outputs` logits a frame."""
    import torch
    from torch import nn

    torch.manual_seed(seed)

    class Conv(nn.Module):
        def __init__(self, inputs, outputs, dilation):
            super().__init__()
            self.pad = (2 * dilation, 0) if causal else (dilation, dilation)
            self.conv = nn.Conv1d(inputs, outputs, 3, dilation=dilation)

        def forward(self, x):
            return self.conv(nn.functional.pad(x, self.pad))

    def conv(inputs, outputs, dilation):
        # The centred networks are plain padded convolutions (as run 1's and run 2's saved ones were built).
        return Conv(inputs, outputs, dilation) if causal else nn.Conv1d(inputs, outputs, 3, padding=dilation,
                                                                      dilation=dilation)

    class Block(nn.Module):
        def __init__(self, channels, dilation):
            super().__init__()
            self.conv = conv(channels, channels, dilation)
            self.norm = nn.BatchNorm1d(channels)

        def forward(self, x):
            return x + torch.relu(self.norm(self.conv(x)))

    return nn.Sequential(
        conv(BANDS, channels, 1), nn.BatchNorm1d(channels), nn.ReLU(),
        *[Block(channels, d) for d in dilations],
        nn.Conv1d(channels, outputs, 1))


def distractor_weights(pic, truth, weight, reach=5):
    """Each frame's weight in the loss: `weight` within `reach` frames of a distractor's onset (a truth row
    labelled `other:…`), else 1: the impacts the network must learn not to fire on are a few frames in
    thousands."""
    weights = np.ones(len(pic), dtype=np.float32)
    for onset, _, label in truth:
        if label.startswith("other"):
            centre = int(round(onset / FRAME_SECONDS))
            weights[max(0, centre - reach):centre + reach + 1] = weight
    return weights


def sampling_weights(metas, floor_weights=None, low_snr_weight=1.0, low_snr_db=10.0):
    """Each clip's share of the training windows, from its meta (clips_meta.csv's row): `floor_weights`
    ({scenario: weight}, others 1) times `low_snr_weight` when its SNR is below `low_snr_db`; normalised to sum
    to 1. None when every clip weighs the same (uniform sampling, as before these weights)."""
    weights = []
    for meta in metas:
        weight = float((floor_weights or {}).get(meta.get("scenario", "?"), 1.0))
        try:
            if float(meta.get("snr_db", "inf")) < low_snr_db:
                weight *= low_snr_weight
        except ValueError:
            pass
        weights.append(weight)
    weights = np.array(weights)
    if np.any(weights <= 0):
        raise ValueError("clip sampling weights must be positive")
    if not len(weights) or np.all(weights == weights[0]):
        return None
    return weights / weights.sum()


def train(clips, minutes, seed, positive_share, lookahead=None, batches=None, channels=48, dilations=DILATIONS,
          distractor_weight=1.0, clip_p=None):
    """With `lookahead` (frames), a causal network whose output at frame t is the onset probability of frame
    t - lookahead: it has heard `lookahead` frames after the onset it judges. With `batches`, that many batches
    (the rate drops to a quarter after three quarters of them) whatever the time, else `minutes` of CPU. A network
    that sees further back than the default dilations' 1.28 s gets that much more audio before each 8 s window,
    and no loss on it, so that every frame it learns from is judged from as much as the stream gives it. With
    `clip_p` (`sampling_weights`), each window's clip is drawn with those probabilities, else uniformly."""
    import torch

    rng = np.random.default_rng(seed)
    net = network(seed, causal=lookahead is not None, channels=channels, dilations=dilations)
    optimiser = torch.optim.Adam(net.parameters(), lr=2e-3)
    items = list(clips.values())
    lead = max(0, receptive_frames(dilations) - receptive_frames(DILATIONS))
    window = 800 + lead
    positive = np.mean(np.concatenate([t for _, t, _, _ in items]))
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((1 - positive) / positive * positive_share),
                                         reduction="none")
    weights = [distractor_weights(pic, truth, distractor_weight) for pic, _, truth, _ in items]
    deadline = None if batches is not None else time.time() + minutes * 60
    step = 0
    net.train()
    drop = 1500 if batches is None else 3 * batches // 4
    while (step < batches) if batches is not None else (time.time() < deadline):
        batch_x, batch_y, batch_w = [], [], []
        for _ in range(32):
            index = rng.integers(len(items)) if clip_p is None else rng.choice(len(items), p=clip_p)
            pic, target, _, _ = items[index]
            start = rng.integers(0, max(1, len(pic) - window))
            x = pic[start:start + window].astype(np.float32) / 20
            # Colour randomisation on top of the clips' own: a random gain per band (σ 3 dB).
            x = x + rng.normal(0, 0.15, size=(1, BANDS)).astype(np.float32)
            batch_x.append(x.T)
            batch_y.append(target[start:start + window])
            batch_w.append(weights[index][start:start + window])
        xs = torch.from_numpy(np.stack(batch_x))
        ys = torch.from_numpy(np.stack(batch_y))
        ws = torch.from_numpy(np.stack(batch_w))
        out = net(xs)[:, 0]
        if lookahead:
            out, ys, ws = out[:, lookahead:], ys[:, :-lookahead], ws[:, :-lookahead]
        out, ys, ws = out[:, lead:], ys[:, lead:], ws[:, lead:]
        loss = (loss_fn(out, ys) * ws).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        step += 1
        if step == drop:  # a quarter of the rate for the rest of the time
            for group in optimiser.param_groups:
                group["lr"] = 5e-4
    net.eval()
    return net, step


def probabilities(net, pic, lookahead=None):
    """Each frame's onset probability (with `lookahead`, read `lookahead` frames later; the clip's last frames,
    which a stream would hear later, get nothing)."""
    import torch

    with torch.no_grad():
        x = torch.from_numpy(pic.astype(np.float32).T[None] / 20)
        prob = torch.sigmoid(net(x)[0, 0]).numpy()
    if lookahead:
        prob = np.concatenate([prob[lookahead:], np.zeros(lookahead, dtype=prob.dtype)])
    return prob


def peaks(prob, threshold):
    """Onset times (s): frames that are the maximum of ±PEAK_FRAMES and at least `threshold`."""
    padded = np.pad(prob, PEAK_FRAMES, constant_values=-1)
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * PEAK_FRAMES + 1)
    is_peak = (prob >= threshold) & (prob >= windows.max(axis=1))
    index = np.flatnonzero(is_peak)
    # Plateaus: keep the first frame of each run of equal maxima.
    keep = np.ones(len(index), dtype=bool)
    keep[1:] = np.diff(index) > PEAK_FRAMES
    return index[keep] * FRAME_SECONDS


def pipeline_rows(predictions, model, fold, name):
    """footstepd's detections (analyze's CSV rows) by fold `model`'s model on clip `name` of fold `fold`."""
    path = os.path.join(predictions, f"model-{model}", str(fold), name + ".csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def figure_cells(tallies, key, groups):
    """'group P/R/F1 false-per-hour' for each group's Tally under (*key, group)."""
    cells = []
    for g in groups:
        f = tallies[(*key, g)].figures()
        cells.append(f"{g} {f['precision']:.3f}/{f['recall']:.3f}/{f['f1']:.3f} {f['false_per_hour'] or 0:.0f}/h")
    return " | ".join(cells)


def parse_fusion(text):
    """'rescue=0.5,veto=0.1' → {'rescue': 0.5, 'veto': 0.1}; ValueError naming what is wrong."""
    fusion = {}
    for part in text.split(","):
        key, _, value = part.partition("=")
        if key.strip() not in ("rescue", "veto", "add", "company"):
            raise ValueError(f"unknown fusion setting {key.strip()!r} (rescue, veto, add, company)")
        try:
            fusion[key.strip()] = float(value)
        except ValueError:
            raise ValueError(f"{key.strip()} needs a number, not {value!r}") from None
    return fusion


def near_maximum(prob, time, frames=5):
    """The network's highest probability within ±`frames` (50 ms) of `time`."""
    centre = int(round(time / FRAME_SECONDS))
    window = prob[max(0, centre - frames):centre + frames + 1]
    return float(window.max()) if len(window) else 0.0


def fused_claims(rows, prob, rescue=None, veto=None, add=None, company=None):
    """The pipeline's footstep claims changed by the network's probabilities: a detection called `other`
    becomes a footstep where the network says ≥ `rescue` within 50 ms; a footstep claim is dropped where it
    says < `veto`; a network onset ≥ `add` with no detection within 100 ms is added. With `company`, a
    rescued or added footstep needs one of the pipeline's own footstep claims within that many seconds."""
    own = np.array(sorted(float(r["onset_s"]) for r in rows if not r["label"].startswith("other")))

    def accompanied(t):
        if company is None:
            return True
        if not len(own):
            return False
        gaps = np.abs(own - t)
        return bool(np.any((gaps <= company) & (gaps > 0.05)))

    claims = []
    for r in rows:
        onset = float(r["onset_s"])
        footstep = not r["label"].startswith("other")
        p = near_maximum(prob, onset)
        if not footstep and rescue is not None and p >= rescue and accompanied(onset):
            footstep = True
        elif footstep and veto is not None and p < veto:
            footstep = False
        if footstep:
            claims.append((onset, "footstep"))
    if add is not None:
        detections = np.array(sorted(float(r["onset_s"]) for r in rows))
        for t in peaks(prob, add):
            far = not len(detections) or np.min(np.abs(detections - t)) > scoring.TOLERANCE
            if far and accompanied(t):
                claims.append((float(t), "footstep"))
    return sorted(claims)


FUSIONS = (
    dict(), dict(rescue=0.9), dict(rescue=0.8), dict(rescue=0.7), dict(rescue=0.6),
    dict(veto=0.1), dict(veto=0.2), dict(veto=0.3),
    dict(add=0.9), dict(add=0.8), dict(add=0.7),
    dict(rescue=0.8, veto=0.2), dict(rescue=0.7, veto=0.3), dict(rescue=0.8, veto=0.2, add=0.9),
    dict(rescue=0.7, veto=0.2, add=0.8),
    dict(add=0.8, company=1.5), dict(add=0.6, company=1.5), dict(rescue=0.7, company=1.5),
    dict(rescue=0.7, veto=0.2, add=0.7, company=1.5), dict(rescue=0.6, veto=0.2, add=0.6, company=1.5),
    dict(rescue=0.6, veto=0.2, add=0.5, company=1.0),
    dict(rescue=0.5, veto=0.1, add=0.5, company=1.5), dict(rescue=0.4, veto=0.1, add=0.4, company=1.5),
    dict(rescue=0.3, veto=0.05, add=0.3, company=1.5), dict(rescue=0.4, veto=0.1, add=0.6, company=1.5),
)


def fuse(args):
    """Scores `FUSIONS` from the probabilities a previous run saved."""
    saved = np.load(os.path.join(args.work, f"probabilities-{args.tag}.npz"))
    print(f"networks {args.tag}")
    tallies = defaultdict(scoring.Tally)
    for fold in FOLDS:
        gt = os.path.join(args.out, "train", str(fold), "gt")
        meta = clip_meta(os.path.join(args.out, "train", str(fold)))
        for name in clip_names(gt):
            prob = saved[f"{fold}/{name}"].astype(np.float32)
            truth = scoring.read_truth(os.path.join(gt, name + ".csv"))
            rows = pipeline_rows(args.predictions, fold, fold, name)
            seconds = len(prob) * FRAME_SECONDS
            for i, fusion in enumerate(FUSIONS):
                claims = fused_claims(rows, prob, **fusion)
                for g in ("all", meta.get(name, {}).get("scenario", "?")):
                    tallies[(i, g)].add_clip(truth, claims, seconds)
    groups = sorted({g for _, g in tallies})
    print("pipeline and network together, training clips (unseen families): P / R / F1, false footsteps an hour")
    for i, fusion in enumerate(FUSIONS):
        name = ", ".join(f"{k} {v}" for k, v in fusion.items()) or "pipeline alone"
        print(f"{name:>42}: " + figure_cells(tallies, (i,), groups))


def evaluate(args):
    """Scores one fusion (`--evaluate 'rescue=0.7,veto=0.2,...'`) once on the evaluation clips: network K
    and the pipeline's model K on fold K's clips (unseen families) and on the other folds' (seen)."""
    import torch

    fusion = parse_fusion(args.evaluate)
    print(f"networks {args.tag}, fusion {fusion}, evaluation clips")
    tallies = defaultdict(scoring.Tally)
    pictures = {}
    for j in FOLDS:
        gt = os.path.join(args.out, "eval", str(j), "gt")
        meta = clip_meta(os.path.join(args.out, "eval", str(j)))
        pictures[j] = {n: (picture(read_wav(os.path.join(gt, n + ".wav")), args.trailing), scoring.read_truth(
            os.path.join(gt, n + ".csv")), meta.get(n, {})) for n in clip_names(gt)}
    for k in FOLDS:
        net = network(args.seed, causal=args.lookahead is not None)
        net.load_state_dict(torch.load(os.path.join(args.work, f"net{k}-{args.tag}.pt")))
        net.eval()
        for j in FOLDS:
            side = "unseen" if j == k else "seen"
            for name, (pic, truth, meta) in pictures[j].items():
                rows = pipeline_rows(args.eval_predictions, k, j, name)
                prob = probabilities(net, pic, args.lookahead)
                seconds = len(pic) * FRAME_SECONDS
                for label, claims in (("pipeline", fused_claims(rows, prob)),
                                      ("fused", fused_claims(rows, prob, **fusion))):
                    for g in ("all", meta.get("scenario", "?")):
                        tallies[(side, label, g)].add_clip(truth, claims, seconds)
    groups = sorted({g for _, _, g in tallies})
    report = {}
    for side in ("unseen", "seen"):
        for label in ("pipeline", "fused"):
            for g in groups:
                f = tallies[(side, label, g)].figures()
                report[f"{side}/{label}/{g}"] = {k: f[k] for k in ("precision", "recall", "f1", "false_per_hour")}
            print(f"{side:>6} {label:>8}: " + figure_cells(tallies, (side, label), groups))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(report=report, fusion=fusion, tag=args.tag), f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    parser.add_argument("--work", default="/tmp/frame-study")
    parser.add_argument("--predictions", help="footstepd's predictions on the training clips (training, --fuse)")
    parser.add_argument("--minutes", type=float, default=6)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--positive-share", type=float, default=0.25,
                        help="weight of a positive frame, as a share of what would balance the classes")
    parser.add_argument("--randomised", action="store_true", help="train on the randomised training clips too")
    parser.add_argument("--trailing", type=float, help="normalise each band over the trailing SECONDS, not the clip")
    parser.add_argument("--lookahead", type=int, help="a causal network that hears FRAMES after the onset")
    parser.add_argument("--json")
    parser.add_argument("--tag", default="seed7", help="names the saved networks and probabilities")
    parser.add_argument("--fuse", action="store_true", help="score the pipeline with the saved probabilities")
    parser.add_argument("--evaluate", metavar="FUSION", help="score one fusion on the evaluation clips, e.g. "
                        "'rescue=0.7,veto=0.2,add=0.7,company=1.5' (needs --eval-predictions)")
    parser.add_argument("--eval-predictions", help="the pipeline's predictions on the evaluation clips")
    args = parser.parse_args()
    if args.evaluate:
        if not args.eval_predictions:
            parser.error("--evaluate needs --eval-predictions (footstepd's predictions on the evaluation clips)")
        try:
            parse_fusion(args.evaluate)
        except ValueError as error:
            parser.error(f"--evaluate: {error}")
        return evaluate(args)
    if not args.predictions:
        parser.error("--predictions is needed (footstepd's predictions on the training clips, the baseline)")
    if args.fuse:
        return fuse(args)
    os.makedirs(args.work, exist_ok=True)
    import torch

    torch.set_num_threads(2)
    folds = {}
    for fold in FOLDS:
        started = time.time()
        folds[fold] = load_fold(args.out, args.work, fold, trailing=args.trailing)
        print(f"fold {fold}: {len(folds[fold])} clips, pictures in {time.time() - started:.0f} s", flush=True)
    randomised = ({k: load_fold(args.out, args.work, k, "train-randomised", args.trailing) for k in FOLDS}
                  if args.randomised else {})

    tallies = defaultdict(scoring.Tally)  # (threshold or 'pipeline', group) -> Tally
    rescue = defaultdict(int)  # threshold -> steps the pipeline misses that the network finds
    missed_by_pipeline = 0
    saved = {}
    for fold in FOLDS:
        training = {f"{k}/{n}": v for k in FOLDS if k != fold for n, v in folds[k].items()}
        training.update({f"r{k}/{n}": v for k, clips in randomised.items() if k != fold for n, v in clips.items()})
        net, steps = train(training, args.minutes, args.seed, args.positive_share, args.lookahead)
        print(f"fold {fold}: trained {steps} batches", flush=True)
        torch.save(net.state_dict(), os.path.join(args.work, f"net{fold}-{args.tag}.pt"))
        for name, (pic, _, truth, meta) in folds[fold].items():
            seconds = len(pic) * FRAME_SECONDS
            groups = ("all", meta.get("scenario", "?"))
            prob = probabilities(net, pic, args.lookahead)
            saved[f"{fold}/{name}"] = prob.astype(np.float16)
            claims = fused_claims(pipeline_rows(args.predictions, fold, fold, name), prob)
            for g in groups:
                tallies[("pipeline", g)].add_clip(truth, claims, seconds)
            steps_onsets = [t[0] for t in truth if not t[2].startswith("other")]
            found = {a for a, _ in scoring.match(steps_onsets, [c[0] for c in claims])}
            missed_by_pipeline += len(steps_onsets) - len(found)
            for threshold in THRESHOLDS:
                onsets = peaks(prob, threshold)
                predicted = [(float(t), "footstep") for t in onsets]
                for g in groups:
                    tallies[(threshold, g)].add_clip(truth, predicted, seconds)
                mine = {a for a, _ in scoring.match(steps_onsets, list(onsets))}
                rescue[threshold] += len(mine - found)

    np.savez(os.path.join(args.work, f"probabilities-{args.tag}.npz"), **saved)
    report = {}
    print("\nout of fold, training clips (unseen families): detection P / R / F1, false footsteps an hour")
    groups = sorted({g for _, g in tallies})
    for key in ["pipeline", *THRESHOLDS]:
        for g in groups:
            f = tallies[(key, g)].figures()
            report[f"{key}/{g}"] = {k: f[k] for k in ("precision", "recall", "f1", "false_per_hour", "tp", "fp", "fn")}
        extra = "" if key == "pipeline" else f"; finds {rescue[key]} of the pipeline's {missed_by_pipeline} missed steps"
        print(f"{key!s:>8}: " + figure_cells(tallies, (key,), groups) + extra)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(report=report, rescue={str(k): v for k, v in rescue.items()},
                           missed_by_pipeline=missed_by_pipeline, minutes=args.minutes, seed=args.seed), f, indent=1)


if __name__ == "__main__":
    main()
