#!/usr/bin/env python3
"""How far could a perfect judge of today's candidates go? On the evaluation clips, unseen families.

    tools/.venv/bin/python tools/eval/candidate_ceiling_study.py --predictions DIR [--out /tmp/footstep-eval]
        [--work /tmp/footstep-eval/frames] [--models /tmp/footstep-eval/models] [--floors 0.3 0.2 0.1]

DIR is what `footstep_eval.py score --models MODELS --predictions DIR` wrote (DIR/model-K/K/CLIP.csv: every event
of fold K's evaluation clips by fold K's model). A candidate is a row of that output (a detection of any label, or
a step the frame network added) or an onset of fold K's frame network (MODELS/frame-K.json, run in NumPy on the
pipeline's pictures under WORK, as `frame_network.py folds` left them) at least a floor (`FrameDecision.onsetFloor`,
0.3, as shipped; lower ones for what more candidates would give) with no row within the scorer's 100 ms. Printed
per floor and transmission model: the share of steps matched one to one by a row and by any candidate, the
candidates a minute, and the F1 of a judge that takes every candidate matched to a step and nothing else
(precision 1, recall that share).
"""
import argparse
import collections
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_decision  # noqa: E402
import frame_detector_study as study  # noqa: E402
import frame_network  # noqa: E402
import scoring  # noqa: E402

ONSET_FLOOR = frame_decision.ONSET_FLOOR  # FrameDecision.onsetFloor


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--predictions", required=True)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    parser.add_argument("--work", default="/tmp/footstep-eval/frames")
    parser.add_argument("--models", default="/tmp/footstep-eval/models")
    parser.add_argument("--floors", type=float, nargs="+", default=[ONSET_FLOOR])
    args = parser.parse_args()
    counts = collections.defaultdict(collections.Counter)
    for k in range(4):
        for path in (os.path.join(args.models, f"frame-{k}.json"), os.path.join(args.predictions, f"model-{k}", str(k))):
            if not os.path.exists(path):
                sys.exit(f"{path} missing: run `make eval` (the fold networks) and `footstep_eval.py score --models "
                         f"{args.models} --predictions {args.predictions}` first")
        with open(os.path.join(args.models, f"frame-{k}.json")) as f:
            frame = json.load(f)
        for name, (pic, _, truth, meta) in frame_network.load_clips(args.out, args.work, "eval", k).items():
            rows = scoring.read_rows(os.path.join(args.predictions, f"model-{k}", str(k), name + ".csv"))
            output = np.array(sorted(float(r["onset_s"]) for r in rows))
            prob = frame_network.forward(frame, pic)
            steps = [t[0] for t in truth if not t[2].startswith("other")]
            rows_matched = len(scoring.match(steps, list(output)))
            for floor in args.floors:
                onsets = [t for t in study.peaks(prob, floor)
                          if not (len(output) and np.min(np.abs(output - t)) <= scoring.TOLERANCE)]
                matched = len(scoring.match(steps, sorted(list(output) + onsets)))
                for key in ((floor, "all"), (floor, meta.get("scenario", "?"))):
                    c = counts[key]
                    c["steps"] += len(steps)
                    c["rows"] += rows_matched
                    c["candidates"] += matched
                    c["count"] += len(output) + len(onsets)
                    c["minutes"] += len(pic) * study.FRAME_SECONDS / 60
    for floor in args.floors:
        for scenario in ["all"] + sorted({s for f, s in counts if f == floor and s != "all"}):
            c = counts[(floor, scenario)]
            rows, candidates = c["rows"] / c["steps"], c["candidates"] / c["steps"]
            print(f"network onsets >= {floor:g}, {scenario}: {c['steps']} steps; matched by a row of the output "
                  f"{rows:.3f}, by any candidate {candidates:.3f} ({c['count'] / c['minutes']:.0f} candidates a "
                  f"minute); a perfect judge of the candidates: F1 {2 * candidates / (1 + candidates):.3f}")


if __name__ == "__main__":
    main()
