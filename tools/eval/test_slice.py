"""A small fixed slice of the evaluation, scored through `footstepctl analyze --output` (run by `make test`).

tools/eval/fixtures/slice: 8 clips of 20 s (155 steps; 2 clips without steps) built by
`footstep_eval.py slice` from OpenClonk's steps and distractors over synthetic backgrounds,
one clip per transmission model and microphone chain. OpenClonk is fold 1, which the shipped
model trains on: the slice guards against regressions; the unseen-family figures come from
`make eval` (docs/evaluation.md). Shipped model when pinned: F1 0.789, macro-F1 0.752,
3 false footsteps in the 40 s without steps.
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoring  # noqa: E402
from footstep_eval import SLICE  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
FOOTSTEPCTL = os.environ.get("FOOTSTEPCTL", os.path.join(ROOT, ".build", "debug", "footstepctl"))


@unittest.skipUnless(os.path.exists(FOOTSTEPCTL), f"{FOOTSTEPCTL} is not built (make test builds it first)")
class SliceTests(unittest.TestCase):
    def test_the_shipped_pipeline_on_the_fixed_slice(self):
        gt = os.path.join(SLICE, "gt")
        clips = sorted(os.path.join(gt, n) for n in os.listdir(gt) if n.endswith(".flac"))
        self.assertEqual(len(clips), 8)
        with tempfile.TemporaryDirectory() as predictions:
            subprocess.run([FOOTSTEPCTL, "analyze", "--quiet", "--output", predictions] + clips, check=True,
                           stdout=subprocess.DEVNULL)
            total, _ = scoring.score_directory(predictions, gt)
        f = total.figures()
        print(f"\nslice: F1 {f['f1']:.3f} (P {f['precision']:.3f} R {f['recall']:.3f}), "
              f"{f['false_per_hour']:.0f} false footsteps/h, macro-F1 {f['macro_f1']:.3f}")
        self.assertEqual(f["tp"] + f["fn"], 155)
        self.assertGreaterEqual(f["f1"], 0.74)
        self.assertGreaterEqual(f["macro_f1"], 0.70)
        self.assertLessEqual(f["false_per_hour"], 360, "at most 4 false footsteps in the 40 s without steps")
        for k in scoring.CLASSES:
            self.assertGreaterEqual(f["per_class"][k]["recall"], 0.3, k)


if __name__ == "__main__":
    unittest.main()
