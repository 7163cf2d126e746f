#!/usr/bin/env python3
"""Score `footstepctl analyze --output` CSVs against synthesizer ground truth.

usage: score_detections.py TRUTH.csv EVENTS.csv [--tolerance 0.05] [--all]

Prints precision, recall, F1 (each true onset matched to at most one detection
within the tolerance) and the median onset error. By default only footsteps of
the ground truth count as targets; --all counts every impact.
"""
import argparse
import csv
import statistics


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("truth")
    parser.add_argument("events")
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--all", action="store_true", help="count every ground-truth impact, not only footsteps")
    args = parser.parse_args()
    truth = [float(r["onset_s"]) for r in csv.DictReader(open(args.truth)) if args.all or r["kind"] == "footstep"]
    detected = sorted(float(r["onset_s"]) for r in csv.DictReader(open(args.events)))
    used = [False] * len(detected)
    errors = []
    for onset in sorted(truth):
        best = None
        for i, d in enumerate(detected):
            if not used[i] and abs(d - onset) <= args.tolerance and (best is None or abs(d - onset) < abs(detected[best] - onset)):
                best = i
        if best is not None:
            used[best] = True
            errors.append(detected[best] - onset)
    tp, fp, fn = len(errors), len(detected) - len(errors), len(truth) - len(errors)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    median = statistics.median(abs(e) for e in errors) * 1000 if errors else 0
    bias = statistics.median(errors) * 1000 if errors else 0
    print(f"F1 {f1:.3f} precision {precision:.3f} recall {recall:.3f} TP {tp} FP {fp} FN {fn} "
          f"median |err| {median:.1f} ms, median err {bias:+.1f} ms")


if __name__ == "__main__":
    main()
