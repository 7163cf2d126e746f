"""Negatives that sound like footsteps: clips with nobody walking, one source family each.

The distractor clips (`corpus.py`) hold single impacts between silences. What
fooled footstepd on independent recordings was rhythm: music with a beat and
machines with a period. Each clip here is one such *negative family*, heard
through one of the four buildings (`transmission.py`), over a quiet
background, through a microphone chain:

- beat_music: a drum groove (kick, snare or clap from a fold's own drum kits,
  synthesised hats) at 60-180 bpm in one of several feels (four on the floor,
  backbeat, half time, shuffle, breakbeat), with a synthesised bass line; a
  third of them bass-heavy (low-passed);
- music_track: a fold's own game soundtrack, looped, full mix or low-passed
  as through a floor (only for folds whose families ship music);
- clock: one real tick (the first 8-40 ms of one of the fold's impacts)
  repeated at 1, 2, 2.5, 4 or 5 ticks a second; quartz (exact) or mechanical
  (tick and tock differ, a fraction of a millisecond of jitter);
- typing: keystrokes (short clicks cut from the fold's impacts) in words at
  4-9 keys a second, a louder space bar;
- sewing_machine: the needle at 8-20 strokes a second in runs of 1-6 s over its
  motor's whine;
- washer: a tumble dryer or washing machine drum turning at 40-90 rpm, a load
  falling once or twice a turn (one of the fold's thuds, low-passed) over a rumble;
- dripping: drops every 0.3-3 s, a resonant plink with a falling pitch;
- ball: a ball bounced by a child (a dribble at 1.3-2.5 bounces a second) or dropped
  and left to bounce down (one of the fold's thuds or drops);
- fire: crackle (5-40 pops a second, some loud) over a hiss;
- rain_window: rain on a window, hiss and hundreds of drops a second with louder
  single drops;
- traffic: a street, vehicles passing every 3-15 s, now and then a thump over a
  manhole cover;
- radio: speech and music in another room (`backgrounds.Backgrounds`' tv).

A family's sounds come from the fold's recording families only (the kits, the
music, the impacts), so on unseen folds they are unseen sounds; the rhythms
are drawn from the same ranges everywhere. Each clip is deterministic in
(seed, index). Ground truth: `CLIP.csv` with an `other:<family>` row for each
placed impact (none for music tracks, whose onsets are not known), and
`clips_meta.csv` with `family` beside `scenario` (the transmission model), so
`scoring.score_directory(group_by="family", false_footsteps_only=True)` gives
the false footsteps an hour of each family.
"""
import csv
import os

import numpy as np
from scipy import signal

import transmission as tx
from sources import RATE, write_wav

FAMILIES = ("beat_music", "music_track", "clock", "typing", "sewing_machine", "washer", "dripping", "ball", "fire",
            "rain_window", "traffic", "radio")
# Families that need a fold's own recordings: music tracks, impacts to cut ticks, clicks and thuds from.
NEEDS = {"music_track": "music", "clock": "impacts", "typing": "impacts", "washer": "impacts", "ball": "impacts",
         "beat_music": "kit"}
# The quiet room under every negative clip (`backgrounds.Backgrounds` families).
QUIET = ("pink", "brown", "hum", "hvac")
CLOCK_RATES = (1.0, 2.0, 2.5, 4.0, 5.0)
FEELS = ("four_on_the_floor", "backbeat", "half_time", "shuffle", "breakbeat")


def _lowpass(x, hz, order=2):
    return signal.sosfilt(signal.butter(order, hz / (RATE / 2), output="sos"), x)


def _highpass(x, hz, order=2):
    return signal.sosfilt(signal.butter(order, hz / (RATE / 2), btype="high", output="sos"), x)


def _band(x, lo, hi, order=2):
    return signal.sosfilt(signal.butter(order, [lo / (RATE / 2), hi / (RATE / 2)], btype="band", output="sos"), x)


def _peak1(x):
    return x / (np.max(np.abs(x)) + 1e-12)


def _cut(x, seconds, decay):
    """The first `seconds` of `x` under an exponential decay of `decay` seconds, faded out: a click from an impact."""
    n = max(16, int(seconds * RATE))
    y = x[:n] * np.exp(-np.arange(min(n, len(x))) / (decay * RATE))
    f = max(1, len(y) // 4)
    y[-f:] *= np.linspace(1, 0, f)
    return _peak1(y)


class Scene:
    """A family's dry sound over a clip, before the building: samples and truth rows."""

    def __init__(self, seconds):
        self.n = int(seconds * RATE)
        self.x = np.zeros(self.n + RATE)
        self.truth = []

    def place(self, t, sound, gain_db, label=None):
        i = int(round(t * RATE))
        if i < 0 or i >= self.n:
            return
        j = min(len(self.x), i + len(sound))
        self.x[i:j] += sound[: j - i] * 10 ** (gain_db / 20)
        if label:
            self.truth.append((t, t + len(sound) / RATE, "other:" + label))


def kit_roles(hits):
    """A kit's hits as (kicks, snares): kicks by name (kick, bd, bassdrum) or, in a kit without them, the half with the
    lowest spectral centroid; snares (snare, sd, clap) likewise the brightest half."""
    def named(words):
        return [h for h in hits if any(w in h.name.lower() for w in words)]

    def centroid(h):
        spectrum = np.abs(np.fft.rfft(h.samples[: RATE // 4], n=RATE // 2))
        return float(np.sum(spectrum * np.arange(len(spectrum))) / (np.sum(spectrum) + 1e-12))

    ordered = sorted(hits, key=centroid)
    kicks = named(("kick", "bd", "bassdrum")) or ordered[: max(1, len(ordered) // 2)]
    snares = [h for h in named(("snare", "sd", "clap")) if h not in kicks] or ordered[len(ordered) // 2:] or ordered
    return kicks, snares


def _hat(rng, open_hat=False):
    n = int((0.25 if open_hat else 0.05) * RATE)
    x = _highpass(rng.standard_normal(n), rng.uniform(5000, 7000), 4)
    return _peak1(x * np.exp(-np.arange(n) / (RATE * (0.08 if open_hat else 0.012))))


def _bass_note(rng, hz, seconds):
    t = np.arange(int(seconds * RATE)) / RATE
    x = np.sin(2 * np.pi * hz * t) + 0.4 * np.sin(4 * np.pi * hz * t) + 0.15 * np.sin(6 * np.pi * hz * t)
    env = np.minimum(1, t / 0.005) * np.exp(-t / rng.uniform(0.15, 0.6))
    return _peak1(x * env)


def beat_music(scene, rng, sources):
    """A drum groove with a bass line at 60-180 bpm (module docstring); truth rows on kicks and snares."""
    kits = sorted({h.family for h in sources["kit"]})
    kit = [h for h in sources["kit"] if h.family == kits[int(rng.integers(len(kits)))]]
    kicks, snares = kit_roles(kit)
    kick, snare = kicks[int(rng.integers(len(kicks)))].samples, snares[int(rng.integers(len(snares)))].samples
    feel = FEELS[int(rng.integers(len(FEELS)))]
    bpm = float(rng.uniform(60, 180))
    beat = 60 / bpm
    swing = rng.uniform(0.1, 0.3) if feel == "shuffle" else 0.0
    # Positions in sixteenths of a bar of four beats: kick, snare.
    kick_at = {"four_on_the_floor": (0, 4, 8, 12), "backbeat": (0, 8, 10), "half_time": (0, 7),
               "shuffle": (0, 6, 8), "breakbeat": (0, 6, 10, 11)}[feel]
    snare_at = {"four_on_the_floor": (4, 12), "backbeat": (4, 12), "half_time": (8,), "shuffle": (4, 12),
                "breakbeat": (4, 12, 15)}[feel]
    hats = (_hat(rng), _hat(rng, open_hat=True))
    hat_every = int(rng.choice([2, 4]))
    root = float(np.exp(rng.uniform(np.log(41), np.log(98))))  # E1-G2
    riff = [root * 2 ** (int(s) / 12) for s in rng.choice([0, 0, 3, 5, 7, 10, 12], size=4)]
    bass_level = rng.uniform(-6, 3)
    t0 = rng.uniform(0, beat)
    bar = 0
    while t0 + bar * 4 * beat < scene.n / RATE:
        start = t0 + bar * 4 * beat
        for s in range(16):
            t = start + s * beat / 4 + (swing * beat / 4 if s % 2 else 0.0)
            if s in kick_at:
                scene.place(t, kick, rng.normal(0, 1), "beat_music")
                scene.place(t, _bass_note(rng, riff[(s // 4) % 4], beat), bass_level)
            if s in snare_at:
                scene.place(t, snare, rng.normal(-2, 1), "beat_music")
            if s % hat_every == 0:
                scene.place(t, hats[int(s % 8 == 6)], rng.uniform(-16, -10))
        bar += 1
    if rng.random() < 1 / 3:
        scene.x = _lowpass(scene.x, rng.uniform(120, 300), 4)


def music_track(scene, rng, sources):
    """A fold's own soundtrack, looped from a random point; a third of them low-passed as through a floor."""
    tracks = sources["music"]
    x = tracks[int(rng.integers(len(tracks)))]
    start = int(rng.integers(0, max(1, len(x) - len(scene.x))))
    y = np.resize(np.roll(x, -start), len(scene.x))
    scene.x += y / (np.max(np.abs(y)) + 1e-12)
    if rng.random() < 1 / 3:
        scene.x = _lowpass(scene.x, rng.uniform(120, 300), 4)


def _click(rng, sources, seconds=(0.008, 0.04)):
    impacts = sources["impacts"]
    x = impacts[int(rng.integers(len(impacts)))].samples
    return _highpass(_cut(x, rng.uniform(*seconds), rng.uniform(0.003, 0.015)), rng.uniform(300, 2500))


def clock(scene, rng, sources):
    """One tick at 1, 2, 2.5, 4 or 5 a second: quartz (every tick alike, exact) or mechanical (tick and tock, jitter)."""
    rate = CLOCK_RATES[int(rng.integers(len(CLOCK_RATES)))]
    tick = _click(rng, sources)
    mechanical = rng.random() < 0.5
    tock = _peak1(signal.resample(tick, int(len(tick) * rng.uniform(0.85, 1.15)))) if mechanical else tick
    tock_db = rng.uniform(-4, 0) if mechanical else 0.0
    t, k = rng.uniform(0, 1 / rate), 0
    while t < scene.n / RATE:
        jitter = rng.normal(0, 0.0004) if mechanical else 0.0
        scene.place(t + jitter, tick if k % 2 == 0 else tock, 0.0 if k % 2 == 0 else tock_db, "clock")
        t, k = t + 1 / rate, k + 1


def typing(scene, rng, sources):
    """Words of 2-9 keystrokes at 4-9 keys a second, a louder space bar between them, pauses to think."""
    keys = [_click(rng, sources, (0.01, 0.03)) for _ in range(4)]
    space = _lowpass(_click(rng, sources, (0.02, 0.05)), 3000)
    rate = rng.uniform(4, 9)
    t = rng.uniform(0, 1)
    while t < scene.n / RATE:
        for _ in range(int(rng.integers(2, 10))):
            scene.place(t, keys[int(rng.integers(len(keys)))], rng.normal(-3, 2), "typing")
            t += rng.gamma(4, 1 / (4 * rate))
        scene.place(t, space, rng.normal(0, 1), "typing")
        t += rng.gamma(4, 1 / (4 * rate)) + (rng.uniform(0.5, 3) if rng.random() < 0.15 else 0)


def sewing_machine(scene, rng, sources):
    """Runs of 1-6 s of needle strokes at 8-20 a second over the motor's whine; pauses between runs."""
    stroke = _peak1(_band(rng.standard_normal(int(0.02 * RATE)), 800, 5000) * np.exp(-np.arange(int(0.02 * RATE)) / 60))
    thump = _peak1(_lowpass(rng.standard_normal(int(0.03 * RATE)), 300) * np.exp(-np.arange(int(0.03 * RATE)) / 120))
    t = rng.uniform(0, 1)
    while t < scene.n / RATE:
        rate, run = rng.uniform(8, 20), rng.uniform(1, 6)
        end = t + run
        whine_t = np.arange(int(run * RATE)) / RATE
        whine = np.sin(2 * np.pi * rate * rng.integers(4, 9) * whine_t) * 0.05
        scene.place(t, whine, 0.0)
        while t < end:
            scene.place(t, stroke, rng.normal(-4, 1), "sewing_machine")
            scene.place(t + 0.004, thump, rng.normal(-2, 1))
            t += 1 / rate
        t += rng.uniform(0.5, 4)


def washer(scene, rng, sources):
    """A drum turning at 40-90 rpm, its load falling once or twice a turn, over a low rumble."""
    thuds = [s for s in sources["impacts"] if s.category in ("thud", "drop")] or sources["impacts"]
    fall = _lowpass(thuds[int(rng.integers(len(thuds)))].samples[: int(0.4 * RATE)], rng.uniform(200, 800))
    fall = _peak1(fall)
    turn = 60 / rng.uniform(40, 90)
    falls = int(rng.integers(1, 3))
    t = rng.uniform(0, turn)
    while t < scene.n / RATE:
        for k in range(falls):
            scene.place(t + k * turn / falls + rng.normal(0, 0.03), fall, rng.normal(0, 2), "washer")
        t += turn
    rumble = _lowpass(rng.standard_normal(len(scene.x)), rng.uniform(60, 150), 4)
    scene.x += _peak1(rumble) * rng.uniform(0.05, 0.2)


def dripping(scene, rng, sources):
    """A drop every 0.3-3 s (a little irregular): a short plink whose pitch falls."""
    period = rng.uniform(0.3, 3)
    n = int(0.08 * RATE)
    t = np.arange(n) / RATE
    t0 = rng.uniform(0, period)
    while t0 < scene.n / RATE:
        hz = rng.uniform(500, 2000)
        plink = np.sin(2 * np.pi * hz * (t - 0.5 * rng.uniform(0.5, 3) * t ** 2 * hz)) * np.exp(-t / 0.015)
        scene.place(t0, _peak1(plink), rng.normal(0, 2), "dripping")
        t0 += period * (1 + rng.normal(0, 0.05))


def ball(scene, rng, sources):
    """A child's dribble (1.3-2.5 bounces a second for 3-15 s) or a ball dropped and bouncing down."""
    pool = [s for s in sources["impacts"] if s.category in ("thud", "drop", "knock")] or sources["impacts"]
    bounce = _peak1(pool[int(rng.integers(len(pool)))].samples[: int(0.3 * RATE)])
    t = rng.uniform(0, 2)
    while t < scene.n / RATE:
        if rng.random() < 0.6:
            rate, end = rng.uniform(1.3, 2.5), t + rng.uniform(3, 15)
            while t < end:
                scene.place(t, bounce, rng.normal(0, 1.5), "ball")
                t += 1 / rate * (1 + rng.normal(0, 0.04))
        else:
            gap, level = rng.uniform(0.4, 0.8), 0.0
            while gap > 0.05:
                scene.place(t, bounce, level, "ball")
                t, gap, level = t + gap, gap * rng.uniform(0.7, 0.85), level - rng.uniform(1, 2.5)
        t += rng.uniform(1, 8)


def _pops(scene, rng, per_second, width, band, level_db, label=None):
    count = rng.poisson(per_second * scene.n / RATE)
    n = int(width * RATE)
    for t in np.sort(rng.uniform(0, scene.n / RATE, count)):
        pop = _band(rng.standard_normal(n), *band) * np.exp(-np.arange(n) / (n / 4))
        scene.place(t, _peak1(pop), level_db + rng.normal(0, 4), label)


def fire(scene, rng, sources):
    """Crackle: 5-40 pops a second, a few loud ones, over a hiss."""
    _pops(scene, rng, rng.uniform(5, 40), 0.006, (600, 6000), -10)
    _pops(scene, rng, rng.uniform(0.2, 1.5), 0.02, (200, 4000), 0, "fire")
    scene.x += _peak1(_band(rng.standard_normal(len(scene.x)), 300, 3000)) * 0.03


def rain_window(scene, rng, sources):
    """Rain on a window: hiss, hundreds of small drops a second and some heavy ones."""
    scene.x += _peak1(_band(rng.standard_normal(len(scene.x)), 800, 6000)) * 0.05
    _pops(scene, rng, rng.uniform(100, 400), 0.003, (1500, 7000), -20)
    _pops(scene, rng, rng.uniform(0.5, 4), 0.008, (400, 5000), -2, "rain_window")


def traffic(scene, rng, sources):
    """A street: a vehicle passing every 3-15 s (a swell of engine and tyre noise), now and then a thump."""
    seconds = len(scene.x) / RATE
    t = rng.uniform(0, 3)
    while t < seconds:
        length = rng.uniform(3, 8)
        n = int(length * RATE)
        pass_by = _lowpass(rng.standard_normal(n), rng.uniform(200, 1500), 3)
        env = np.exp(-((np.arange(n) / RATE - length / 2) / (length / 5)) ** 2)
        scene.place(t, _peak1(pass_by * env), rng.uniform(-10, 0), "traffic")
        if rng.random() < 0.2:
            thump = _lowpass(rng.standard_normal(int(0.15 * RATE)), 150, 4) * np.exp(-np.arange(int(0.15 * RATE)) / 800)
            scene.place(t + length / 2, _peak1(thump), 0.0, "traffic")
        t += rng.uniform(3, 15)


def radio(scene, rng, sources):
    """Speech and music from a radio or TV (`backgrounds.Backgrounds`' tv family, which mixes music in a third of the
    time)."""
    scene.x += _peak1(sources["backgrounds"].make("tv", rng, len(scene.x)))


GENERATORS = {f: globals()[f] for f in FAMILIES}


def available(sources):
    """The families a fold's sources can make (a fold without music has no music_track)."""
    return [f for f in FAMILIES if f not in NEEDS or len(sources.get(NEEDS[f], ())) > 0]


def make_clip(rng, sources, family, model, mic, seconds):
    """One negative clip: (samples, truth rows, meta). The family's scene goes through the building, then a quiet
    synthetic background 15-40 dB below it, the level of a recording, and the microphone chain."""
    building = tx.Transmission(tx.draw(model, rng))
    scene = Scene(seconds)
    GENERATORS[family](scene, rng, sources)
    heard = building.apply(scene.x)[: scene.n]
    rms = np.sqrt(np.mean(heard ** 2)) + 1e-12
    bg_rng = np.random.default_rng(rng.integers(1 << 30))
    bg, names = sources["quiet"].mix(bg_rng, scene.n)
    below = float(rng.uniform(15, 40))
    mix = heard + bg * rms * 10 ** (-below / 20)
    mix *= 10 ** (rng.uniform(-35, -6) / 20) / (np.max(np.abs(mix)) + 1e-12)
    mix = tx.apply_mic(mix, tx.draw_mic(rng, mic), rng)
    peak = np.max(np.abs(mix))
    if peak > 0.99:
        mix *= 0.99 / peak
    meta = dict(scenario=model, mic=mic, family=family, background="+".join(names), below_db=round(below, 1),
                steps=0, distractor_only=1)
    return mix, sorted(scene.truth), meta


def clip_plan(seed, i, families):
    """Clip `i`: (its generator, name, family, transmission model, mic condition). Families and buildings rotate so
    every family is heard through every building."""
    from corpus import MIC_CONDITIONS
    rng = np.random.default_rng([seed, i, 7])
    family = families[i % len(families)]
    model = tx.MODELS[(i // len(families)) % len(tx.MODELS)]
    mic = MIC_CONDITIONS[(i // (len(families) * len(tx.MODELS))) % len(MIC_CONDITIONS)]
    return rng, f"{family}-{model}-{mic}-{i:03d}", family, model, mic


def build(out_dir, sources, seed, clips, seconds=45.0):
    """Writes `clips` negative clips into out_dir/gt and out_dir/clips_meta.csv (rebuilt whole: each clip is
    deterministic in `seed`, its index and the fold's families)."""
    families = available(sources)
    gt = os.path.join(out_dir, "gt")
    os.makedirs(gt, exist_ok=True)
    rows = []
    for i in range(clips):
        rng, name, family, model, mic = clip_plan(seed, i, families)
        samples, truth, meta = make_clip(rng, sources, family, model, mic, seconds)
        write_wav(os.path.join(gt, name + ".wav"), samples)
        with open(os.path.join(gt, name + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["onset_s", "offset_s", "label"])
            for on, off, label in truth:
                w.writerow([f"{on:.4f}", f"{off:.4f}", label])
        rows.append(dict(clip=name, **meta))
    with open(os.path.join(out_dir, "clips_meta.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return rows


def fold_sources(fold_data, backgrounds, quiet):
    """A fold's ingredients for `build`: its drum-kit hits (`kit`), its other impacts (`impacts`), its own music
    (`music`), the backgrounds for the radio, and the quiet backgrounds under every clip (`quiet`)."""
    distractors = fold_data["distractors"]
    return dict(kit=[d for d in distractors if d.category == "music_hit"],
                impacts=[d for d in distractors if d.category in ("knock", "drop", "thud", "door")],
                music=fold_data.get("music", []), backgrounds=backgrounds, quiet=quiet)
