#!/usr/bin/env python3
"""Study: what would the frame decision gain from knowing which floor it is on? Thresholds chosen per
transmission model (an oracle that knows each clip's) against one threshold, for the decision's trees trained out
of fold as `frame_decision.py choose` trains them, on the training clips (unseen families). Prints one line per
threshold and, per 10 false footsteps an hour from 40 to 160, the best per-floor choice.

    tools/.venv/bin/python tools/eval/floor_threshold_study.py [--out /tmp/footstep-eval]
        [--work /tmp/footstep-eval/frames --predictions DIR --frames DIR]   (make eval's layout by default)
"""
import argparse
import itertools
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frame_decision as fd  # noqa: E402
import scoring  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--out", default="/tmp/footstep-eval")
parser.add_argument("--work", help="frame_network.py's pictures (default OUT/frames)")
parser.add_argument("--predictions", help="the training clips' predictions without a frame network "
                                          "(default OUT/train-predictions)")
parser.add_argument("--frames", help="directory with frame-K.json (default OUT/models)")
p = parser.parse_args()
p.work = p.work or os.path.join(p.out, "frames")
p.predictions = p.predictions or os.path.join(p.out, "train-predictions")
p.frames = p.frames or os.path.join(p.out, "models")
folds = fd.fold_candidates(p)
TH = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8]
t = defaultdict(scoring.Tally)
for k in fd.FOLDS:
    model = fd.fit(folds, [j for j in fd.FOLDS if j != k])
    for name, scenario, seconds, truth, found, _, _ in folds[k]:
        pr = model.predict_proba(np.array([f for _, f, _ in found]))[:, 1] if found else np.array([])
        for th in TH:
            claims = sorted((found[i][0], "footstep") for i in range(len(found)) if pr[i] >= th)
            t[(th, scenario)].add_clip(truth, claims, seconds)
scen = sorted({s for _, s in t})
def pooled(choice):
    tot = scoring.Tally()
    for s in scen: tot.merge(t[(choice[s], s)])
    f = tot.figures(); return f["f1"], f["false_per_hour"]
base = {th: pooled({s: th for s in scen}) for th in TH}
for th in TH: print(f"one threshold {th}: F1 {base[th][0]:.3f} at {base[th][1]:.0f}/h")
best = {}
for combo in itertools.product(TH, repeat=len(scen)):
    f1, fph = pooled(dict(zip(scen, combo)))
    key = int(fph // 10)
    if key not in best or f1 > best[key][0]: best[key] = (f1, fph, combo)
for key in sorted(best):
    f1, fph, combo = best[key]
    if 40 <= fph <= 160: print(f"per scenario {dict(zip(scen, combo))}: F1 {f1:.3f} at {fph:.0f}/h")
