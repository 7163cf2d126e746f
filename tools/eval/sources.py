"""Where the evaluation's and the training's sounds come from, and which split each belongs to.

Every recording of tools/training-data/manifest.csv belongs to one *recording
family*: its package, or for hydrogen-drumkits its kit. Families are put in
folds whole, so a model never hears, in training, the family it is scored on
as "unseen":

- folds 0-3 rotate: the model for fold k trains on the other three folds
  (plus the built-in synthesizer) and is scored on fold k (unseen) and on
  fresh clips of the folds it trained on (seen);
- the lockbox is never trained on, tuned on or looked at, except for one
  scoring of the final model before an issue is resolved.

This file is the one home of that assignment.
"""
import csv
import os
import wave
import zlib

import numpy as np

RATE = 16000
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFEST = os.path.join(ROOT, "tools", "training-data", "manifest.csv")

FOLDS = {
    0: {"0ad-data", "monsterz-data"},
    1: {"openclonk-data", "megaglest-data", "bambam"},
    2: {"lugaru-data", "freedroidrpg-data", "freedink-data", "tuxfootball", "trackballs-data"},
    3: {"berusky2-data", "extremetuxracer-data"},
}
LOCKBOX = {"redeclipse-data", "castle-game-engine-doc", "kgoldrunner", "warmux-data", "flightgear-data-base"}
LOCKBOX_FOLD = "lockbox"
# Speech and music used as backgrounds in every fold (they are not what is classified).
BACKGROUND_PACKAGES = {"asterisk-core-sounds-en-wav", "asterisk-moh-opsound-wav", "alsa-utils"}
# Drum kits (music hits) are families of their own, spread over the folds by name.
KIT_PACKAGE = "hydrogen-drumkits"
KIT_FOLDS = {
    "Audiophob": 0, "ColomboAcousticDrumkit": 1, "ElectricEmpireKit": 2, "ForzeeStereo": 3,
    "HardElectro1": 0, "Millo-Drums_v.1": 1, "Millo_MultiLayered2": 2, "Millo_MultiLayered3": 3,
    "BJA_Pacific": LOCKBOX_FOLD,
}
# voice: laughs, giggles, grunts, a cough; scrape: a slide cut short, for a chair or furniture dragged.
DISTRACTOR_CATEGORIES = {"door", "knock", "drop", "thud", "music_hit", "other", "voice", "scrape"}


def family(row):
    """The recording family of a manifest row."""
    if row["package"] == KIT_PACKAGE:
        return KIT_PACKAGE + "/" + row["path_in_package"].split("/")[-2]
    return row["package"]


def fold_of(row):
    """0-3, LOCKBOX_FOLD, 'background', or None (not used by the evaluation)."""
    p = row["package"]
    if p == KIT_PACKAGE:
        return KIT_FOLDS.get(row["path_in_package"].split("/")[-2])
    if p in LOCKBOX:
        return LOCKBOX_FOLD
    if p in BACKGROUND_PACKAGES:
        return "background"
    for k, packages in FOLDS.items():
        if p in packages:
            return k
    return None


def wav_name(row):
    """fetch.sh's flattened 16 kHz WAV name for a manifest row."""
    path = row["path_in_package"]
    flat = os.path.splitext(path.replace("::", "/"))[0].strip("/").replace("/", "_")
    return f"{row['package']}__{flat}.wav"


def read_wav(path):
    with wave.open(path) as w:
        if w.getframerate() != RATE or w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{path}: expected 16 kHz mono 16-bit (tools/training-data/fetch.sh output)")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768


def write_wav(path, x):
    y = np.clip(np.round(x * 32767), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(y.tobytes())


def onset_index(x):
    """The physical onset: the first sample within 26 dB of the peak."""
    peak = np.max(np.abs(x)) + 1e-12
    return int(np.argmax(np.abs(x) >= 0.05 * peak))


def envelope_db(x, hop=80, window=160):
    """10 ms RMS every 5 ms (at 16 kHz), in dB relative to the loudest."""
    n = max(1, (len(x) - window) // hop + 1)
    rms = np.sqrt(np.array([np.mean(x[i * hop:i * hop + window] ** 2) for i in range(n)]))
    return 20 * np.log10(rms / (rms.max() + 1e-12) + 1e-9)


def split_at_gaps(x, gap_db=20.0, near_db=12.0, min_gap=0.15, hop=80):
    """The single footfalls of a step recording: a cut wherever, after the sound has died away (20 dB below its
    peak so far), another impact rises out of the gap to within 12 dB of the loudest, at least 0.15 s after the
    last cut (berusky2's steps are pairs 0.3 s apart, the first 10 dB down; freedink's stairs are three). A heel
    and its toe, or a gravel crunch, leave no such gap and stay one footfall, so every piece is a whole footfall
    and every footfall gets its own truth onset."""
    db = envelope_db(x, hop)
    first = int(np.argmax(db >= -26))
    starts = [first]
    peak, in_gap, low, low_at = db[first], False, 0.0, 0
    for i in range(first + 1, len(db)):
        if not in_gap:
            peak = max(peak, db[i])
            if db[i] <= peak - gap_db:
                in_gap, low, low_at = True, db[i], i
            continue
        if db[i] < low:
            low, low_at = db[i], i
        if db[i] >= -near_db and db[i] >= low + gap_db and (i - starts[-1]) * hop / RATE >= min_gap:
            rise = low_at
            while rise < i and db[rise] < low + 6:
                rise += 1
            starts.append(rise)
            peak, in_gap = db[i], False
    if len(starts) == 1:
        return [x]
    bounds = [0] + [s * hop for s in starts[1:]] + [len(x)]
    pieces = []
    for start, end in zip(bounds, bounds[1:]):
        piece = x[start:end].copy()
        fade = min(len(piece) // 4, int(0.02 * RATE))
        if end < len(x) and fade > 0:
            piece[-fade:] *= np.linspace(1, 0, fade)
        # A fragment (a recording that ends as the next impact begins) is not a footfall.
        if len(piece) >= int(0.05 * RATE):
            pieces.append(piece)
    return pieces


class Sound:
    """One single impact: a step or a distractor, normalised to peak 1, starting at its onset."""

    def __init__(self, samples, family, category, name):
        start = onset_index(samples)
        x = samples[max(0, start - 16):]
        self.samples = x / (np.max(np.abs(x)) + 1e-12)
        self.family = family
        self.category = category
        self.name = name


def load(wav_dir, manifest=MANIFEST):
    """{fold: {"steps": [Sound], "distractors": [Sound], "music": [samples]}} plus "background": {"speech": [...],
    "music": [...]}."""
    out = {k: {"steps": [], "distractors": [], "music": []} for k in list(FOLDS) + [LOCKBOX_FOLD]}
    out["background"] = {"speech": [], "music": []}
    missing = []
    with open(manifest, newline="") as f:
        for row in csv.DictReader(f):
            fold = fold_of(row)
            if fold is None:
                continue
            path = os.path.join(wav_dir, wav_name(row))
            if not os.path.exists(path):
                missing.append(path)
                continue
            x = read_wav(path)
            if fold == "background":
                if row["category"] in ("speech", "music"):
                    out["background"][row["category"]].append(x)
                continue
            cat = row["category"]
            if cat == "footstep":
                for i, piece in enumerate(split_at_gaps(x)):
                    out[fold]["steps"].append(Sound(piece, family(row), cat, f"{wav_name(row)}#{i}"))
            elif cat == "scrape":
                # A chair or a piece of furniture dragged: 0.3-1.2 s of a long slide, several pieces per file.
                seed = stable_hash(wav_name(row))
                for i in range(4):
                    length = int((0.3 + 0.3 * i) * RATE)
                    start = (seed >> (4 * i)) % max(1, len(x) - length)
                    piece = x[start:start + length].copy()
                    fade = int(0.05 * RATE)
                    piece[:fade] *= np.linspace(0, 1, fade)
                    piece[-fade:] *= np.linspace(1, 0, fade)
                    out[fold]["distractors"].append(Sound(piece, family(row), cat, f"{wav_name(row)}#{i}"))
            elif cat in DISTRACTOR_CATEGORIES:
                out[fold]["distractors"].append(Sound(x[: int(2.5 * RATE)], family(row), cat, wav_name(row)))
            elif cat == "music":
                # A fold's own soundtracks: negatives (negatives.py), never the backgrounds of its clips.
                out[fold]["music"].append(x)
            # a fold's own speech is not used: backgrounds come from BACKGROUND_PACKAGES
    if missing:
        raise SystemExit(f"{len(missing)} manifest recordings missing, e.g. {missing[0]}: run tools/training-data/fetch.sh")
    return out


def stable_hash(text):
    return zlib.crc32(text.encode())
