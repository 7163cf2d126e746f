"""A small fixed slice of the evaluation, scored through `footstepctl analyze --output` (run by `make test`).

tools/eval/fixtures/slice: 8 clips of 20 s (155 steps; 2 clips without steps) built by
`footstep_eval.py slice` from OpenClonk's steps and distractors over synthetic backgrounds,
one clip per transmission model and microphone chain. OpenClonk is fold 1, which the shipped
model trains on: the slice guards against regressions; the unseen-family figures come from
`make eval` (docs/evaluation.md). The shipped model (0.8.0, trained on the negatives too):
F1 0.735 (precision 1.000, recall 0.581), macro-F1 0.889, no false footsteps in the 40 s
without steps, confidence ECE 0.059; the model of 0.7.0: F1 0.846, macro-F1 0.762, none.
Earlier models' figures: `git log -p -- tools/eval/test_slice.py`.
The second test checks that footstepd's bout typer (`BoutReviser`) computes the features
`bout_typer.py` trains it on: the types footstepctl gives after bouts end equal those the
Python code names from the live events.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bout_typer  # noqa: E402
import scoring  # noqa: E402
from footstep_eval import SLICE  # noqa: E402

MODEL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Sources", "FootstepClassifier", "Resources",
                     "footstep-model.json")

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
            reliability = scoring.Reliability()
            for clip in clips:
                name = os.path.basename(clip)[:-len(".flac")]
                reliability.add_clip(scoring.read_truth(os.path.join(gt, name + ".csv")),
                                     scoring.read_rows(os.path.join(predictions, name + ".csv")))
        f = total.figures()
        ece = reliability.figures()["ece"]
        print(f"\nslice: F1 {f['f1']:.3f} (P {f['precision']:.3f} R {f['recall']:.3f}), "
              f"{f['false_per_hour']:.0f} false footsteps/h, macro-F1 {f['macro_f1']:.3f}, confidence ECE {ece:.3f}")
        self.assertEqual(f["tp"] + f["fn"], 155)
        self.assertGreaterEqual(f["f1"], 0.71)
        self.assertGreaterEqual(f["macro_f1"], 0.80)
        self.assertLessEqual(f["false_per_hour"], 270, "at most 3 false footsteps in the 40 s without steps")
        for k in scoring.CLASSES:
            self.assertGreaterEqual(f["per_class"][k]["recall"], 0.3, k)
        # The confidences say how often a label is right: 0.059 with the shipped calibration.
        self.assertLessEqual(ece, 0.08, "the reported confidences are not calibrated")

    def test_the_bout_typer_names_the_types_bout_typer_py_names(self):
        gt = os.path.join(SLICE, "gt")
        clips = sorted(os.path.join(gt, n) for n in os.listdir(gt) if n.endswith(".flac"))
        with open(MODEL) as f:
            model = json.load(f)
        typer = model.pop("boutTyper")
        with tempfile.TemporaryDirectory() as work:
            live_model = os.path.join(work, "live.json")
            with open(live_model, "w") as f:
                json.dump(model, f)
            outputs = {}
            for name, path in (("live", live_model), ("revised", MODEL)):
                out = os.path.join(work, name + ".jsonl")
                with open(out, "w") as f:
                    subprocess.run([FOOTSTEPCTL, "analyze", "--format", "jsonl", "--model", path] + clips,
                                   check=True, stdout=f)
                outputs[name] = bout_typer.load_jsonl(out)
        agree = total = changed = 0
        for clip, events in outputs["live"].items():
            steps = sorted((e for e in events if e["kind"] == "footstep"), key=lambda e: e["onset_s"])
            if not steps:
                continue
            expected = bout_typer.retyped(steps, bout_typer.features(steps), typer)
            revised = {e["onset_s"]: e["type"] for e in outputs["revised"][clip] if e["kind"] == "footstep"}
            for step, (onset, label) in zip(steps, expected):
                got = revised.get(onset)
                got = "footstep" if got == "unknown" else got
                total += 1
                agree += got == label
                changed += got != ("footstep" if step["type"] == "unknown" else step["type"])
        print(f"\nbout typer: {agree}/{total} types as bout_typer.py names them, {changed} revised")
        self.assertGreater(total, 80)
        self.assertGreater(changed, 10, "the bout typer revised no types")
        # jsonl rounds levels to 0.1 dB and probabilities to 0.001: a few types on a boundary may differ.
        self.assertGreaterEqual(agree / total, 0.97)


if __name__ == "__main__":
    unittest.main()
