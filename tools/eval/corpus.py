"""Builds labelled clips from real recordings: the evaluation corpus and the training recordings.

A clip is one building (transmission model), one microphone chain, one
background mix and one SNR. Its footsteps come in bouts of one type:

- heel_strike: a walk at 1.4-2.3 steps/s, the walker's own two samples (left, right);
- running: 2.5-3.8 steps/s, the samples 5-25 % faster and cut short, a little louder;
  sometimes a child (faster still, higher, quieter);
- stomping: 0.9-1.9 steps/s, 6-12 dB above the walker's ordinary level with a
  stronger low end and a harder drive of the floor;
- shuffling: 0.9-1.8 steps/s, a soft attack and a dragged scrape of 150-450 ms.

A step's type is relative to its walker: the same samples make every type,
so only cadence, the relation to the walker's ordinary steps and the
envelope tell them apart (as in a real flat). Some clips have a second walker
at the same time. Distractors (doors, drops, knocks, thuds, drum hits, laughs
and coughs, chairs dragged) land between steps, alone or in groups (a knock's
2-4 raps, a drum pattern, a fit of coughing, a chair dragged and set down), and
some clips hold only distractors and background. Ground truth is written in
the independent scorer's format: CLIP.wav with CLIP.csv
`onset_s,offset_s,label` (a footstep type or `other:<category>`), and
`clips_meta.csv` beside the folder (scenario = transmission model).

Training recordings may be built with *source randomisation* (`randomised`):
each walker's two samples, and each distractor, pass through a random
change of the sound itself before it enters the building (`randomise_source`):
another speed (a lighter or heavier body, another shoe), another spectral
balance and a shorter or longer ring. The classifier then cannot learn the
exact colour of the few recorded footfalls. Evaluation clips are never
randomised.
"""
import csv
import os
import subprocess

import numpy as np
from scipy import signal

import transmission as tx
from sources import RATE, write_wav

TYPES = ("heel_strike", "running", "stomping", "shuffling")
CADENCE = {"heel_strike": (1.4, 2.3), "running": (2.5, 3.8), "stomping": (0.9, 1.9), "shuffling": (0.9, 1.8)}
MIC_CONDITIONS = ("clean", "cheap_mic", "drift_clip")


def _resample(x, speed):
    n = max(16, int(len(x) / speed))
    return signal.resample(x, n)


def _fade_out(x, seconds):
    n = min(len(x), int(seconds * RATE))
    y = x[:n].copy()
    f = min(n // 3, int(0.03 * RATE))
    if f > 0:
        y[-f:] *= np.linspace(1, 0, f)
    return y


def step_variant(x, kind, rng, child=False):
    """The dry sound of one step of `kind` from a walker's sample `x` (peak 1):
    (samples, structure gain, level offset dB relative to the walker)."""
    if kind == "heel_strike":
        return x, 1.0, rng.normal(0, 1.0)
    if kind == "running":
        speed = rng.uniform(1.2, 1.45) if child else rng.uniform(1.05, 1.25)
        y = _fade_out(_resample(x, speed), rng.uniform(0.1, 0.2))
        return y, 1.2, (-7 if child else 0) + rng.uniform(1, 4)
    if kind == "stomping":
        y = _resample(x, rng.uniform(0.8, 0.95))
        sos = signal.butter(2, rng.uniform(150, 300) / (RATE / 2), output="sos")
        y = y + rng.uniform(1.0, 2.5) * signal.sosfilt(sos, y)
        y /= np.max(np.abs(y)) + 1e-12
        return y, rng.uniform(2.0, 3.5), rng.uniform(6, 12)
    if kind == "shuffling":
        n = len(x) + int(0.5 * RATE)
        y = np.zeros(n)
        y[: len(x)] = x * rng.uniform(0.3, 0.6)
        attack = int(rng.uniform(0.015, 0.05) * RATE)
        y[:attack] *= np.linspace(0, 1, attack)
        length = int(rng.uniform(0.15, 0.45) * RATE)
        lo, hi = rng.uniform(200, 600), rng.uniform(1500, 5000)
        scrape = signal.sosfilt(signal.butter(2, [lo / (RATE / 2), hi / (RATE / 2)], btype="band", output="sos"),
                                rng.standard_normal(length))
        env = np.sin(np.linspace(0, np.pi, length)) ** rng.uniform(0.5, 1.5)
        env *= 1 + 0.5 * np.sin(2 * np.pi * rng.uniform(8, 25) * np.arange(length) / RATE)
        scrape = scrape * env / (np.max(np.abs(scrape * env)) + 1e-12) * rng.uniform(0.3, 0.8)
        start = int(rng.uniform(0.0, 0.03) * RATE)
        y[start:start + length] += scrape
        return y, 0.6, rng.uniform(-6, -2)
    raise ValueError(kind)


def randomise_source(x, rng):
    """The same event as another source might make it: speed 0.8-1.25 (pitch and length together), a tilt
    of -6 to +6 dB an octave around 500 Hz, one resonance or notch of -9 to +9 dB at 80-4000 Hz and, half
    the time, a ring cut short (decay 40-300 ms). Peak 1."""
    y = _resample(x, rng.uniform(0.8, 1.25))
    spectrum = np.fft.rfft(y, n=2 * len(y))
    f = np.maximum(np.fft.rfftfreq(2 * len(y), 1 / RATE), 20.0)
    gain_db = rng.uniform(-6, 6) * np.log2(f / 500)
    centre, q = np.exp(rng.uniform(np.log(80), np.log(4000))), rng.uniform(0.7, 3)
    gain_db += rng.uniform(-9, 9) / (1 + (q * (f / centre - centre / f)) ** 2)
    y = np.fft.irfft(spectrum * 10 ** (np.clip(gain_db, -24, 24) / 20))[: len(y)]
    if rng.random() < 0.5:
        t = np.arange(len(y)) / RATE
        onset = np.argmax(np.abs(y)) / RATE
        y *= np.exp(-np.maximum(t - onset, 0) / rng.uniform(0.04, 0.3))
    return y / (np.max(np.abs(y)) + 1e-12)


class Track:
    """The events of one clip before mixing: dry sounds placed in time, rendered through the building."""

    def __init__(self, seconds, building):
        self.n = int(seconds * RATE)
        self.steps = np.zeros(self.n + 2 * RATE)
        self.others = np.zeros(self.n + 2 * RATE)
        self.truth = []
        self.building = building
        self.step_levels = []

    def place(self, t, x, label, gain_db, structure_gain=1.0):
        y = self.building.apply(x, structure_gain) * 10 ** (gain_db / 20)
        i = int(t * RATE)
        if i >= self.n:
            return False
        j = min(len(self.steps), i + len(y))
        target = self.others if label.startswith("other") else self.steps
        target[i:j] += y[: j - i]
        self.truth.append((t, t + len(x) / RATE, label))
        if not label.startswith("other"):
            self.step_levels.append(_loudest_100ms(y))
        return True

    def free(self, t, gap):
        return all(abs(t - on) >= gap for on, _, _ in self.truth)


def _loudest_100ms(y):
    w = int(0.1 * RATE)
    if len(y) <= w:
        return float(np.sqrt(np.mean(y ** 2)))
    c = np.cumsum(np.concatenate([[0], y ** 2]))
    return float(np.sqrt(np.max(c[w:] - c[:-w]) / w))


def add_bout(track, rng, steps, t, kind, walker_db, child=False, until=None, randomiser=None):
    """A bout of `kind` from `t`; returns when it ends. With `randomiser` (a generator) the walker's two samples
    are randomised alike (`randomise_source`: one walker, one pair of shoes)."""
    a, b = rng.choice(len(steps), size=2, replace=len(steps) < 2)
    samples = (steps[a].samples, steps[b].samples)
    if randomiser is not None:
        state = randomiser.bit_generator.state
        first = randomise_source(samples[0], randomiser)
        randomiser.bit_generator.state = state
        samples = (first, randomise_source(samples[1], randomiser))
    cadence = rng.uniform(*CADENCE[kind]) * (1.15 if child else 1.0)
    count = int(rng.integers(4, 19))
    for i in range(count):
        if until is not None and t > until:
            break
        x, structure, level = step_variant(samples[i % 2], kind, rng, child)
        track.place(t, x, kind, walker_db + level, structure)
        t += (1 / cadence) * (1 + rng.normal(0, 0.04))
    return t


def add_distractors(track, rng, distractors, seconds, per_minute, randomiser=None):
    """Distractors between the steps; with `randomiser` (a generator) each is randomised (`randomise_source`)."""
    def sound(d, state=None):
        """d's samples, randomised; a drum pattern passes the generator's `state`, so every hit gets one change."""
        if randomiser is None:
            return d.samples
        if state is not None:
            randomiser.bit_generator.state = state
        return randomise_source(d.samples, randomiser)

    count = rng.poisson(per_minute * seconds / 60)
    for _ in range(count):
        for _attempt in range(20):
            t = rng.uniform(0.3, seconds - 1.0)
            if track.free(t, 0.3):
                break
        else:
            continue
        d = distractors[int(rng.integers(len(distractors)))]
        level = rng.uniform(-8, 10)
        if d.category == "knock" or (d.category in ("thud", "drop") and rng.random() < 0.2):
            knock = sound(d)
            for k in range(int(rng.integers(2, 5))):  # raps of a knock, a bounce
                track.place(t + k * rng.uniform(0.12, 0.25), knock, "other:" + d.category, level - 2 * k)
        elif d.category == "music_hit" and rng.random() < 0.4:
            beat = 60 / rng.uniform(80, 150)
            hits = [x for x in distractors if x.category == "music_hit" and x.family == d.family] or [d]
            kit = randomiser.bit_generator.state if randomiser is not None else None
            for k in range(int(rng.integers(3, 9))):
                h = hits[int(rng.integers(len(hits)))]
                if track.free(t + k * beat, 0.2):
                    track.place(t + k * beat, sound(h, kit), "other:music_hit", level + rng.normal(0, 1.5))
        elif d.category == "voice" and rng.random() < 0.4:
            voice = sound(d)
            for k in range(int(rng.integers(2, 4))):  # a fit of coughing, a laugh that goes on
                track.place(t + k * rng.uniform(0.35, 0.8), voice, "other:voice", level - 1.5 * k)
        elif d.category == "scrape":
            slide = sound(d)
            track.place(t, slide, "other:scrape", level - 4)
            thuds = [x for x in distractors if x.category in ("thud", "knock")]
            if thuds and rng.random() < 0.5:  # the chair set down
                h = thuds[int(rng.integers(len(thuds)))]
                track.place(t + len(slide) / RATE + rng.uniform(0.05, 0.3), sound(h), "other:" + h.category, level)
        else:
            track.place(t, sound(d), "other:" + d.category, level)


def make_clip(rng, sources, backgrounds, seconds, model, mic, with_steps, randomiser=None, path_rng=None):
    """Renders one clip: (samples, truth rows, meta). `randomiser`, a generator, randomises the sources
    (training recordings only); the clip's other draws are the same with or without it. `path_rng`, a generator, draws the building from `transmission.widen`'s
    wider ranges instead (training recordings only; the clip's other draws stay the same)."""
    params = tx.draw(model, rng)  # drawn either way: the clip's later draws from `rng` stay the same
    building = tx.Transmission(params if path_rng is None else tx.widen(model, path_rng))
    track = Track(seconds, building)
    steps = sources["steps"]
    walkers = 0
    if with_steps:
        t = rng.uniform(0.3, 3.0)
        while t < seconds - 1.5:
            kind = str(rng.choice(TYPES))
            walker_db = rng.normal(0, 3)
            child = kind == "running" and rng.random() < 0.25
            family_steps = _walker_steps(rng, steps)
            end = add_bout(track, rng, family_steps, t, kind, walker_db, child, until=seconds - 1.0,
                           randomiser=randomiser)
            if rng.random() < 0.2:  # a second walker at the same time
                other_kind = str(rng.choice(TYPES))
                add_bout(track, rng, _walker_steps(rng, steps), t + rng.uniform(0.1, 1.0), other_kind,
                         walker_db + rng.normal(-3, 3), until=seconds - 1.0, randomiser=randomiser)
                walkers = 2
            walkers = max(walkers, 1)
            t = end + rng.uniform(1.0, 6.0)
    add_distractors(track, rng, sources["distractors"], seconds,
                    per_minute=rng.uniform(3, 10) if with_steps else rng.uniform(8, 16), randomiser=randomiser)
    # Levels: the SNR is the median step's loudest 100 ms over the background RMS (distractors' median without steps).
    reference = np.median(track.step_levels) if track.step_levels else np.median(
        [_loudest_100ms(track.others[int(on * RATE):int(on * RATE) + RATE]) for on, _, _ in track.truth] or [1e-3])
    snr = float(rng.uniform(0, 25))
    bg, bg_names = backgrounds.mix(rng, len(track.steps))
    mix = track.steps + track.others + bg * reference * 10 ** (-snr / 20)
    mix = mix[: track.n]
    mix *= 10 ** (rng.uniform(-35, -6) / 20) / (np.max(np.abs(mix)) + 1e-12)
    mic_params = tx.draw_mic(rng, mic)
    mix = tx.apply_mic(mix, mic_params, rng)
    peak = np.max(np.abs(mix))
    if peak > 0.99:
        mix *= 0.99 / peak
    truth = sorted(track.truth)
    meta = dict(scenario=model, mic=mic, snr_db=round(snr, 1), background="+".join(bg_names),
                walkers=walkers, steps=sum(1 for r in truth if not r[2].startswith("other")),
                distractor_only=int(not with_steps))
    return mix, truth, meta


def _walker_steps(rng, steps):
    """One walker's pool: the steps of one recording family."""
    families = sorted({s.family for s in steps})
    f = families[int(rng.integers(len(families)))]
    pool = [s for s in steps if s.family == f]
    return pool if len(pool) >= 2 else steps


def clip_plan(seed, i, distractor_only_share=0.15):
    """Clip `i` of a fold built with `seed`: (its generator, ready for `make_clip`, name, transmission model, mic
    condition, whether it has steps)."""
    rng = np.random.default_rng([seed, i])
    model = tx.MODELS[i % len(tx.MODELS)]
    mic = MIC_CONDITIONS[(i // len(tx.MODELS)) % len(MIC_CONDITIONS)]
    with_steps = rng.random() >= distractor_only_share
    return rng, f"{model}-{mic}-{i:03d}", model, mic, with_steps


def build(out_dir, sources, backgrounds, seed, clips, seconds, distractor_only_share=0.15, audio_format="wav",
          first=0, randomised=False, wide_paths=False):
    """Writes clips `first` to `clips` - 1 into out_dir/gt and out_dir/clips_meta.csv (each deterministic in `seed`
    and its index, so a fold can be extended: with `first`, clips_meta.csv's first `first` rows are kept). With
    `wide_paths` each clip's building is drawn by `transmission.widen` (its own generator, so the clip is otherwise
    the one built without it); clips_meta.csv's `paths` column says which (`wide` or `narrow`), and a fold is only
    extended with clips of its own kind."""
    gt = os.path.join(out_dir, "gt")
    os.makedirs(gt, exist_ok=True)
    paths = "wide" if wide_paths else "narrow"
    rows = []
    if first:
        with open(os.path.join(out_dir, "clips_meta.csv"), newline="") as f:
            rows = list(csv.DictReader(f))[:first]
        if len(rows) != first:
            raise ValueError(f"{out_dir} holds {len(rows)} clips, not the {first} to extend: build it with --force")
        for row in rows:
            row.setdefault("paths", "narrow")  # folds built before wide paths existed
        if any(row["paths"] != paths for row in rows):
            raise ValueError(f"{out_dir}'s clips were built with {rows[0]['paths']} paths, not the {paths} paths "
                             "asked for: build it with --force")
    for i in range(first, clips):
        rng, name, model, mic, with_steps = clip_plan(seed, i, distractor_only_share)
        randomiser = np.random.default_rng([seed, i, 1]) if randomised else None
        path_rng = np.random.default_rng([seed, i, 2]) if wide_paths else None
        samples, truth, meta = make_clip(rng, sources, backgrounds, seconds, model, mic, with_steps, randomiser,
                                         path_rng=path_rng)
        write_wav(os.path.join(gt, name + ".wav"), samples)
        if audio_format == "flac":
            wav = os.path.join(gt, name + ".wav")
            subprocess.run(["sox", "-q", wav, os.path.join(gt, name + ".flac")], check=True)
            os.remove(wav)
        with open(os.path.join(gt, name + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["onset_s", "offset_s", "label"])
            for on, off, label in truth:
                w.writerow([f"{on:.4f}", f"{off:.4f}", label])
        rows.append(dict(clip=name, **meta, paths=paths))
    with open(os.path.join(out_dir, "clips_meta.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return rows
