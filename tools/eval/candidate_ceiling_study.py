#!/usr/bin/env python3
"""How far could a perfect judge of today's candidates go? On the evaluation clips, unseen families.

    tools/.venv/bin/python tools/eval/candidate_ceiling_study.py --predictions DIR [--out /tmp/footstep-eval]
        [--work /tmp/footstep-eval/frames] [--models /tmp/footstep-eval/models]

DIR is what `footstep_eval.py score --models MODELS --predictions DIR` wrote (DIR/model-K/K/CLIP.csv: every event
of fold K's evaluation clips by fold K's model). A candidate is a row of that output (a detection of any label, or
a step the frame network added) or an onset of fold K's frame network (MODELS/frame-K.json, run in NumPy on the
pipeline's pictures under WORK, as `frame_network.py folds` left them) at least `FrameDecision.onsetFloor` (0.3)
with no row within the scorer's 100 ms. Printed per transmission model: the share of steps matched one to one
by a row and by any candidate, and the F1 of a judge that takes every candidate matched to a step and nothing
else (precision 1, recall that share).
"""
import argparse
import collections
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_detector_study as study  # noqa: E402
import frame_network  # noqa: E402
import scoring  # noqa: E402

ONSET_FLOOR = 0.3  # FrameDecision.onsetFloor


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--predictions", required=True)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    parser.add_argument("--work", default="/tmp/footstep-eval/frames")
    parser.add_argument("--models", default="/tmp/footstep-eval/models")
    args = parser.parse_args()
    counts = collections.defaultdict(collections.Counter)
    for k in range(4):
        with open(os.path.join(args.models, f"frame-{k}.json")) as f:
            frame = json.load(f)
        for name, (pic, _, truth, meta) in frame_network.load_clips(args.out, args.work, "eval", k).items():
            rows = scoring.read_rows(os.path.join(args.predictions, f"model-{k}", str(k), name + ".csv"))
            output = np.array(sorted(float(r["onset_s"]) for r in rows))
            onsets = [t for t in study.peaks(frame_network.forward(frame, pic), ONSET_FLOOR)
                      if not (len(output) and np.min(np.abs(output - t)) <= scoring.TOLERANCE)]
            steps = [t[0] for t in truth if not t[2].startswith("other")]
            for key in ("all", meta.get("scenario", "?")):
                counts[key]["steps"] += len(steps)
                counts[key]["rows"] += len(scoring.match(steps, list(output)))
                counts[key]["candidates"] += len(scoring.match(steps, sorted(list(output) + onsets)))
    for key in ["all"] + sorted(k for k in counts if k != "all"):
        c = counts[key]
        rows, candidates = c["rows"] / c["steps"], c["candidates"] / c["steps"]
        print(f"{key}: {c['steps']} steps; matched by a row of the output {rows:.3f}, by any candidate "
              f"{candidates:.3f}; a perfect judge of the candidates: F1 {2 * candidates / (1 + candidates):.3f}")


if __name__ == "__main__":
    main()
