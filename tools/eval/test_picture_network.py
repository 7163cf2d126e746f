"""The picture network's NumPy side (`picture_network.py`): the forward pass footstepd's `PictureNetwork`
mirrors, the fusion with the event model's logits, and, where PyTorch is installed, the export against
PyTorch's own output. Swift's forward pass is checked against PyTorch in `PictureNetworkTests`."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
except ImportError:  # pragma: no cover - the evaluation's own requirement
    np = None

try:
    import torch  # noqa: F401
except ImportError:  # pragma: no cover - training only
    torch = None


@unittest.skipIf(np is None, "numpy is not installed")
class PictureNetworkTests(unittest.TestCase):
    def test_fusion_moves_the_footstep_log_odds_halfway_and_keeps_the_types_shares(self):
        import picture_network as pn
        rng = np.random.default_rng(3)
        z = rng.normal(size=(50, 5)) * 3
        net = rng.normal(size=50) * 4
        fused = pn.fuse(z, net)
        odds = lambda logits: np.logaddexp.reduce(logits[:, :4], axis=1) - logits[:, 4]  # noqa: E731
        np.testing.assert_allclose(odds(fused), odds(z) + 0.5 * (net - odds(z)), atol=1e-9)
        np.testing.assert_allclose(fused[:, :4] - fused[:, :1], z[:, :4] - z[:, :1], atol=1e-9)
        np.testing.assert_array_equal(fused[:, 4], z[:, 4])

    def test_forward_is_convolution_relu_pooling_mean_and_dense(self):
        import picture_network as pn
        centre = [0.0] * 9
        centre[4] = 1.0   # a 3x3 kernel that copies its input
        network = {"pictureShift": -40.0, "pictureScale": 20.0,
                   "convolutions": [{"inputs": 1, "outputs": 1, "weights": centre, "biases": [-1.0]}],
                   "dense": [{"weights": [[2.0, 0.5]], "biases": [0.25], "activation": "linear"}]}
        picture = np.full((1, pn.BANDS, pn.FRAMES), -40.0)
        picture[0, 3, 4] = 0.0      # 2 after scaling, 1 after the bias: the max of its 2x2 cell
        picture[0, 0, 24] = 0.0     # in the odd last frame, which the pooling drops
        features = np.array([[4.0]])
        cells = (pn.BANDS // 2) * (pn.FRAMES // 2)
        expected = 2.0 * (1.0 / cells) + 0.5 * 4.0 + 0.25
        self.assertAlmostEqual(pn.forward(network, picture, features)[0], expected, places=12)

    @unittest.skipIf(torch is None, "PyTorch is not installed (tools/requirements-train.txt)")
    def test_the_export_gives_pytorchs_logits(self):
        import picture_network as pn
        import tempfile
        import json
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "fixture.json")
            pn.write_fixture(path, cases=4, seed=5)
            with open(path) as f:
                fixture = json.load(f)
        for case in fixture["cases"]:
            got = pn.forward(fixture["network"], np.array([case["picture"]]).reshape(1, pn.BANDS, pn.FRAMES),
                             np.array([case["features"]]))[0]
            self.assertAlmostEqual(got, case["logit"], delta=1e-4 * max(1, abs(case["logit"])))


if __name__ == "__main__":
    unittest.main()
