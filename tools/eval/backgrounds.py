"""Background sound families for evaluation and training clips.

Each generator returns `n` samples at 16 kHz with unit RMS. A clip mixes one to
three families. Speech ("tv") comes from recorded IVR prompts and from
espeak-ng in a dozen languages through a TV's band and the room; music from
recorded tracks; the rest is synthesised (noise colours, mains hum, HVAC
rumble, rain, traffic swells, appliances).
"""
import os
import subprocess
import tempfile

import numpy as np
from scipy import signal

from sources import RATE, read_wav

FAMILIES = ("pink", "brown", "hum", "hvac", "rain", "traffic", "appliance", "tv", "music", "babble")
TV_LANGUAGES = ("en", "de", "fr", "es", "it", "pl", "ru", "tr", "ar", "hi", "zh", "pt", "nl", "ko")
TV_TEXT = ("Good evening, here is the news. The council met today to discuss the new plans for the town centre, "
           "and residents raised questions about noise, traffic and the hours of the building work. "
           "Tomorrow will be cloudy with some rain in the afternoon, and a cold night to follow.")


def _unit(x):
    return x / (np.sqrt(np.mean(x ** 2)) + 1e-12)


def _coloured(rng, n, exponent):
    spectrum = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1]
    return _unit(np.fft.irfft(spectrum / f ** (exponent / 2), n))


def _loop(rng, x, n):
    if len(x) >= n:
        start = int(rng.integers(0, len(x) - n + 1))
        return x[start:start + n]
    reps = int(np.ceil(n / len(x))) + 1
    y = np.tile(x, reps)
    start = int(rng.integers(0, len(x)))
    return y[start:start + n]


def espeak_voices(cache_dir):
    """WAVs of TV_TEXT spoken by espeak-ng in TV_LANGUAGES (made once, cached)."""
    os.makedirs(cache_dir, exist_ok=True)
    out = []
    for lang in TV_LANGUAGES:
        path = os.path.join(cache_dir, f"tv-{lang}.wav")
        if not os.path.exists(path):
            with tempfile.NamedTemporaryFile(suffix=".wav") as raw:
                subprocess.run(["espeak-ng", "-v", lang, "-s", "165", "-w", raw.name, TV_TEXT], check=True,
                               capture_output=True)
                subprocess.run(["sox", "-q", raw.name, "-r", str(RATE), "-c", "1", "-b", "16", path], check=True)
        out.append(read_wav(path))
    return out


SYNTHETIC = ("pink", "brown", "hum", "hvac", "rain", "traffic", "appliance")


class Backgrounds:
    def __init__(self, speech, music, tv_voices, families=FAMILIES):
        self.speech = speech
        self.music = music
        self.tv = tv_voices
        self.families = families

    def make(self, family, rng, n):
        if family == "pink":
            return _coloured(rng, n, 1.0)
        if family == "brown":
            return _coloured(rng, n, 2.0)
        if family == "hum":
            t = np.arange(n) / RATE
            f0 = rng.choice([50.0, 60.0])
            x = sum(rng.uniform(0.2, 1) / k * np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 6)) for k in range(1, 6))
            return _unit(x + 0.05 * _coloured(rng, n, 1.0))
        if family == "hvac":
            rumble = signal.sosfilt(signal.butter(4, rng.uniform(60, 200) / (RATE / 2), output="sos"), rng.standard_normal(n))
            t = np.arange(n) / RATE
            fan = np.sin(2 * np.pi * rng.uniform(20, 45) * t) * rng.uniform(0.1, 0.5)
            return _unit(_unit(rumble) + fan + 0.2 * _coloured(rng, n, 1.0))
        if family == "rain":
            hiss = signal.sosfilt(signal.butter(2, [800 / (RATE / 2), 6000 / (RATE / 2)], btype="band", output="sos"),
                                  rng.standard_normal(n))
            drops = np.zeros(n)
            idx = rng.integers(0, n, int(n / RATE * rng.uniform(50, 400)))
            drops[idx] = rng.standard_normal(len(idx)) * 4
            drops = signal.sosfilt(signal.butter(2, [1500 / (RATE / 2), 7000 / (RATE / 2)], btype="band", output="sos"), drops)
            return _unit(_unit(hiss) + _unit(drops) * 0.7)
        if family == "traffic":
            base = signal.sosfilt(signal.butter(3, rng.uniform(150, 500) / (RATE / 2), output="sos"), rng.standard_normal(n))
            knots = rng.uniform(0.2, 1.5, max(3, n // (RATE * 4)))
            swell = np.interp(np.arange(n), np.linspace(0, n, len(knots)), knots)
            return _unit(base * swell)
        if family == "appliance":
            t = np.arange(n) / RATE
            f0 = rng.uniform(90, 320)
            x = sum(rng.uniform(0.1, 1) * np.sin(2 * np.pi * f0 * k * t) for k in range(1, 4))
            on = (np.sin(2 * np.pi * t / rng.uniform(8, 30) + rng.uniform(0, 6)) > -0.3).astype(float)
            on = signal.lfilter(*signal.butter(1, 5 / (RATE / 2)), on)
            return _unit(_unit(x) * (0.2 + on) + 0.3 * _coloured(rng, n, 1.0))
        if family == "tv":
            voices = self.tv + self.speech
            parts = []
            total = 0
            while total < n:
                v = voices[int(rng.integers(len(voices)))]
                gap = np.zeros(int(rng.uniform(0.05, 0.6) * RATE))
                parts += [v * rng.uniform(0.5, 1.5), gap]
                total += len(v) + len(gap)
            x = np.concatenate(parts)[:n]
            x = signal.sosfilt(signal.butter(2, [rng.uniform(120, 250) / (RATE / 2), rng.uniform(4000, 7000) / (RATE / 2)],
                                             btype="band", output="sos"), x)
            if self.music and rng.random() < 0.3:
                x = _unit(x) + 0.3 * _unit(_loop(rng, self.music[int(rng.integers(len(self.music)))], n))
            return _unit(x)
        if family == "music":
            return _unit(_loop(rng, self.music[int(rng.integers(len(self.music)))], n))
        if family == "babble":
            voices = self.tv + self.speech
            x = sum(_unit(_loop(rng, voices[int(rng.integers(len(voices)))], n)) for _ in range(int(rng.integers(3, 7))))
            return _unit(x)
        raise ValueError(family)

    def mix(self, rng, n):
        """One to three families at random relative levels: (samples with unit RMS, names)."""
        k = int(rng.choice([1, 2, 3], p=[0.45, 0.4, 0.15]))
        names = list(rng.choice(self.families, size=min(k, len(self.families)), replace=False))
        x = sum(self.make(f, rng, n) * 10 ** (rng.uniform(-10, 0) / 20) for f in names)
        return _unit(x), names
