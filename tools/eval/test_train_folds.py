"""train_folds.py's synthetic distractor check: how it counts footsteps in `footstepctl analyze` CSV, and
`--install` copying a model only when the check passes (the check's figure given, the copy real); which
rows train, with and without a transmission model left out; which splits a fold's datasets come from."""
import argparse
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import train_folds  # noqa: E402  (its modules need numpy)
except ImportError:
    train_folds = None

HEADER = "onset_s,duration_s,kind,type,confidence,intensity,la_max,lc_max,peak_dbfs\n"


@unittest.skipIf(train_folds is None, "tools/eval needs numpy")
class FootstepsInCSVTests(unittest.TestCase):
    def test_counts_only_footstep_rows(self):
        text = HEADER + (
            "1.022,0.108,other,unknown,0.633,low,-55.6,-49.5,-39.8\n"
            "49.850,0.300,footstep,heel_strike,0.675,low,-55.6,-51.1,-40.0\n"
            "50.400,0.280,footstep,unknown,0.496,low,-55.0,-50.0,-40.0\n")
        self.assertEqual(train_folds.footsteps_in_csv(text), 2)

    def test_no_events_is_zero(self):
        self.assertEqual(train_folds.footsteps_in_csv(HEADER), 0)

    def test_output_without_a_kind_column_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "kind column"):
            train_folds.footsteps_in_csv("onset  type  confidence\n1.0  footstep  0.9\n")
        with self.assertRaisesRegex(ValueError, "no CSV header"):
            train_folds.footsteps_in_csv("")


@unittest.skipIf(train_folds is None, "tools/eval needs numpy")
class TrainingRowsTests(unittest.TestCase):
    SOURCES = ["labelled-slab-clean-001", "labelled-ceiling-clean-000", "walking-1000-pink", "labelled-slab-cheap_mic-004",
               "labelled-same_room-clean-002"]

    def rows(self, synthetic, leave_out=None, truth=None):
        import numpy as np
        truth = np.array(truth or ["labelled_heel_strike"] * len(self.SOURCES))
        return list(train_folds.training_rows(np.array(self.SOURCES), truth, synthetic, leave_out))

    def test_a_labelled_run_keeps_its_clips_not_its_placeholder_scenario(self):
        self.assertEqual(self.rows(False), [True, True, False, True, True])

    def test_leaving_out_a_transmission_drops_only_its_clips(self):
        self.assertEqual(self.rows(False, "slab"), [False, True, False, False, True])
        self.assertEqual(self.rows(False, "same_room"), [True, True, False, True, False])

    def test_the_synthesizer_keeps_its_floors_and_near_footsteps_never_train(self):
        truth = ["none", "near_footstep", "none", "labelled_running", "none"]
        self.assertEqual(self.rows(True, "slab", truth), [True, False, True, True, True])

    def test_install_refuses_a_study_model(self):
        with mock.patch.object(sys, "argv", ["train_folds.py", "--leave-out", "slab", "--install"]), \
                mock.patch.object(train_folds.tc, "ensure_venv"):
            with self.assertRaisesRegex(SystemExit, "a study, not one to ship"):
                train_folds.main()


@unittest.skipIf(train_folds is None, "tools/eval needs numpy")
class InstallGateTests(unittest.TestCase):
    NETWORK = {"convolutions": [{"outputs": 8}], "decision": {"threshold": 0.5}}

    def run_gate(self, per_hour, new=None, old=None):
        """(the installed model afterwards, the exit message or None)."""
        new = new if new is not None else {"model": "new"}
        old = old if old is not None else {"model": "old", "frameNetwork": self.NETWORK}
        with tempfile.TemporaryDirectory() as tmp:
            full = os.path.join(tmp, "full.json")
            shipped = os.path.join(tmp, "shipped.json")
            with open(full, "w") as f:
                json.dump(new, f)
            with open(shipped, "w") as f:
                json.dump(old, f)
            args = argparse.Namespace(footstepctl="footstepctl", install=True)
            with mock.patch.object(train_folds, "distractor_check", return_value=per_hour), \
                    mock.patch.object(train_folds.tc, "MODEL_PATH", shipped):
                try:
                    train_folds.check_and_install(args, full)
                    error = None
                except SystemExit as exit:
                    error = str(exit)
            with open(shipped) as f:
                return json.load(f), error

    def test_a_model_within_the_bound_is_installed_with_the_installed_frame_network(self):
        installed, error = self.run_gate(train_folds.DISTRACTOR_BOUND_PER_HOUR)
        self.assertIsNone(error)
        self.assertEqual(installed, {"model": "new", "frameNetwork": self.NETWORK})

    def test_a_model_with_its_own_frame_network_keeps_it(self):
        own = dict(self.NETWORK, decision={"threshold": 0.6})
        installed, _ = self.run_gate(0, new={"model": "new", "frameNetwork": own})
        self.assertEqual(installed["frameNetwork"], own)

    def test_a_model_over_the_bound_is_refused_with_the_figure(self):
        over = train_folds.DISTRACTOR_BOUND_PER_HOUR + 66
        installed, error = self.run_gate(over)
        self.assertEqual(installed["model"], "old")
        self.assertIn("not installed", error)
        self.assertIn(f"{over} synthetic distractors an hour", error)

if __name__ == "__main__":
    unittest.main()


@unittest.skipIf(train_folds is None, "tools/eval needs numpy")
class DatasetSplitsTests(unittest.TestCase):
    """`dataset` runs footstep-dataset once per split and fold (a stand-in here that writes what it is asked
    for), keyed K, Kr (randomised sources) and Kn (training negatives)."""

    def build(self, out, splits):
        for split in splits:
            for k in train_folds.FOLDS:
                os.makedirs(os.path.join(out, split, str(k), "gt"))
                with open(os.path.join(out, split, str(k), "clips_meta.csv"), "w") as f:
                    f.write("clip\n")

    def stand_in(self, directory):
        """A footstep-dataset that writes its -o file and its --pictures directory, and logs its --labelled."""
        path = os.path.join(directory, "footstep-dataset")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nlog=\"$(dirname \"$0\")/calls\"\nwhile [ $# -gt 0 ]; do case $1 in\n"
                    "  -o) touch \"$2\"; shift;; --pictures) mkdir -p \"$2\"; shift;;\n"
                    "  --labelled) echo \"$2\" >> \"$log\"; shift;; esac; shift; done\n")
        os.chmod(path, 0o755)
        return path

    def test_negatives_are_a_fold_s_own_split_keyed_kn(self):
        with tempfile.TemporaryDirectory() as out:
            self.build(out, ["train", "train-randomised", "train-negatives"])
            binary = self.stand_in(out)
            paths, _ = train_folds.dataset(binary, out, os.path.join(out, "features"), 1, 1, randomised=True,
                                           negatives=True)
            self.assertEqual(sorted(paths), sorted(f"{k}{s}" for k in train_folds.FOLDS for s in ("", "r", "n")))
            with open(os.path.join(out, "calls")) as f:
                labelled = f.read().split()
            self.assertIn(os.path.join(out, "train-negatives", "2", "gt"), labelled)
            self.assertEqual(len(labelled), 12)

    def test_without_negatives_none_is_read_and_missing_ones_are_named(self):
        with tempfile.TemporaryDirectory() as out:
            self.build(out, ["train"])
            binary = self.stand_in(out)
            paths, _ = train_folds.dataset(binary, out, os.path.join(out, "features"), 1, 1)
            self.assertEqual(sorted(paths), sorted(str(k) for k in train_folds.FOLDS))
            with self.assertRaises(SystemExit) as refused:
                train_folds.dataset(binary, out, os.path.join(out, "features-n"), 1, 1, negatives=True)
            self.assertIn("--no-negatives", str(refused.exception))
