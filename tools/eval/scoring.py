"""Event-based scoring of `footstepctl analyze --output` against clip ground truth.

The definitions are the independent evaluation's (tests/test_scoring.py checks
that both give the same figures on the same predictions):

- a ground-truth footstep and a predicted footstep match when their onsets
  are within ±100 ms, one to one; the matching has the most pairs, then the
  least total |dt| (Hungarian assignment within each cluster of nearby onsets);
- a prediction labelled `other…` is not a footstep claim; `unknown` is a
  footstep with no type;
- precision, recall and F1 are summed over clips (micro);
- false footsteps per hour counts every prediction on clips without footsteps;
- per-class recall, precision and F1 are taken over matched footsteps, and
  macro-F1 averages the classes present in the truth.
"""
import csv
import os
import subprocess
import wave
from collections import Counter, defaultdict

import numpy as np
from scipy.optimize import linear_sum_assignment

CLASSES = ("heel_strike", "running", "stomping", "shuffling")
TOLERANCE = 0.1


def read_truth(path):
    with open(path, newline="") as f:
        return [(float(r["onset_s"]), float(r["offset_s"]), r["label"]) for r in csv.DictReader(f)]


def read_predictions(path):
    """(onset, label) of the footstep claims in an analyze CSV; label 'footstep' for `unknown`."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            label = r["label"].strip().lower()
            if label.startswith("other"):
                continue
            out.append((float(r["onset_s"]), label if label in CLASSES else "footstep"))
    return out


def clip_seconds(audio_path):
    """Duration of a clip: a WAV's header, or sox's reading of another format (the committed FLAC slice)."""
    if audio_path.endswith(".wav"):
        with wave.open(audio_path) as w:
            return w.getnframes() / w.getframerate()
    return float(subprocess.check_output(["soxi", "-D", audio_path], text=True))


def clip_audio(gt_dir, name):
    for extension in (".wav", ".flac"):
        path = os.path.join(gt_dir, name + extension)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"no audio for clip {name} in {gt_dir}")


def match(truth, predicted, tolerance=TOLERANCE):
    """Pairs (truth index, prediction index): most pairs within `tolerance`, then least total |dt|."""
    events = sorted([(t, 0, i) for i, t in enumerate(truth)] + [(t, 1, i) for i, t in enumerate(predicted)])
    pairs = []
    cluster = []

    def solve(group):
        g = [i for _, k, i in group if k == 0]
        p = [i for _, k, i in group if k == 1]
        if not g or not p:
            return
        dt = np.abs(np.array([truth[i] for i in g])[:, None] - np.array([predicted[i] for i in p])[None, :])
        cost = np.where(dt <= tolerance + 1e-9, dt, 1e6)
        rows, cols = linear_sum_assignment(cost)
        pairs.extend((g[r], p[c]) for r, c in zip(rows, cols) if dt[r, c] <= tolerance + 1e-9)

    for e in events:
        if cluster and e[0] - cluster[-1][0] > tolerance:
            solve(cluster)
            cluster = []
        cluster.append(e)
    if cluster:
        solve(cluster)
    return pairs


def step_fates(steps, rows):
    """For each step onset of `steps`: 'footstep' (matched by a prediction that is a footstep claim), 'other'
    (matched only when every prediction counts, `other` too) or 'undetected'. `rows`: analyze's CSV rows."""
    onsets = [float(r["onset_s"]) for r in rows]
    claims = [float(r["onset_s"]) for r in rows if not r["label"].startswith("other")]
    found = {a for a, _ in match(steps, claims)}
    detected = {a for a, _ in match(steps, onsets)}
    return ["footstep" if i in found else "other" if i in detected else "undetected" for i in range(len(steps))]


def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


class Tally:
    """Counts that add up over clips (and over folds)."""

    def __init__(self):
        self.c = Counter()
        self.confusion = defaultdict(Counter)

    def add_clip(self, truth, predictions, seconds):
        steps = [t for t in truth if not t[2].startswith("other")]
        pairs = match([s[0] for s in steps], [p[0] for p in predictions])
        tp = len(pairs)
        self.c["tp"] += tp
        self.c["fp"] += len(predictions) - tp
        self.c["fn"] += len(steps) - tp
        self.c["seconds"] += seconds
        self.c["clips"] += 1
        if not steps:
            self.c["distractor_seconds"] += seconds
            self.c["distractor_false"] += len(predictions)
        for g, p in pairs:
            self.confusion[steps[g][2]][predictions[p][1]] += 1

    def add_false_footsteps(self, predictions, seconds):
        """A clip without footsteps that counts towards the false footsteps an hour only (not P/R/F1, not `clips`)."""
        self.c["distractor_seconds"] += seconds
        self.c["distractor_false"] += len(predictions)

    def merge(self, other):
        self.c.update(other.c)
        for k, row in other.confusion.items():
            self.confusion[k].update(row)

    def figures(self):
        p, r, f = prf(self.c["tp"], self.c["fp"], self.c["fn"])
        hours = self.c["distractor_seconds"] / 3600
        per_class = {}
        for k in CLASSES:
            n_true = sum(self.confusion[k].values())
            n_pred = sum(self.confusion[g][k] for g in CLASSES)
            hit = self.confusion[k][k]
            pk = hit / n_pred if n_pred else 0.0
            rk = hit / n_true if n_true else 0.0
            per_class[k] = dict(n=n_true, recall=rk, precision=pk, f1=(2 * pk * rk / (pk + rk) if pk + rk else 0.0))
        present = [k for k in CLASSES if per_class[k]["n"]]
        matched = sum(sum(v.values()) for v in self.confusion.values())
        return dict(
            clips=self.c["clips"], hours=self.c["seconds"] / 3600, tp=self.c["tp"], fp=self.c["fp"], fn=self.c["fn"],
            precision=p, recall=r, f1=f,
            distractor_only_hours=hours,
            false_per_hour=(self.c["distractor_false"] / hours if hours else None),
            matched=matched,
            macro_f1=(float(np.mean([per_class[k]["f1"] for k in present])) if present and matched else None),
            per_class=per_class,
            confusion={k: dict(v) for k, v in self.confusion.items()},
        )


# Confidence bins of the reliability table (the last closes at 1).
RELIABILITY_BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)


class Reliability:
    """How often the pipeline's labels are right at each confidence, over clips: a type (`heel_strike` …) is
    right when its footstep claim is matched one to one (±100 ms, among the footstep claims) to a step of that
    type; `other` is right when no step lies within ±100 ms. `unknown` names no type and is left out. ECE is the
    events' mean |confidence − accuracy| over RELIABILITY_BINS, weighted by each bin's share."""

    def __init__(self):
        self.events = []  # (label: a class or "other", confidence, right)

    def add_clip(self, truth, rows):
        """`truth` as read_truth gives it; `rows` analyze's CSV rows of the clip."""
        steps = [t for t in truth if not t[2].startswith("other")]
        claims = [i for i, r in enumerate(rows) if not r["label"].strip().lower().startswith("other")]
        pairs = match([s[0] for s in steps], [float(rows[i]["onset_s"]) for i in claims])
        matched = {claims[p]: steps[g][2] for g, p in pairs}
        onsets = np.array([s[0] for s in steps])
        for i, r in enumerate(rows):
            label = r["label"].strip().lower()
            if label.startswith("other"):
                label = "other"
                right = not (len(onsets) and np.min(np.abs(onsets - float(r["onset_s"]))) <= TOLERANCE + 1e-9)
            elif label in CLASSES:
                right = matched.get(i) == label
            else:
                continue
            self.events.append((label, float(r["confidence"]), right))

    def merge(self, other):
        self.events.extend(other.events)

    def figures(self):
        """{'events', 'ece', 'bins': [{'low', 'high', 'events', 'confidence', 'accuracy'}]}; ece None with no events."""
        if not self.events:
            return dict(events=0, ece=None, bins=[])
        confidence = np.array([c for _, c, _ in self.events])
        right = np.array([r for _, _, r in self.events], dtype=float)
        bins, ece = [], 0.0
        edges = RELIABILITY_BINS
        for k, (low, high) in enumerate(zip(edges[:-1], edges[1:])):
            inside = (confidence >= low) & ((confidence < high) if k < len(edges) - 2 else (confidence <= high))
            if not inside.any():
                continue
            mean, accuracy = float(confidence[inside].mean()), float(right[inside].mean())
            ece += inside.sum() / len(confidence) * abs(mean - accuracy)
            bins.append(dict(low=low, high=high, events=int(inside.sum()), confidence=mean, accuracy=accuracy))
        return dict(events=len(self.events), ece=float(ece), bins=bins)


def read_rows(path):
    """analyze's CSV rows of a clip ([] when it wrote none)."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def score_directory(pred_dir, gt_dir, group_by=None, clips=None, false_footsteps_only=False):
    """Scores every clip of gt_dir (or the named `clips`); with `group_by` (a clips_meta.csv column, or a tuple of
    them: the key is their values joined by "/"), also per value of it. Returns (Tally over all clips, {value: Tally}). With `false_footsteps_only`
    the clips (all without footsteps) count towards the false footsteps an hour alone (`Tally.add_false_footsteps`)."""
    meta_path = os.path.join(os.path.dirname(os.path.normpath(gt_dir)), "clips_meta.csv")
    meta = {}
    if os.path.exists(meta_path):
        with open(meta_path, newline="") as f:
            meta = {r["clip"]: r for r in csv.DictReader(f)}
    total = Tally()
    groups = defaultdict(Tally)
    names = clips if clips is not None else sorted(n[:-4] for n in os.listdir(gt_dir) if n.endswith(".csv"))
    for name in names:
        truth = read_truth(os.path.join(gt_dir, name + ".csv"))
        predictions = read_predictions(os.path.join(pred_dir, name + ".csv"))
        seconds = clip_seconds(clip_audio(gt_dir, name))
        one = Tally()
        if false_footsteps_only:
            if any(not t[2].startswith("other") for t in truth):
                raise ValueError(f"{gt_dir}/{name}.csv has footsteps: it cannot count as distractor-only audio")
            one.add_false_footsteps(predictions, seconds)
        else:
            one.add_clip(truth, predictions, seconds)
        total.merge(one)
        if group_by:
            columns = group_by if isinstance(group_by, tuple) else (group_by,)
            key = "/".join(meta.get(name, {}).get(c) or name.rsplit("_", 1)[0] for c in columns)
            groups[key].merge(one)
    return total, groups
