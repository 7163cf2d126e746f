#!/usr/bin/env python3
"""A check on real recordings: footstep samples footstepd never trained on,
sequenced into walks and runs, through a ceiling, with real distractors and
noise at 0-25 dB SNR, scored through `footstepctl analyze --output`.

    tools/training-data/fetch.sh /tmp/train-data        # once
    python3 tools/real_footstep_check.py [--files 12] [--seed 1] [--footstepctl PATH]

The footstep samples are the 7 Lugaru and FreedroidRPG single steps of
tools/training-data/manifest.csv; the classifier's training uses none of them
(it sequences the OpenClonk and 0 A.D. steps instead: --make-training).
Distractors are the manifest's door, knock, drop and thud recordings the
training does not use: the validation quarter footstep-dataset sets aside (by a
hash of the file name). Nothing comes from the packages the issue reserves for
the independent evaluation.

Per file (default 3 minutes, 16 kHz): bouts of 5-16 steps at a walking
(1.6-2.2 /s) or running (2.6-3.6 /s) cadence, one or two samples per bout
(left/right), ±2 dB and ±3 % jitter, 2-10 s apart; about 6 distractors a
minute, never within 0.4 s of a step; with probability 0.7 everything goes
"through a ceiling" (a 2nd-order low-pass at 150-400 Hz plus a reverberant
tail, RT60 0.2-0.5 s); then pink noise and 50 Hz hum at the file's SNR
(0, 5, ... 25 dB: the loudest 100 ms of each step over the background's RMS).

Prints per file and overall: footstep detection precision / recall / F1
(±50 ms; a detection counts as a footstep when its label is not `other`) and
distractors labelled as footsteps (per distractor and per hour).
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import wave

from train_classifier import ROOT, ensure_venv  # same directory: the shared venv

RATE = 16000
DISTRACTOR_CATEGORIES = {"door", "knock", "drop", "thud"}


def fnv1a(name):
    h = 0xCBF29CE484222325
    for b in name.encode():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def wav_name(package, path):
    name = package + "__" + path.replace("/", "_")
    return name[: name.rfind(".")] + ".wav"


def read_wav(path):
    import numpy as np
    with wave.open(path) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2, path
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768
    return data


def trimmed(x):
    """The sample from its first point within 26 dB of its peak (the physical onset)."""
    import numpy as np
    peak = np.max(np.abs(x))
    start = int(np.argmax(np.abs(x) >= 0.05 * peak))
    return x[max(0, start - 16):]


# Footstep samples kept for the check; the others (OpenClonk, 0 A.D.) are sequenced for training.
CHECK_STEP_PACKAGES = {"lugaru-data", "freedroidrpg-data", "freedink-data"}


def held_out(row):
    """Recordings the classifier never trains on: the footstep samples of CHECK_STEP_PACKAGES,
    and the quarter of the other recordings footstep-dataset puts in its validation split
    (FNV-1a of the flattened file name, as RealNegatives.split)."""
    if row["category"] == "footstep":
        return row["package"] in CHECK_STEP_PACKAGES
    return fnv1a(wav_name(row["package"], row["path_in_package"].replace("::", "_"))) % 4 == 0


def sounds(manifest, directory, side):
    """(footstep samples, distractor samples) of one side ("check": held out from
    training; "train": the rest) from the manifest's files present in directory."""
    steps, distractors = [], []
    with open(manifest) as f:
        for row in csv.DictReader(f):
            path = row["path_in_package"].replace("::", "_")
            name = wav_name(row["package"], path)
            file = os.path.join(directory, name)
            if not os.path.exists(file) or held_out(row) != (side == "check"):
                continue
            if row["category"] == "footstep" and "stairs" not in name:
                steps.append((name, trimmed(read_wav(file))))
            elif row["category"] in DISTRACTOR_CATEGORIES:
                distractors.append((name, trimmed(read_wav(file))))
    return steps, distractors


def pink(n, rng):
    import numpy as np
    spectrum = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1]
    noise = np.fft.irfft(spectrum / np.sqrt(f), n)
    return noise / np.sqrt(np.mean(noise ** 2))


def ceiling(x, rng, cutoff, rt60):
    import numpy as np
    from scipy.signal import butter, lfilter
    b, a = butter(2, cutoff / (RATE / 2))
    dry = lfilter(b, a, x)
    length = int(rt60 * RATE)
    t = np.arange(length) / RATE
    ir = rng.standard_normal(length) * np.exp(-6.9 * t / rt60)
    ir = lfilter(b, a, ir)
    wet = np.convolve(dry, ir)[: len(x) + length]
    wet *= 0.5 * np.sqrt(np.sum(dry ** 2) / max(np.sum(wet ** 2), 1e-20))
    out = np.zeros(len(x) + length)
    out[: len(dry)] += dry
    out[: len(wet)] += wet
    return out


def loudest_100ms_rms(x):
    import numpy as np
    window = int(0.1 * RATE)
    power = np.convolve(x ** 2, np.ones(window) / window, mode="valid") if len(x) > window else [np.mean(x ** 2)]
    return float(np.sqrt(np.max(power)))


def varied(sample, rng):
    """Training augmentation: the sample played 0.8-1.25x as fast (pitch and length
    together) with its high frequencies tilted -6 to +6 dB (a one-pole split at ~600 Hz)."""
    import numpy as np
    from scipy.signal import lfilter
    rate = rng.uniform(0.8, 1.25)
    positions = np.arange(0, len(sample) - 1, rate)
    x = np.interp(positions, np.arange(len(sample)), sample)
    a = np.exp(-2 * np.pi * 600 / RATE)
    low = lfilter([1 - a], [1, -a], x)
    return low + (x - low) * 10 ** (rng.uniform(-6, 6) / 20)


def render(index, seed, duration, steps, distractors, snr=None, augment=False):
    import numpy as np
    rng = np.random.default_rng(seed * 1000 + index)
    n = int(duration * RATE)
    signal = np.zeros(n + RATE)
    snr = [0, 5, 10, 15, 20, 25][index % 6] if snr is None else snr
    through_ceiling = rng.random() < 0.7
    cutoff, rt60 = rng.uniform(150, 400), rng.uniform(0.2, 0.5)
    truth = []
    step_levels = []

    def place(sample, at, gain):
        shaped = ceiling(sample, rng, cutoff, rt60) if through_ceiling else sample
        shaped = shaped * gain / max(loudest_100ms_rms(shaped), 1e-9)
        start = int(at * RATE)
        end = min(len(signal), start + len(shaped))
        signal[start:end] += shaped[: end - start]

    t = rng.uniform(0.5, 3)
    while t < duration - 3:
        running = rng.random() < 0.35
        cadence = rng.uniform(2.6, 3.6) if running else rng.uniform(1.6, 2.2)
        pair = [steps[i] for i in rng.choice(len(steps), 2)]
        if augment:
            pair = [(name, varied(sample, rng)) for name, sample in pair]
        for k in range(int(rng.integers(5, 17))):
            if t > duration - 1:
                break
            gain = 10 ** (rng.uniform(-2, 2) / 20)
            name, sample = pair[k % 2]
            place(sample, t, gain)
            truth.append((t, "footstep", ("running:" if running else "walking:") + name.rsplit("_", 1)[-1][:-4]))
            step_levels.append(gain)
            t += (1 / cadence) * rng.uniform(0.97, 1.03)
        t += rng.uniform(2, 10)
    onsets = np.array([s for s, _, _ in truth])
    for _ in range(int(duration / 10)):
        at = rng.uniform(0.5, duration - 2)
        if len(onsets) and np.min(np.abs(onsets - at)) < 0.4:
            continue
        name, sample = distractors[int(rng.integers(len(distractors)))]
        if augment:
            sample = varied(sample, rng)
        place(sample, at, 10 ** (rng.uniform(-6, 6) / 20))
        truth.append((at, "other", name.split("__")[0] + ":" + name.rsplit("_", 1)[-1][:-4]))
    noise_rms = 1.0 / 10 ** (snr / 20)  # the steps' loudest 100 ms are at RMS 1 (± jitter)
    hum = np.sin(2 * np.pi * 50 * np.arange(len(signal)) / RATE) + 0.5 * np.sin(2 * np.pi * 150 * np.arange(len(signal)) / RATE)
    background = pink(len(signal), rng) + 0.3 * hum
    background *= noise_rms / np.sqrt(np.mean(background ** 2))
    mixed = signal + background
    mixed *= 0.25 / np.max(np.abs(mixed))
    truth.sort()
    return mixed[:n], truth, snr, through_ceiling


def write_wav(path, x):
    import numpy as np
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())


def write_truth(path, truth):
    with open(path, "w") as f:
        f.write("onset_s,kind,label\n")
        for t, kind, label in truth:
            f.write(f"{t:.4f},{kind},{label}\n")


def score(truth, detections, tolerance=0.05):
    steps = [t for t, kind, _ in truth if kind == "footstep"]
    others = [t for t, kind, _ in truth if kind == "other"]
    footsteps = sorted(t for t, label in detections if label != "other")
    used = [False] * len(footsteps)
    tp = 0
    for onset in steps:
        best = None
        for i, d in enumerate(footsteps):
            if not used[i] and abs(d - onset) <= tolerance and (best is None or abs(d - onset) < abs(footsteps[best] - onset)):
                best = i
        if best is not None:
            used[best] = True
            tp += 1
    false = [footsteps[i] for i in range(len(footsteps)) if not used[i]]
    on_distractor = sum(1 for d in false if any(abs(d - o) <= tolerance for o in others))
    return tp, len(false), len(steps) - tp, on_distractor, len(others)


def make_training(args, steps, distractors):
    """Labelled training recordings from the training side's samples (footstep-dataset --labelled)."""
    import numpy as np
    os.makedirs(args.make_training, exist_ok=True)
    rng = np.random.default_rng(args.seed + 7_000)
    for i in range(args.files):
        snr = float(rng.uniform(0, 25))
        audio, truth, _, through = render(i, args.seed + 7_000, args.duration, steps, distractors, snr=snr,
                                          augment=args.augment)
        name = os.path.join(args.make_training, f"{args.prefix}train{i:03d}-snr{snr:04.1f}-{'ceiling' if through else 'room'}")
        write_wav(name + ".wav", audio)
        write_truth(name + ".csv", truth)
    print(f"wrote {args.files} labelled recordings to {args.make_training}")


def main():
    ensure_venv()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="/tmp/train-data/wav", help="fetch.sh OUTDIR/wav")
    ap.add_argument("--files", type=int, default=12)
    ap.add_argument("--duration", type=float, default=180)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--footstepctl", default=os.path.join(ROOT, ".build", "release", "footstepctl"))
    ap.add_argument("--work", default=None, help="keep the audio, truth and analysis here")
    ap.add_argument("--analyze-args", default="", help="extra arguments for footstepctl analyze")
    ap.add_argument("--make-training", metavar="DIR",
                    help="instead of the check, write labelled recordings from the training side's samples to DIR")
    ap.add_argument("--augment", action="store_true",
                    help="with --make-training: vary each bout's samples in speed (0.8-1.25x) and tilt (±6 dB)")
    ap.add_argument("--prefix", default="", help="with --make-training: a prefix for the file names (several batches)")
    args = ap.parse_args()
    manifest = os.path.join(ROOT, "tools", "training-data", "manifest.csv")
    steps, distractors = sounds(manifest, args.data, "train" if args.make_training else "check")
    if not steps or not distractors:
        sys.exit(f"no recordings in {args.data}: run tools/training-data/fetch.sh first")
    if args.make_training:
        return make_training(args, steps, distractors)
    work = args.work or tempfile.mkdtemp(prefix="footstep-real-check.")
    os.makedirs(work, exist_ok=True)
    print(f"{len(steps)} footstep samples, {len(distractors)} distractor recordings; work directory {work}")
    files, truths = [], {}
    for i in range(args.files):
        audio, truth, snr, through = render(i, args.seed, args.duration, steps, distractors)
        name = f"real{i:02d}-snr{snr:02d}-{'ceiling' if through else 'room'}"
        write_wav(os.path.join(work, name + ".wav"), audio)
        write_truth(os.path.join(work, name + ".csv"), truth)
        truths[name] = truth
        files.append(os.path.join(work, name + ".wav"))
    subprocess.check_call([args.footstepctl, "analyze", "--output", os.path.join(work, "out"), *args.analyze_args.split(), *files],
                          stdout=subprocess.DEVNULL)
    total = [0, 0, 0, 0, 0]
    by_snr = {}
    for name, truth in truths.items():
        with open(os.path.join(work, "out", name + ".csv")) as f:
            detections = [(float(r["onset_s"]), r["label"]) for r in csv.DictReader(f)]
        s = score(truth, detections)
        total = [a + b for a, b in zip(total, s)]
        snr = int(name.split("-snr")[1][:2])
        by_snr[snr] = [a + b for a, b in zip(by_snr.get(snr, [0, 0, 0, 0, 0]), s)]
        print(f"{name}: {line(s, args.duration)}")
    for snr in sorted(by_snr):
        print(f"SNR {snr:2d} dB: {line(by_snr[snr], args.duration * sum(1 for n in truths if f'-snr{snr:02d}' in n))}")
    print(f"ALL: {line(total, args.duration * len(truths))}")


def line(s, seconds):
    tp, fp, fn, on_distractor, distractors = s
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return (f"F1 {f1:.3f} precision {p:.3f} recall {r:.3f} (TP {tp} FP {fp} FN {fn}); "
            f"distractors as footsteps {on_distractor}/{distractors}, false footsteps {3600 * fp / seconds:.0f}/h")


if __name__ == "__main__":
    main()
