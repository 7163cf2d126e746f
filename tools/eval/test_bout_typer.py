"""Tests of the bout typer's fit and export (run by `make test`): the trees `BoutTypePredictor` walks in Swift."""
import importlib.util
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bout_typer  # noqa: E402

CADENCE = bout_typer.FEATURES.index("bout_cadence_hz")
RISE = bout_typer.FEATURES.index("bout_level_over_q30_db")


def stump(output, feature, threshold):
    """At or below `threshold` adds −1 to `output`, above it +5 (BoutTypePredictorTests' stump)."""
    return dict(output=output, feature=[feature, -1, -1], threshold=[threshold, 0.0, 0.0], left=[1, 0, 0],
                right=[2, 0, 0], missingLeft=[True, False, False], value=[0.0, -1.0, 5.0])


class PredictTests(unittest.TestCase):
    def test_trees_name_the_type_whose_leaves_score_highest(self):
        # BoutTypePredictorTests.treesNameTheTypeWhoseLeavesScoreHighest: the same typer and rows.
        typer = dict(trees=dict(baseline=[0.0, 1.0, 0.0, 0.0],
                                trees=[stump(3, CADENCE, 2.45), stump(0, RISE, 4.0)]))
        rows = np.zeros((5, len(bout_typer.FEATURES)))
        rows[1, CADENCE], rows[2, CADENCE], rows[3, RISE], rows[4, CADENCE] = 3, 2.45, 6, np.nan
        self.assertEqual(bout_typer.predict(typer, rows), ["heel_strike", "running", "heel_strike", "stomping",
                                                           "heel_strike"])


@unittest.skipUnless(importlib.util.find_spec("sklearn"), "fitting the bout typer needs scikit-learn (tools/.venv)")
class FitTests(unittest.TestCase):
    def test_the_exported_trees_give_scikit_learns_types_in_the_model_files_order(self):
        rng = np.random.default_rng(3)
        X = rng.normal(size=(400, len(bout_typer.FEATURES)))
        # The type follows two features, so the classes' alphabetical order (scikit-learn's) differs from TYPES.
        y = np.where(X[:, CADENCE] > 0.5, "running", np.where(X[:, RISE] > 0.5, "stomping",
                                                            np.where(X[:, 0] > 0, "shuffling", "heel_strike")))
        y[:20] = "none"  # rows that match no step are left out
        typer = bout_typer.fit(X, y)
        self.assertEqual(sorted(typer), ["classes", "features", "trees"])
        self.assertEqual(len(typer["trees"]["baseline"]), 4)
        self.assertEqual({t["output"] for t in typer["trees"]["trees"]}, {0, 1, 2, 3})
        names = bout_typer.predict(typer, X[20:])
        self.assertGreater(np.mean(np.array(names) == y[20:]), 0.9)
        from sklearn.ensemble import HistGradientBoostingClassifier
        reference = HistGradientBoostingClassifier(**bout_typer.BOOSTER, random_state=7).fit(X[20:], y[20:])
        self.assertEqual(names, list(reference.predict(X[20:])))


if __name__ == "__main__":
    unittest.main()
