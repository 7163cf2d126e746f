#!/usr/bin/env python3
"""Does a time-frequency picture of the impact, or of the seconds around it, tell footsteps from other impacts
better than the 40 event features? Measured out of fold on the evaluation's training clips.

    tools/.venv/bin/python tools/eval/picture_study.py [--out /tmp/footstep-eval] [--features DIR]

Needs `footstep_eval.py build` and the per-fold feature tables that `train_folds.py` writes
(DIR/fold0.csv … fold3.csv: one row per detection of the real pipeline, labelled from the truth).
For every detection it cuts from the clip's audio:

- **event**: a log-mel picture, 32 bands 25 Hz-4 kHz x 50 frames of 10 ms from 50 ms before the onset,
  relative to its own maximum (no absolute level), pooled 2x2 to 400 values;
- **context**: 8 octave bands 25 Hz-8 kHz in 50 ms cells on the stream's own grid (what a streaming
  implementation keeps), from 1.5 s before the onset's cell to 0.5 s after, relative to the loudest cell
  within 100 ms of the onset, clipped to [-40, +20] dB, pooled to 100 ms;
- **context heard by emission**: the same, with the cells that the pipeline has not heard when it emits the
  event (onset + the detector's event duration + 30 ms) set to -40 dB, which is all a live classifier has.

Each representation (alone, or next to the 40 features) trains a one-hidden-layer MLP (64 units, L2 1e-2,
early stopping, seed 7) for footstep-vs-other on three folds and is scored on the fourth (whole recording
families held out). Printed: ROC AUC per held-out fold and the share of detected steps kept when 5, 10 and 20 %
of the other detections are let through (the low-false-alarm end is where footstepd operates).
"""
import argparse
import os
import sys
import wave

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import train_classifier as tc  # noqa: E402

RATE = 16000
FOLDS = range(4)


def read_clip(path):
    with wave.open(path) as w:
        if w.getframerate() != RATE or w.getsampwidth() != 2:
            sys.exit(f"{path}: expected 16-bit {RATE} Hz audio")
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768


def mel_bank(bands=32, low=25.0, high=4000.0, n_fft=512):
    mel = lambda f: 2595 * np.log10(1 + f / 700)  # noqa: E731
    hz = lambda m: 700 * (10 ** (m / 2595) - 1)  # noqa: E731
    points = hz(np.linspace(mel(low), mel(high), bands + 2))
    freqs = np.fft.rfftfreq(n_fft, 1 / RATE)
    bank = np.zeros((bands, len(freqs)))
    for i in range(bands):
        lo, centre, hi = points[i:i + 3]
        bank[i] = np.clip(np.minimum((freqs - lo) / (centre - lo), (hi - freqs) / (hi - centre)), 0, None)
    return bank


def log_mel(x, bank, n_fft=512, hop=160):
    n = 1 + (len(x) - n_fft) // hop
    frames = x[np.arange(n_fft)[None, :] + hop * np.arange(n)[:, None]] * np.hanning(n_fft)
    return 10 * np.log10(bank @ (np.abs(np.fft.rfft(frames, axis=1)) ** 2).T + 1e-12)  # bands x frames


OCTAVES = (25, 50, 100, 200, 400, 800, 1600, 3200, 8000)


def octave_cells(x, cell=800, n_fft=1024):
    """Band energies (dB) of consecutive 50 ms cells; cell i ends at sample (i + 1) * cell."""
    n = len(x) // cell
    padded = np.concatenate([np.zeros(n_fft - cell, np.float32), x])
    frames = padded[np.arange(n_fft)[None, :] + cell * np.arange(n)[:, None]] * np.hanning(n_fft)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    freqs = np.fft.rfftfreq(n_fft, 1 / RATE)
    bands = [power[:, (freqs >= lo) & (freqs < hi)].sum(axis=1) for lo, hi in zip(OCTAVES[:-1], OCTAVES[1:])]
    return 10 * np.log10(np.stack(bands, axis=1) + 1e-10)  # cells x bands


def cut(args, k, bank, pooled=True):
    """One fold's detections: features, footstep-or-not, and the pictures (pooled as the study uses them, or
    unpooled: event (n, 32, 50) relative to its maximum, context and heard (n, 40, 8), the five-class label
    and each clip's transmission model)."""
    path = os.path.join(args.features, f"fold{k}.csv")
    names, X, y, sources, truth, _ = tc.load(path)
    with open(path) as f:
        header = f.readline().strip().split(",")
        onsets = np.array([float(r.split(",")[header.index("onset_s")]) for r in f if r.strip()])
    keep = (truth != "near_footstep") & np.char.startswith(sources, "labelled-")
    X, y, sources, onsets = X[keep], y[keep], sources[keep], onsets[keep]
    duration = 10 ** X[:, names.index("duration_log_s")]
    event = np.zeros((len(y), 32, 50), np.float32)
    context = np.zeros((len(y), 40, len(OCTAVES) - 1), np.float32)
    heard = np.zeros_like(context)
    clip, spectrogram, cells = None, None, None
    for i, (source, onset) in enumerate(zip(sources, onsets)):
        if source != clip:
            clip = source
            x = read_clip(os.path.join(args.out, "train", str(k), "gt", source[len("labelled-"):] + ".wav"))
            spectrogram, cells = log_mel(x, bank), octave_cells(x)
        first = int(round((onset - 0.05) * 100)) - 1
        event[i] = spectrogram[:, np.arange(first, first + 50).clip(0, spectrogram.shape[1] - 1)]
        onset_cell = int(onset * RATE) // 800
        index = np.arange(onset_cell - 30, onset_cell + 10)
        grid = np.where((index >= 0)[:, None], cells[index.clip(0, len(cells) - 1)], cells.min())
        reference = grid[28:32].max()
        context[i] = np.clip(grid - reference, -40, 20)
        known = 30 + int(np.floor((onset + duration[i] + 0.03) / 0.05) - onset_cell)
        partial = grid.copy()
        partial[max(known, 30):] = np.nan
        reference = np.nanmax(partial[28:31])
        heard[i] = np.where(np.isnan(partial), -40, np.clip(partial - reference, -40, 20))
    event = event - event.max(axis=(1, 2), keepdims=True)
    label, y = y, (y != tc.CLASSES.index("other")).astype(int)
    if not pooled:
        scenario = np.array([source[len("labelled-"):].split("-")[0] for source in sources])
        return dict(features=X, label=label, y=y, event=event, context=context, heard=heard, scenario=scenario)
    pool = lambda a, *shape: a.reshape(len(a), *shape).mean(axis=(2, 4) if len(shape) == 4 else 2)  # noqa: E731
    return dict(
        features=X, y=y,
        event=pool(event, 16, 2, 25, 2).reshape(len(y), -1),
        context=pool(context, 20, 2, 8).reshape(len(y), -1),
        heard=pool(heard, 20, 2, 8).reshape(len(y), -1),
    )


def study(data, representation, seed):
    from sklearn.metrics import roc_auc_score, roc_curve
    from sklearn.neural_network import MLPClassifier
    aucs, kept = [], []
    stack = lambda k: np.hstack([data[k][part] for part in representation.split("+")])  # noqa: E731
    for k in FOLDS:
        train = [j for j in FOLDS if j != k]
        X = np.vstack([stack(j) for j in train])
        y = np.concatenate([data[j]["y"] for j in train])
        mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-6
        model = MLPClassifier((64,), alpha=1e-2, max_iter=200, random_state=seed, early_stopping=True)
        model.fit((X - mean) / scale, y)
        p = model.predict_proba((stack(k) - mean) / scale)[:, 1]
        aucs.append(roc_auc_score(data[k]["y"], p))
        fpr, tpr, _ = roc_curve(data[k]["y"], p)
        kept.append([np.interp(f, fpr, tpr) for f in (0.05, 0.10, 0.20)])
    kept = np.mean(kept, axis=0)
    print(f"| {representation} | {' / '.join(f'{a:.3f}' for a in aucs)} | {np.mean(aucs):.3f} | "
          f"{kept[0]:.2f} / {kept[1]:.2f} / {kept[2]:.2f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/footstep-eval", help="the evaluation corpus (footstep_eval.py build)")
    ap.add_argument("--features", default=None, help="the fold feature tables (default: OUT/features)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("representations", nargs="*",
                    default=["features", "event", "context", "features+event", "features+context",
                             "features+heard"])
    args = ap.parse_args()
    args.features = args.features or os.path.join(args.out, "features")
    bank = mel_bank()
    data = {k: cut(args, k, bank) for k in FOLDS}
    print("| representation | AUC fold 0 / 1 / 2 / 3 | mean AUC | steps kept at 5 / 10 / 20 % other let through |")
    print("| --- | --- | --- | --- |")
    for representation in args.representations:
        study(data, representation, args.seed)


if __name__ == "__main__":
    main()
