"""train_folds.py's synthetic distractor check: how it counts footsteps in `footstepctl analyze` CSV."""
import os
import sys
import unittest

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


if __name__ == "__main__":
    unittest.main()
