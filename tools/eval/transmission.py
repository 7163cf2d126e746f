"""How a sound gets from the flat upstairs (or the same room) to the microphone.

Each model takes a dry recording (16 kHz, float) and a random generator and
returns what the microphone hears, same length plus a tail. Parameters are
drawn per clip (one floor, one room) with `draw_*`, then applied to every
step and distractor of that clip with `apply`, so a clip is one building.

- ceiling: the airborne path through a ceiling, a low-pass at 150-1200 Hz and
  the receiving room's reverberation (the old check's model, widened).
- slab: a concrete slab driven by the footfall force: the force (the dry
  sound's smoothed envelope) excites damped modes at 25-160 Hz; a weak
  airborne path (-35 to -18 dB) rides on top.
- timber: a joist floor: lower, more damped modes at 15-100 Hz, a strong
  mid-band airborne path (boards and nails) and more of the dry sound.
- same_room: the dry sound with the room's reverberation, full band.

`widen` draws a model's parameters from much wider ranges than `draw` and
adds a colouration (a smooth random EQ of the whole path): training
recordings built with `--wide-paths` hear floors and rooms beyond the four
models' ranges, as real buildings are (`docs/evaluation.md`).

After the transmission, the microphone chain (`MicChain`): a cheap mic's
high-pass (60-300 Hz) and roll-off, gain drift over the clip, clipping.
"""
import numpy as np
from scipy import signal

RATE = 16000
MODELS = ("ceiling", "slab", "timber", "same_room")


def _reverb_ir(rng, rt60, rate=RATE, bright=0.5):
    """A diffuse tail: exponentially decaying noise, darker as it decays."""
    n = int(rate * min(1.5, rt60 * 1.2))
    t = np.arange(n) / rate
    ir = rng.standard_normal(n) * np.exp(-6.91 * t / rt60)
    b, a = signal.butter(1, min(0.95, 800 + bright * 4000) / (rate / 2))
    ir = signal.lfilter(b, a, ir)
    ir[0] = 0
    ir /= np.sqrt(np.sum(ir ** 2)) + 1e-12
    return ir


def _modal_ir(rng, low, high, count, loss, rate=RATE, seconds=1.0):
    """A floor's impulse response: `count` damped modes between `low` and `high` Hz."""
    t = np.arange(int(rate * seconds)) / rate
    freqs = np.sort(np.exp(rng.uniform(np.log(low), np.log(high), count)))
    ir = np.zeros_like(t)
    for f in freqs:
        eta = loss * rng.uniform(0.6, 1.6)
        amp = rng.uniform(0.3, 1.0) / np.sqrt(f / low)
        ir += amp * np.exp(-np.pi * f * eta * t) * np.sin(2 * np.pi * f * t + rng.uniform(0, 0.3))
    return ir / (np.max(np.abs(ir)) + 1e-12)


def _force(x, rate=RATE, smoothing_hz=60.0):
    """The footfall force a dry step stands for: its rectified, smoothed envelope."""
    b, a = signal.butter(2, smoothing_hz / (rate / 2))
    env = signal.lfilter(b, a, np.abs(x))
    return np.maximum(env, 0)


def draw(model, rng):
    """Parameters of one building for `model`."""
    if model == "ceiling":
        return dict(model=model, cutoff=float(np.exp(rng.uniform(np.log(150), np.log(1200)))),
                    order=int(rng.choice([2, 4])), rt60=float(rng.uniform(0.2, 0.7)),
                    wet=float(rng.uniform(0.1, 0.5)), seed=int(rng.integers(1 << 30)))
    if model == "slab":
        return dict(model=model, low=float(rng.uniform(22, 40)), high=float(rng.uniform(90, 160)),
                    count=int(rng.integers(4, 12)), loss=float(rng.uniform(0.01, 0.05)),
                    air_db=float(rng.uniform(-35, -18)), air_cutoff=float(rng.uniform(200, 800)),
                    rt60=float(rng.uniform(0.2, 0.6)), wet=float(rng.uniform(0.05, 0.3)),
                    smoothing=float(rng.uniform(30, 120)), seed=int(rng.integers(1 << 30)))
    if model == "timber":
        return dict(model=model, low=float(rng.uniform(14, 25)), high=float(rng.uniform(60, 110)),
                    count=int(rng.integers(3, 8)), loss=float(rng.uniform(0.03, 0.09)),
                    air_db=float(rng.uniform(-18, -6)), air_band=(float(rng.uniform(120, 300)), float(rng.uniform(900, 2500))),
                    rt60=float(rng.uniform(0.2, 0.6)), wet=float(rng.uniform(0.05, 0.3)),
                    smoothing=float(rng.uniform(40, 150)), seed=int(rng.integers(1 << 30)))
    if model == "same_room":
        return dict(model=model, rt60=float(rng.uniform(0.25, 0.9)), wet=float(rng.uniform(0.1, 0.6)),
                    bright=float(rng.uniform(0.3, 1.0)), seed=int(rng.integers(1 << 30)))
    raise ValueError(f"unknown transmission model {model!r}")


def _log_uniform(rng, low, high):
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


COLOUR_BANDS = (31.5, 63, 125, 250, 500, 1000, 2000, 4000, 7900)


def widen(model, rng):
    """Parameters of one building for `model` from wider ranges than `draw`'s, with a colouration of the path
    (`colour`: a gain in dB at each of `COLOUR_BANDS`, ±10): ceilings low-passed anywhere at 80-4000 Hz with
    1-4 poles, rooms of 0.1-1.6 s, slab and timber modes about an octave wider each way and an airborne path from
    -45 dB to as loud as the structure."""
    colour = [float(g) for g in rng.uniform(-10, 10, len(COLOUR_BANDS))]
    if model == "ceiling":
        p = dict(model=model, cutoff=_log_uniform(rng, 80, 4000), order=int(rng.choice([1, 2, 3, 4])),
                 rt60=float(rng.uniform(0.1, 1.6)), wet=float(rng.uniform(0.0, 0.8)))
    elif model == "slab":
        p = dict(model=model, low=_log_uniform(rng, 12, 60), high=_log_uniform(rng, 70, 320),
                 count=int(rng.integers(2, 20)), loss=_log_uniform(rng, 0.005, 0.12),
                 air_db=float(rng.uniform(-45, 0)), air_cutoff=_log_uniform(rng, 100, 3000),
                 rt60=float(rng.uniform(0.1, 1.6)), wet=float(rng.uniform(0.0, 0.6)),
                 smoothing=_log_uniform(rng, 15, 250))
    elif model == "timber":
        lo = _log_uniform(rng, 60, 500)
        p = dict(model=model, low=_log_uniform(rng, 8, 40), high=_log_uniform(rng, 45, 220),
                 count=int(rng.integers(2, 14)), loss=_log_uniform(rng, 0.01, 0.2),
                 air_db=float(rng.uniform(-30, 0)), air_band=(lo, min(7000.0, lo * _log_uniform(rng, 2, 40))),
                 rt60=float(rng.uniform(0.1, 1.6)), wet=float(rng.uniform(0.0, 0.6)),
                 smoothing=_log_uniform(rng, 15, 300))
    elif model == "same_room":
        p = dict(model=model, rt60=float(rng.uniform(0.1, 1.6)), wet=float(rng.uniform(0.0, 0.9)),
                 bright=float(rng.uniform(0.0, 1.0)))
    else:
        raise ValueError(f"unknown transmission model {model!r}")
    p.update(colour=colour, seed=int(rng.integers(1 << 30)))
    return p


def _colour_fir(gains_db, taps=511):
    """A linear-phase FIR whose gain follows `gains_db` at `COLOUR_BANDS` (log-frequency interpolation)."""
    nyquist = RATE / 2
    f = np.concatenate([[0.0], np.geomspace(20, nyquist * 0.999, 64), [nyquist]])
    g = np.interp(np.log(np.maximum(f, 20)), np.log(COLOUR_BANDS), gains_db)
    return signal.firwin2(taps, f / nyquist, 10 ** (g / 20))


class Transmission:
    """One building's path, built once per clip from `draw`'s (or `widen`'s) parameters."""

    def __init__(self, params):
        self.p = params
        rng = np.random.default_rng(params["seed"])
        m = params["model"]
        self.room = _reverb_ir(rng, params["rt60"], bright=params.get("bright", 0.4))
        if m == "ceiling":
            self.lp = signal.butter(params["order"], params["cutoff"] / (RATE / 2), output="sos")
        elif m in ("slab", "timber"):
            self.modes = _modal_ir(rng, params["low"], params["high"], params["count"], params["loss"])
            if m == "slab":
                self.air = signal.butter(2, params["air_cutoff"] / (RATE / 2), output="sos")
            else:
                lo, hi = params["air_band"]
                self.air = signal.butter(2, [lo / (RATE / 2), hi / (RATE / 2)], btype="band", output="sos")
        self.colour = _colour_fir(params["colour"]) if "colour" in params else None

    def apply(self, x, structure_gain=1.0):
        """What reaches the room below from the dry sound `x`; `structure_gain`
        scales the structure-borne part (a heavier footfall drives the floor harder)."""
        m = self.p["model"]
        if m == "ceiling":
            y = signal.sosfilt(self.lp, x)
        elif m in ("slab", "timber"):
            f = _force(x, smoothing_hz=self.p["smoothing"])
            structure = signal.fftconvolve(f, self.modes)[: len(x) + len(self.modes) // 2]
            structure /= np.max(np.abs(structure)) + 1e-12
            air = signal.sosfilt(self.air, np.concatenate([x, np.zeros(len(structure) - len(x))]))
            air /= np.max(np.abs(air)) + 1e-12
            y = structure_gain * structure + 10 ** (self.p["air_db"] / 20) * air
        else:
            y = x.copy()
        if self.colour is not None:
            y = signal.fftconvolve(y, self.colour)[len(self.colour) // 2: len(self.colour) // 2 + len(y)]
        wet = signal.fftconvolve(y, self.room)[: len(y) + len(self.room) // 2]
        out = np.zeros(len(wet))
        out[: len(y)] += y
        out += self.p["wet"] * wet * np.sqrt(np.sum(y ** 2) / (np.sum(wet ** 2) + 1e-12))
        return out


def draw_mic(rng, condition):
    """The microphone chain for a clip: `clean`, `cheap_mic` or `drift_clip`."""
    p = dict(condition=condition, highpass=None, lowpass=None, drift_db=0.0, clip=None)
    if condition in ("cheap_mic", "drift_clip") or rng.random() < 0.3:
        p["highpass"] = float(np.exp(rng.uniform(np.log(60), np.log(300))))
        p["lowpass"] = float(rng.uniform(3500, 7500))
    if condition == "drift_clip":
        p["drift_db"] = float(rng.uniform(3, 10))
        p["clip"] = float(rng.uniform(0.15, 0.6))
    return p


def apply_mic(y, p, rng):
    """Applies the microphone chain to a whole clip (already at its recording level)."""
    if p["highpass"]:
        y = signal.sosfilt(signal.butter(2, p["highpass"] / (RATE / 2), btype="high", output="sos"), y)
    if p["lowpass"]:
        y = signal.sosfilt(signal.butter(2, p["lowpass"] / (RATE / 2), output="sos"), y)
    if p["drift_db"]:
        n = len(y)
        knots = rng.uniform(-p["drift_db"] / 2, p["drift_db"] / 2, 6)
        gain_db = np.interp(np.arange(n), np.linspace(0, n, len(knots)), knots)
        y = y * 10 ** (gain_db / 20)
    if p["clip"]:
        peak = np.max(np.abs(y)) + 1e-12
        y = np.clip(y, -p["clip"] * peak, p["clip"] * peak)
    return y
