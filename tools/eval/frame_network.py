#!/usr/bin/env python3
"""Trains footstepd's frame step network (`FrameStepNetwork`, `FrameEvidence`) on the evaluation's training clips,
one network per fold (trained without that fold's recording families) and one on every fold, and puts each into
its classifier model as `frameNetwork`.

    tools/.venv/bin/python tools/eval/frame_network.py pictures [--out /tmp/footstep-eval] [--work W] [--split S]
    tools/.venv/bin/python tools/eval/frame_network.py train --fold K|full --json FILE [--batches 1200] [--channels 8] [--dilations 1 2 4 8 16 32]
        [--distractor-weight 1] [--floor-weight FLOOR=W ...] [--low-snr-weight 1] [--work W]
    tools/.venv/bin/python tools/eval/frame_network.py folds --models DIR [--channels 8] [--work W]
    tools/.venv/bin/python tools/eval/frame_network.py attach --frame FILE --model MODEL.json
    tools/.venv/bin/python tools/eval/frame_network.py probabilities --frame FILE PICTURE.f32   (one per line)
    python3 tools/eval/frame_network.py fixture --json Tests/FootstepClassifierTests/Fixtures/frame-network.json

`pictures` runs `footstep-dataset --frame-pictures` on each fold's clips (the training clips, the randomised ones
and the evaluation clips), so the network learns from the stream picture exactly as the pipeline forms it
(`FramePicture`: 16 log bands 20-400 Hz from 128 ms, 40 log bands 400-7600 Hz from 32 ms, every 10 ms, each band
relative to its 20th percentile over the last 30 s). `train` trains the causal network of
the frame study's run 3 (docs/research.md) (dilated 3-tap convolutions, 8 channels as shipped, 0.3 s look-ahead; the training clips
and the randomised ones, each window's clip drawn uniformly unless `--floor-weight` or `--low-snr-weight` weigh
some clips more; positives weighted a sixteenth of what would balance the classes) and writes it with
batch normalisation folded into the convolutions. `attach` puts a network into a model; the decision that judges
its onsets and the detections comes after it (`frame_decision.py attach`: footstepd refuses a frame network
without one). `folds` trains the network of every fold (and of all of them) and attaches each to
`train_folds.py`'s fold models and full.json (`make eval`).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_data  # noqa: E402
import scoring  # noqa: E402
import sources  # noqa: E402
import transmission  # noqa: E402

BANDS = 56
PICTURE_VERSION = 2  # FramePicture.version
LOOKAHEAD = 30
SCALE = 20.0
FOLDS = range(4)


def picture_dir(work, split, fold):
    return os.path.join(work, "pictures", split, str(fold))


def make_pictures(args):
    dataset = os.path.join(sources.ROOT, ".build", "release", "footstep-dataset")
    if not os.path.exists(dataset):
        sys.exit(f"{dataset} not found: build it (swift build -c release --product footstep-dataset)")
    for split in args.split:
        for fold in ([sources.LOCKBOX_FOLD] if split == "lockbox" else FOLDS):
            source_split = "eval" if split == "lockbox" else split
            gt = os.path.join(args.out, source_split, str(fold), "gt")
            target = picture_dir(args.work, source_split, fold)
            if not os.path.isdir(gt):
                sys.exit(f"{gt} missing: footstep_eval.py build first")
            if os.path.isdir(target) and len(os.listdir(target)) >= len(frame_data.clip_names(gt)):
                continue  # every clip's picture is there (pictures do not change with the models)
            started = time.time()
            subprocess.run([dataset, "--labelled", gt, "--frame-pictures", target], check=True)
            print(f"{source_split}/{fold}: pictures in {time.time() - started:.0f} s", flush=True)


def read_picture(path):
    """Frames x BANDS (dB over the band's floor) from a `footstep-dataset --frame-pictures` file."""
    values = np.fromfile(path, dtype="<f4")
    if values.size % BANDS:
        raise ValueError(f"{path}: {values.size} values, not a whole number of {BANDS}-band frames")
    return values.reshape(-1, BANDS)


def load_clips(out, work, split, fold):
    """{clip: (picture, targets, truth rows, meta)} as `frame_data.load_fold`, from the pipeline's pictures."""
    gt = os.path.join(out, split, str(fold), "gt")
    meta = frame_data.clip_meta(os.path.join(out, split, str(fold)))
    clips = {}
    for name in frame_data.clip_names(gt):
        pic = read_picture(os.path.join(picture_dir(work, split, fold), name + ".f32")).astype(np.float16)
        truth = scoring.read_truth(os.path.join(gt, name + ".csv"))
        target = np.zeros(len(pic), dtype=np.float32)
        for onset, _, label in truth:
            if not label.startswith("other"):
                centre = int(round(onset / frame_data.FRAME_SECONDS))
                target[max(0, centre - frame_data.TARGET_FRAMES):centre + frame_data.TARGET_FRAMES + 1] = 1
        clips[name] = (pic, target, truth, meta.get(name, {}))
    return clips


def export(net, lookahead=LOOKAHEAD):
    """The network as `FootstepModel.FrameNetwork` (batch normalisation folded into each convolution)."""
    layers = list(net)
    convolutions = []

    def folded(conv, norm, residual):
        w = conv.weight.detach().double().numpy()
        b = conv.bias.detach().double().numpy()
        scale = (norm.weight / (norm.running_var + norm.eps).sqrt()).detach().double().numpy()
        shift = norm.bias.detach().double().numpy() - norm.running_mean.detach().double().numpy() * scale
        return dict(inputs=int(w.shape[1]), outputs=int(w.shape[0]), dilation=int(conv.dilation[0]),
                    weights=(w * scale[:, None, None]).ravel().tolist(), biases=(b * scale + shift).tolist(),
                    residual=residual)

    convolutions.append(folded(layers[0].conv, layers[1], False))
    for block in layers[3:-1]:
        convolutions.append(folded(block.conv.conv, block.norm, True))
    out = layers[-1]
    return dict(pictureVersion=PICTURE_VERSION, bands=BANDS, pictureScale=SCALE, lookahead=lookahead,
                convolutions=convolutions,
                output=dict(weights=[out.weight.detach().double().numpy().ravel().tolist()],
                            biases=out.bias.detach().double().numpy().tolist(), activation="linear"))


def forward(frame, pic):
    """Each frame's probability from an exported network, as `FrameStepNetwork` computes it (NumPy, float64):
    the output at frame t is frame t − lookahead's; the last `lookahead` frames get 0."""
    x = pic.astype(np.float64) / frame["pictureScale"]
    for layer in frame["convolutions"]:
        w = np.array(layer["weights"]).reshape(layer["outputs"], layer["inputs"], 3)
        d = layer["dilation"]
        padded = np.vstack([np.zeros((2 * d, x.shape[1])), x])
        y = np.array(layer["biases"]) + sum(padded[tap * d:tap * d + len(x)] @ w[:, :, tap].T for tap in range(3))
        y = np.maximum(y, 0)
        x = x + y if layer["residual"] else y
    logit = x @ np.array(frame["output"]["weights"][0]) + frame["output"]["biases"][0]
    prob = 1 / (1 + np.exp(-logit))
    k = frame["lookahead"]
    return np.concatenate([prob[k:], np.zeros(k)]) if k else prob


def train(args):
    import torch

    torch.set_num_threads(2)
    floor_weights = parse_floor_weights(args.floor_weight)
    if args.low_snr_weight <= 0:
        sys.exit(f"--low-snr-weight {args.low_snr_weight}: give a positive weight (1: as any other clip)")
    held_out = None if args.fold == "full" else int(args.fold)
    training = {}
    for k in FOLDS:
        if k == held_out:
            continue
        for split in ("train", "train-randomised") + (("train-negatives",) if args.negatives else ()):
            training.update({f"{split}/{k}/{n}": v for n, v in load_clips(args.out, args.work, split, k).items()})
    print(f"fold {args.fold}: {len(training)} training clips", flush=True)
    clip_p = frame_data.sampling_weights([meta for _, _, _, meta in training.values()], floor_weights,
                                    args.low_snr_weight)
    net, steps = frame_data.train(training, None, args.seed, args.positive_share, LOOKAHEAD, batches=args.batches,
                             channels=args.channels, dilations=tuple(args.dilations),
                             distractor_weight=args.distractor_weight, clip_p=clip_p)
    print(f"fold {args.fold}: trained {steps} batches", flush=True)
    frame = export(net)
    # The exported network must be the trained one: compare on a training clip.
    pic = next(iter(training.values()))[0][:3000]
    gap = np.abs(forward(frame, pic) - frame_data.probabilities(net, pic, LOOKAHEAD)).max()
    if gap > 1e-4:
        sys.exit(f"the exported network differs from the trained one by {gap:.2g}")
    with open(args.json, "w") as f:
        json.dump(frame, f)
    print(f"wrote {args.json} (largest difference from torch {gap:.1g})")


def parse_floor_weights(items):
    """['slab=2', 'timber=2'] → {'slab': 2.0, 'timber': 2.0}; exits naming an item that is not FLOOR=WEIGHT."""
    weights = {}
    for item in items or []:
        floor, _, weight = item.partition("=")
        try:
            weights[floor] = float(weight)
        except ValueError:
            sys.exit(f"--floor-weight {item!r}: give FLOOR=WEIGHT, e.g. slab=2")
        if floor not in transmission.MODELS or weights[floor] <= 0:
            sys.exit(f"--floor-weight {item!r}: give a transmission model ({', '.join(transmission.MODELS)}) "
                     "and a positive weight, e.g. slab=2")
    return weights


def fixture(seed=20261128, frames=240):
    """A small random network of the shipped shape's kinds (a first convolution, residual dilated ones, one output),
    a random picture and `forward`'s probabilities: `FrameStepNetworkTests` checks the Swift network against it."""
    rng = np.random.default_rng(seed)
    channels = 8
    convolutions = []
    for inputs, dilation, residual in ((BANDS, 1, False), (channels, 1, True), (channels, 2, True), (channels, 4, True)):
        convolutions.append(dict(inputs=inputs, outputs=channels, dilation=dilation,
                                 weights=rng.normal(0, 0.3, channels * inputs * 3).round(6).tolist(),
                                 biases=rng.normal(0, 0.2, channels).round(6).tolist(), residual=residual))
    frame = dict(pictureVersion=PICTURE_VERSION, bands=BANDS, pictureScale=SCALE, lookahead=3,
                 convolutions=convolutions,
                 output=dict(weights=[rng.normal(0, 0.5, channels).round(6).tolist()], biases=[-0.5],
                             activation="linear"))
    pic = rng.normal(5, 8, (frames, BANDS)).clip(-10, 60).round(3)
    return dict(network=frame, picture=pic.ravel().tolist(), probabilities=forward(frame, pic).round(7).tolist())


def attach(args):
    with open(args.frame) as f:
        frame = json.load(f)
    with open(args.model) as f:
        model = json.load(f)
    # What was fitted to the pipeline with the previous network no longer describes it.
    stale = []
    if "decision" in (model.get("frameNetwork") or {}):
        stale.append("its decision (frame_decision.py attach)")
    if model.pop("confidenceCalibration", None) is not None:
        stale.append("the confidence calibration (output_calibration.py attach)")
    model["frameNetwork"] = frame
    with open(args.model, "w") as f:
        json.dump(model, f, separators=(",", ":"))
    print(f"{args.model}: frame network attached")
    if stale:
        print(f"  removed, fitted with the previous network: {' and '.join(stale)}; fit them again")


def folds(args):
    """A network per held-out fold (and one on every fold) put into the fold models `train_folds.py` wrote, so
    that `footstep_eval.py score` scores what ships (once `frame_decision.py attach` has added each decision)."""
    splits = ("train", "train-randomised", "eval") + (("train-negatives",) if args.negatives else ())
    missing = [split for split in splits if not all(os.path.isdir(picture_dir(args.work, split, k)) for k in FOLDS)]
    if missing:
        make_pictures(argparse.Namespace(out=args.out, work=args.work, split=missing))
    for k in [*map(str, FOLDS), "full"]:
        model = os.path.join(args.models, "full.json" if k == "full" else f"fold-{k}.json")
        if not os.path.exists(model):
            sys.exit(f"{model} not found: run tools/eval/train_folds.py --models {args.models} first")
        frame = os.path.join(args.models, f"frame-{k}.json")
        train(argparse.Namespace(out=args.out, work=args.work, fold=k, json=frame, batches=args.batches,
                                 seed=args.seed, positive_share=args.positive_share, channels=args.channels,
                                 dilations=args.dilations, distractor_weight=args.distractor_weight,
                                 floor_weight=args.floor_weight, low_snr_weight=args.low_snr_weight,
                                 negatives=args.negatives))
        attach(argparse.Namespace(frame=frame, model=model))


# How often a training window comes from each kind of clip (`frame_data.sampling_weights`): uniformly
# by default, as the shipped networks are trained (docs/evaluation.md, *A learned frame detector*, has what
# drawing the hard floors and low-SNR clips more often measures).
FLOOR_WEIGHTS = []
LOW_SNR_WEIGHT = 1.0


def sampling_options(p):
    p.add_argument("--negatives", action="store_true",
                   help="also train on the training negatives (train-negatives: beat music, clocks, machines)")
    p.add_argument("--floor-weight", nargs="*", default=FLOOR_WEIGHTS, metavar="FLOOR=WEIGHT",
                   help=f"draw the training windows from a transmission model's clips ({', '.join(transmission.MODELS)}) "
                        "this many times as often as from the others (default: uniform)")
    p.add_argument("--low-snr-weight", type=float, default=LOW_SNR_WEIGHT,
                   help=f"and from clips below 10 dB SNR this many times as often (default {LOW_SNR_WEIGHT})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="/tmp/footstep-eval")
    parser.add_argument("--work", default="/tmp/frame-network")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("pictures")
    p.add_argument("--split", nargs="+", default=["train", "train-randomised", "eval"],
                   choices=["train", "train-randomised", "train-negatives", "eval", "lockbox"])
    p = commands.add_parser("train")
    p.add_argument("--fold", required=True, choices=[*map(str, FOLDS), "full"])
    p.add_argument("--json", required=True)
    p.add_argument("--batches", type=int, default=1200, help="batches of 32 random 8 s windows")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--positive-share", type=float, default=0.0625)
    p.add_argument("--channels", type=int, default=8, help="convolution width (the cost is about its square)")
    p.add_argument("--dilations", type=int, nargs="+", default=list(frame_data.DILATIONS),
                   help="one residual block per dilation (frames); the network sees 3 + 2·their sum frames back")
    p.add_argument("--distractor-weight", type=float, default=1.0,
                   help="the loss's weight on the frames within 50 ms of a distractor's onset (others 1)")
    sampling_options(p)
    p = commands.add_parser("folds", help="train a network per fold and put it into each fold model and full.json "
                                          "in --models")
    p.add_argument("--models", required=True, help="train_folds.py's fold-K.json and full.json")
    p.add_argument("--batches", type=int, default=1200)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--positive-share", type=float, default=0.0625)
    p.add_argument("--channels", type=int, default=8)
    p.add_argument("--dilations", type=int, nargs="+", default=list(frame_data.DILATIONS))
    p.add_argument("--distractor-weight", type=float, default=1.0)
    sampling_options(p)
    p = commands.add_parser("attach")
    p.add_argument("--frame", required=True)
    p.add_argument("--model", required=True)
    p = commands.add_parser("fixture", help="write FrameStepNetworkTests' fixture")
    p.add_argument("--json", required=True)
    p = commands.add_parser("probabilities")
    p.add_argument("--frame", required=True)
    p.add_argument("picture")
    args = parser.parse_args()
    if args.command == "pictures":
        make_pictures(args)
    elif args.command == "train":
        train(args)
    elif args.command == "folds":
        folds(args)
    elif args.command == "attach":
        attach(args)
    elif args.command == "fixture":
        with open(args.json, "w") as f:
            json.dump(fixture(), f)
    else:
        with open(args.frame) as f:
            frame = json.load(f)
        for p in forward(frame, read_picture(args.picture)):
            print(f"{p:.6f}")


if __name__ == "__main__":
    main()
