"""Tests of the evaluation's scorer (run by `make test`: python3 -m unittest discover -s tools/eval).

Hand-made clips with known answers, and, when the independent evaluation's
scorer is beside the repository (../shared/eval/score.py), the same figures from
both on randomly perturbed predictions.
"""
import csv
import importlib.util
import json
import os
import random
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoring  # noqa: E402
from sources import write_wav  # noqa: E402

REFERENCE = os.path.join(HERE, "..", "..", "..", "shared", "eval", "score.py")


def write_clip(gt_dir, pred_dir, name, truth, predictions, seconds=10.0):
    import numpy as np
    write_wav(os.path.join(gt_dir, name + ".wav"), np.zeros(int(seconds * 16000)))
    with open(os.path.join(gt_dir, name + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["onset_s", "offset_s", "label"])
        for on, label in truth:
            w.writerow([on, on + 0.2, label])
    with open(os.path.join(pred_dir, name + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["onset_s", "label", "confidence", "duration_s", "la_max", "lc_max", "peak_dbfs"])
        for on, label in predictions:
            w.writerow([f"{on:.3f}", label, "0.9", "0.1", "-40", "-35", "-20"])


class MatchTests(unittest.TestCase):
    def test_one_to_one_within_tolerance(self):
        self.assertEqual(scoring.match([1.0], [1.05, 1.08]), [(0, 0)])
        self.assertEqual(scoring.match([1.0], [1.101]), [])

    def test_most_pairs_before_least_distance(self):
        # Greedy nearest would pair 1.05 with 1.1 and leave 1.0 alone; the most pairs is two.
        pairs = sorted(scoring.match([1.0, 1.1], [1.05, 1.16]))
        self.assertEqual(pairs, [(0, 0), (1, 1)])


class StepFateTests(unittest.TestCase):
    def test_found_called_other_or_undetected(self):
        rows = [{"onset_s": "1.02", "label": "heel_strike"}, {"onset_s": "2.05", "label": "other"},
                {"onset_s": "3.5", "label": "unknown"}]
        self.assertEqual(scoring.step_fates([1.0, 2.0, 3.0], rows), ["footstep", "other", "undetected"])


class FigureTests(unittest.TestCase):
    def test_known_clip_figures(self):
        with tempfile.TemporaryDirectory() as root:
            gt, pred = os.path.join(root, "gt"), os.path.join(root, "pred")
            os.makedirs(gt)
            os.makedirs(pred)
            truth = [(1.0, "heel_strike"), (1.5, "heel_strike"), (2.0, "stomping"), (3.0, "other:door")]
            predictions = [(1.02, "heel_strike"), (1.55, "running"), (3.0, "heel_strike"), (4.0, "other")]
            write_clip(gt, pred, "walk_1", truth, predictions)
            write_clip(gt, pred, "quiet_1", [(2.0, "other:knock")], [(2.0, "unknown")], seconds=3600)
            total, _ = scoring.score_directory(pred, gt)
            f = total.figures()
            self.assertEqual((f["tp"], f["fp"], f["fn"]), (2, 2, 1))
            self.assertAlmostEqual(f["precision"], 0.5)
            self.assertAlmostEqual(f["recall"], 2 / 3)
            self.assertAlmostEqual(f["false_per_hour"], 1.0)
            self.assertEqual(f["per_class"]["heel_strike"]["recall"], 0.5)
            self.assertEqual(f["per_class"]["stomping"]["n"], 0)
            # heel_strike: 1 of 2 right, precision 1/1; stomping absent: macro over heel_strike only.
            self.assertAlmostEqual(f["macro_f1"], 2 * 0.5 * 1.0 / 1.5)


    def test_more_distractor_audio_counts_towards_false_footsteps_only(self):
        with tempfile.TemporaryDirectory() as root:
            gt, pred, quiet, quiet_pred = (os.path.join(root, d) for d in ("gt", "pred", "quiet", "quiet-pred"))
            for d in (gt, pred, quiet, quiet_pred):
                os.makedirs(d)
            write_clip(gt, pred, "walk_1", [(1.0, "heel_strike")], [(1.02, "heel_strike")])
            write_clip(gt, pred, "quiet_1", [(2.0, "other:knock")], [(2.0, "unknown")], seconds=1800)
            write_clip(quiet, quiet_pred, "quiet_2", [(2.0, "other:music_hit")],
                       [(2.0, "stomping"), (3.0, "running"), (4.0, "other")], seconds=1800)
            total, _ = scoring.score_directory(pred, gt)
            more, _ = scoring.score_directory(quiet_pred, quiet, false_footsteps_only=True)
            total.merge(more)
            f = total.figures()
            # P/R/F1 and the clip count come from the evaluation clips alone: one TP, one FP (the knock).
            self.assertEqual((f["tp"], f["fp"], f["fn"], f["clips"]), (1, 1, 0, 2))
            # Three false footsteps over the hour of both quiet clips: the unknown, the stomp and the run.
            self.assertAlmostEqual(f["distractor_only_hours"], 1.0)
            self.assertAlmostEqual(f["false_per_hour"], 3.0)
            write_clip(quiet, quiet_pred, "walk_2", [(1.0, "running")], [])
            with self.assertRaisesRegex(ValueError, "walk_2.csv has footsteps"):
                scoring.score_directory(quiet_pred, quiet, false_footsteps_only=True)

class ReliabilityTests(unittest.TestCase):
    def test_labels_right_and_wrong_at_their_confidence(self):
        truth = [(1.0, 1.2, "heel_strike"), (2.0, 2.2, "stomping"), (3.0, 3.2, "running"), (5.0, 5.2, "other:door")]
        rows = [{"onset_s": "1.03", "label": "heel_strike", "confidence": "0.92"},  # right type
                {"onset_s": "2.01", "label": "heel_strike", "confidence": "0.97"},  # a step, wrong type
                {"onset_s": "3.05", "label": "other", "confidence": "0.55"},  # a step called other: wrong
                {"onset_s": "5.0", "label": "other:door", "confidence": "0.85"},  # no step near: right
                {"onset_s": "6.0", "label": "stomping", "confidence": "0.65"},  # no step: wrong
                {"onset_s": "7.0", "label": "unknown", "confidence": "0.45"}]  # names no type: left out
        r = scoring.Reliability()
        r.add_clip(truth, rows)
        self.assertEqual(sorted(r.events), sorted([("heel_strike", 0.92, True), ("heel_strike", 0.97, False),
                                                   ("other", 0.55, False), ("other", 0.85, True),
                                                   ("stomping", 0.65, False)]))
        f = r.figures()
        self.assertEqual(f["events"], 5)
        self.assertEqual([(b["low"], b["events"]) for b in f["bins"]], [(0.5, 1), (0.6, 1), (0.8, 1), (0.9, 1),
                                                                        (0.95, 1)])
        # One event a bin: each bin's gap is |confidence − right|, weighted 1/5.
        self.assertAlmostEqual(f["ece"], (0.55 + 0.65 + 0.15 + 0.08 + 0.97) / 5)

    def test_confidence_one_falls_in_the_last_bin_and_no_events_give_no_ece(self):
        r = scoring.Reliability()
        self.assertIsNone(r.figures()["ece"])
        r.add_clip([], [{"onset_s": "1.0", "label": "other", "confidence": "1.0"}])
        f = r.figures()
        self.assertEqual((f["bins"][0]["low"], f["bins"][0]["high"], f["ece"]), (0.95, 1.0, 0.0))


@unittest.skipUnless(os.path.exists(REFERENCE), "the independent scorer is not beside the repository")
class ReferenceTests(unittest.TestCase):
    def test_same_figures_as_the_independent_scorer(self):
        spec = importlib.util.spec_from_file_location("reference_score", REFERENCE)
        reference = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(reference)
        rng = random.Random(5)
        labels = list(scoring.CLASSES)
        with tempfile.TemporaryDirectory() as root:
            gt, pred = os.path.join(root, "gt"), os.path.join(root, "pred")
            os.makedirs(gt)
            os.makedirs(pred)
            for c in range(12):
                truth, predictions = [], []
                t = 0.5
                distractor_only = c % 4 == 3
                while t < 28:
                    if not distractor_only:
                        truth.append((round(t, 3), rng.choice(labels)))
                        if rng.random() < 0.8:  # detected, within or beyond the tolerance
                            predictions.append((t + rng.uniform(-0.13, 0.13), rng.choice(labels + ["unknown", "other"])))
                    if rng.random() < 0.3:
                        truth.append((round(t + 0.25, 3), "other:knock"))
                        predictions.append((t + 0.25 + rng.uniform(-0.05, 0.05), rng.choice(["other", "heel_strike"])))
                    t += rng.uniform(0.15, 0.9)
                write_clip(gt, pred, f"scene{c % 3}_{c}", truth, predictions, seconds=30)
            ours, groups = scoring.score_directory(pred, gt, group_by="scenario")
            theirs = reference.score(pred, gt, quiet=True)
            f = ours.figures()
            for key in ("tp", "fp", "fn"):
                self.assertEqual(f[key], theirs[key], key)
            for ours_key, their_key in (("precision", "precision"), ("recall", "recall"), ("f1", "f1"),
                                        ("false_per_hour", "fa_per_hour_distractor_only")):
                self.assertAlmostEqual(f[ours_key], theirs[their_key], places=9, msg=ours_key)
            self.assertAlmostEqual(f["macro_f1"], theirs["classification"]["macro_f1"], places=9)
            for k in scoring.CLASSES:
                self.assertAlmostEqual(f["per_class"][k]["recall"], theirs["classification"]["per_class"][k]["recall"], places=9)
            for scene, figures in theirs["per_scenario"].items():
                self.assertAlmostEqual(groups[scene].figures()["f1"], figures["f1"], places=9, msg=scene)
            json.dumps(f)  # the figures are plain JSON


if __name__ == "__main__":
    unittest.main()
