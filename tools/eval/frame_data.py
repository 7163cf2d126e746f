"""The frame picture as NumPy reads it, and the causal network trained on it: what `frame_network.py`,
`frame_decision.py` and `tools/train/labeller.py` share.

For each clip: a picture of the whole stream, 10 ms frames: 16 log bands 20-400 Hz from 128 ms frames and 40 log
bands 400-7600 Hz from 32 ms frames (the onset detector's two resolutions), each band relative to its own 20th
percentile (over the clip, or the trailing seconds); each frame's target, a step beginning within 20 ms of it; the
network of dilated 1-D convolutions over time and its training (`train`), its probabilities, their peaks (onsets,
local maxima over ±60 ms) and the pipeline's own predictions on the same clips (`pipeline_rows`).

Its origin, the study that asked whether such a network finds the steps footstepd's detector loses, is in
docs/research.md and docs/evaluation.md (*A learned frame detector and the decision over the evidence*); the study's
own script is in git history (`git show 0c6cbde:tools/eval/frame_detector_study.py`).
"""
import csv
import os
import sys
import time
import wave

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


def figure_cells(tallies, key, groups):
    """'group P/R/F1 false-per-hour' for each group's Tally under (*key, group)."""
    cells = []
    for g in groups:
        f = tallies[(*key, g)].figures()
        cells.append(f"{g} {f['precision']:.3f}/{f['recall']:.3f}/{f['f1']:.3f} {f['false_per_hour'] or 0:.0f}/h")
    return " | ".join(cells)


def near_maximum(prob, time, frames=5):
    """The network's highest probability within ±`frames` (50 ms) of `time`."""
    centre = int(round(time / FRAME_SECONDS))
    window = prob[max(0, centre - frames):centre + frames + 1]
    return float(window.max()) if len(window) else 0.0
