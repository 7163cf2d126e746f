"""The picture network of the event model (`PictureNetwork` in footstepd): training with PyTorch, export to the
model file's `network` section, and the exported network's forward pass in NumPy (what footstepd computes).

The event's picture (`EventPicture`: 16 log-mel bands x 25 frames of 20 ms, dB relative to its loudest cell,
floored at -40) comes from `footstep-dataset --pictures`, computed by footstepd's own code. The network: three
blocks of 3x3 convolution, batch norm, ReLU and 2x2 max pooling (8-16-16 channels), the last block's channels
averaged over the picture, joined by the standardised event features, a 64-unit layer, one logit: footstep
(any type) against `other`. SpecAugment-style masking of 2 bands and 3 frames and a shift of up to one frame,
Adam (1e-3, weight decay 1e-4), 10 epochs of batch 256, each detection weighted as the trees weigh it.
Measured out of fold by a study (docs/research.md, *The impact as a picture*).
"""
import numpy as np

BANDS, FRAMES = 16, 25
PICTURE_VERSION = 1
SHIFT, SCALE = -40.0, 20.0   # the picture goes in as (dB - SHIFT) / SCALE
CHANNELS = (8, 16, 16)
HIDDEN = 64
WEIGHT = 0.5                 # fused log-odds: model + WEIGHT x (network - model), the mean of the two


def load_pictures(path, rows):
    """The sidecar of `footstep-dataset --pictures`: `rows` pictures of BANDS x FRAMES float32 values."""
    pictures = np.fromfile(path, dtype="<f4")
    if pictures.size != rows * BANDS * FRAMES:
        raise SystemExit(f"{path}: {pictures.size} values, expected {rows} rows x {BANDS * FRAMES}; rebuild the dataset")
    return pictures.reshape(rows, BANDS, FRAMES)


def _net(n_features):
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            blocks, inputs = [], 1
            for outputs in CHANNELS:
                blocks += [nn.Conv2d(inputs, outputs, 3, padding=1), nn.BatchNorm2d(outputs), nn.ReLU(),
                           nn.MaxPool2d(2)]
                inputs = outputs
            self.picture = nn.Sequential(*blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(CHANNELS[-1] + n_features, HIDDEN), nn.ReLU(),
                                      nn.Linear(HIDDEN, 1))

        def forward(self, picture, features):
            return self.head(torch.cat([self.picture(picture[:, None]), features], dim=1))[:, 0]

    return Net()


def fit(pictures, features, footstep, weights, seed=7, epochs=10):
    """Trains the network on pictures (n, BANDS, FRAMES) in dB, standardised features (n, F), footstep-or-not
    labels and per-row weights; returns it exported (`export`)."""
    import torch
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    picture = torch.from_numpy(((pictures - SHIFT) / SCALE).astype(np.float32))
    feature = torch.from_numpy(features.astype(np.float32))
    y = torch.from_numpy(footstep.astype(np.float32))
    w = torch.from_numpy(weights.astype(np.float32))
    net = _net(features.shape[1])
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)
    loss = torch.nn.BCEWithLogitsLoss(reduction="none")
    n = len(y)
    for _ in range(epochs):
        net.train()
        for batch in np.array_split(rng.permutation(n), max(1, n // 256)):
            p = torch.roll(picture[batch], int(rng.integers(-1, 2)), dims=2)
            band = int(rng.integers(0, BANDS - 1))
            p[:, band:band + 2, :] = 0
            frame = int(rng.integers(0, FRAMES - 2))
            p[:, :, frame:frame + 3] = 0
            optimiser.zero_grad()
            (loss(net(p, feature[batch]), y[batch]) * w[batch]).mean().backward()
            optimiser.step()
    net.eval()
    exported = export(net)
    sample = slice(0, min(n, 2000))
    with torch.no_grad():
        expected = net(picture[sample], feature[sample]).numpy()
    difference = np.abs(forward(exported, pictures[sample], features[sample]) - expected).max()
    assert difference < 1e-3, f"the exported network differs from PyTorch's by {difference}"
    return exported


def export(net):
    """The model file's `network` section: batch norm folded into each convolution (evaluation mode)."""
    convolutions = []
    modules = list(net.picture)
    for conv, norm in [(modules[i], modules[i + 1]) for i in range(0, 4 * len(CHANNELS), 4)]:
        gain = (norm.weight / (norm.running_var + norm.eps).sqrt()).detach().numpy().astype(np.float64)
        weights = conv.weight.detach().numpy().astype(np.float64) * gain[:, None, None, None]
        biases = (conv.bias.detach().numpy() - norm.running_mean.detach().numpy()) * gain + norm.bias.detach().numpy()
        convolutions.append({"inputs": int(conv.in_channels), "outputs": int(conv.out_channels),
                             "weights": weights.reshape(-1).tolist(), "biases": biases.astype(np.float64).tolist()})
    linear = [m for m in net.head if hasattr(m, "weight")]
    dense = [{"weights": m.weight.detach().numpy().astype(np.float64).tolist(),
              "biases": m.bias.detach().numpy().astype(np.float64).tolist(),
              "activation": "relu" if i < len(linear) - 1 else "linear"} for i, m in enumerate(linear)]
    return {"pictureVersion": PICTURE_VERSION, "bands": BANDS, "frames": FRAMES, "pictureShift": SHIFT,
            "pictureScale": SCALE, "convolutions": convolutions, "dense": dense, "weight": WEIGHT}


def forward(network, pictures, features):
    """The exported network's footstep log-odds (n,), as `PictureNetwork.logit` computes them."""
    x = ((np.asarray(pictures, dtype=np.float64) - network["pictureShift"]) / network["pictureScale"])[:, None]
    for layer in network["convolutions"]:
        w = np.array(layer["weights"]).reshape(layer["outputs"], layer["inputs"], 3, 3)
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        height, width = x.shape[2], x.shape[3]
        out = np.zeros((x.shape[0], layer["outputs"], height, width)) + np.array(layer["biases"])[None, :, None, None]
        for ky in range(3):
            for kx in range(3):
                out += np.einsum("nihw,oi->nohw", padded[:, :, ky:ky + height, kx:kx + width], w[:, :, ky, kx])
        out = np.maximum(out, 0)
        rows, columns = height // 2, width // 2
        x = out[:, :, :2 * rows, :2 * columns].reshape(len(out), layer["outputs"], rows, 2, columns, 2).max(axis=(3, 5))
    h = np.hstack([x.mean(axis=(2, 3)), features])
    for layer in network["dense"]:
        h = h @ np.array(layer["weights"]).T + np.array(layer["biases"])
        if layer["activation"] == "relu":
            h = np.maximum(h, 0)
    return h[:, 0]


def fuse(logits, network_logit, weight=WEIGHT):
    """The event model's five logits with the footstep classes moved by weight x (network - model log-odds of
    any footstep), as `FootstepModelClassifier` fuses them."""
    z = np.array(logits, dtype=np.float64)
    footsteps = np.logaddexp.reduce(z[:, :4], axis=1)
    shift = weight * (network_logit - (footsteps - z[:, 4]))
    z[:, :4] += shift[:, None]
    return z


def write_fixture(path, cases=3, seed=11, n_features=48):
    """The parity fixture of `PictureNetworkTests`: a seeded network with non-trivial batch-norm statistics,
    exported, and PyTorch's own logits for a few random pictures and feature vectors."""
    import json
    import torch
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = _net(n_features)
    for module in net.picture:
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    net.eval()
    pictures = np.maximum(-40, rng.uniform(-60, 0, size=(cases, BANDS, FRAMES))).astype(np.float32)
    features = rng.normal(size=(cases, n_features)).astype(np.float32)
    with torch.no_grad():
        logits = net(torch.from_numpy((pictures - SHIFT) / SCALE), torch.from_numpy(features)).numpy()
    document = {"network": export(net), "cases": [
        {"picture": [float(v) for v in p.reshape(-1)], "features": [float(v) for v in f], "logit": float(z)}
        for p, f, z in zip(pictures, features, logits)]}

    def rounded(o):
        if isinstance(o, float):
            return float(f"{o:.7g}")
        if isinstance(o, list):
            return [rounded(v) for v in o]
        if isinstance(o, dict):
            return {k: rounded(v) for k, v in o.items()}
        return o
    with open(path, "w") as f:
        json.dump(rounded(document), f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != "--fixture":
        sys.exit("usage: picture_network.py --fixture Tests/FootstepClassifierTests/Fixtures/picture-network.json")
    write_fixture(sys.argv[2])
