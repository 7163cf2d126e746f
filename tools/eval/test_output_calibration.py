"""Tests of the confidence calibration's fit (tools/eval/output_calibration.py); they need scikit-learn
(tools/.venv: `tools/.venv/bin/python -m unittest tools/eval/test_output_calibration.py`)."""
import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import output_calibration  # noqa: E402

CLASSES = ["stomping", "heel_strike", "shuffling", "running", "other"]


@unittest.skipUnless(importlib.util.find_spec("sklearn"), "scikit-learn is not installed (tools/.venv has it)")
class FitTests(unittest.TestCase):
    def events(self):
        """Each class: 100 labels at 0.6 of which 30 right, 100 at 0.9 of which 90 right; `other` always right."""
        events = []
        for name in CLASSES[:4]:
            events += [(name, 0.6, i < 30) for i in range(100)] + [(name, 0.9, i < 90) for i in range(100)]
        events += [("other", 0.7, True) for _ in range(50)]
        return events

    def test_each_class_gets_how_often_its_labels_were_right_in_the_model_files_order(self):
        curves = output_calibration.fit(self.events(), CLASSES)
        self.assertEqual(len(curves), 5)
        for curve in curves[:4]:
            self.assertEqual(curve["x"], [0.6, 0.9])
            self.assertEqual([round(v, 6) for v in curve["y"]], [0.3, 0.9])
        self.assertEqual(curves[4]["y"], [1.0])
        # The order is the file's: `other` first gets `other`'s curve first.
        self.assertEqual(output_calibration.fit(self.events(), ["other"] + CLASSES[:4])[0]["y"], [1.0])

    def test_a_class_with_too_few_labels_stops_the_fit(self):
        events = [e for e in self.events() if e[0] != "shuffling"]
        with self.assertRaises(SystemExit) as stopped:
            output_calibration.fit(events, CLASSES)
        self.assertIn("shuffling", str(stopped.exception))


if __name__ == "__main__":
    unittest.main()
