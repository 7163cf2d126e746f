"""Tests of the frame step network's trainer: its NumPy forward pass (the one the Swift network is checked against),
the picture files it reads and how it attaches a network to a model (run by `make test`)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_network  # noqa: E402


def one_band_network(weights, bias, dilation=1, residual_weight=None, lookahead=0):
    """A network over a picture whose only non-zero band is band 0: one channel, taps `weights` (t−2d, t−d, t)."""
    bands = frame_network.BANDS
    w = np.zeros((1, bands, 3))
    w[0, 0] = weights
    convolutions = [dict(inputs=bands, outputs=1, dilation=dilation, weights=w.ravel().tolist(), biases=[bias],
                         residual=False)]
    if residual_weight is not None:
        convolutions.append(dict(inputs=1, outputs=1, dilation=1, weights=[0, 0, residual_weight], biases=[0],
                                 residual=True))
    return dict(pictureVersion=1, bands=bands, pictureScale=1.0, lookahead=lookahead, convolutions=convolutions,
                output=dict(weights=[[1.0]], biases=[0.0], activation="linear"))


def picture(values):
    pic = np.zeros((len(values), frame_network.BANDS))
    pic[:, 0] = values
    return pic


def logit(p):
    return np.log(p / (1 - p))


class ForwardTests(unittest.TestCase):
    def test_taps_reach_back_two_dilations_one_and_none_with_zeros_before_the_start(self):
        frame = one_band_network([0.01, 0.1, 1], 0, dilation=2)
        prob = frame_network.forward(frame, picture([1, 2, 3, 4, 5]))
        # Frame 4: 0.01·x[0] + 0.1·x[2] + 1·x[4]; frame 1: x[−3] and x[−1] are zeros.
        np.testing.assert_allclose(logit(prob[4]), 0.01 + 0.3 + 5)
        np.testing.assert_allclose(logit(prob[1]), 2)

    def test_relu_then_a_residual_layer_adds_its_input(self):
        frame = one_band_network([0, 0, 1], -2, residual_weight=3)
        prob = frame_network.forward(frame, picture([1, 5]))
        # Frame 0: relu(1 − 2) = 0, then 0 + relu(3·0) = 0; frame 1: relu(5 − 2) = 3, then 3 + relu(9) = 12.
        np.testing.assert_allclose(prob, 1 / (1 + np.exp(-np.array([0.0, 12.0]))))

    def test_the_look_ahead_moves_each_probability_back_to_its_frame(self):
        frame = one_band_network([0, 0, 1], 0, lookahead=2)
        prob = frame_network.forward(frame, picture([1, 2, 3, 4]))
        np.testing.assert_allclose(logit(prob[:2]), [3, 4])
        self.assertEqual(list(prob[2:]), [0, 0])  # not heard yet when the clip ends


class PictureFileTests(unittest.TestCase):
    def test_a_file_is_frames_of_all_bands_and_a_torn_one_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "clip.f32")
            np.arange(3 * frame_network.BANDS, dtype="<f4").tofile(path)
            pic = frame_network.read_picture(path)
            self.assertEqual(pic.shape, (3, frame_network.BANDS))
            self.assertEqual(pic[1, 0], frame_network.BANDS)
            np.arange(3 * frame_network.BANDS - 1, dtype="<f4").tofile(path)
            with self.assertRaisesRegex(ValueError, "whole number"):
                frame_network.read_picture(path)


class AttachTests(unittest.TestCase):
    @staticmethod
    def attach_args(d, model):
        """`attach`'s arguments for a one-band network and `model` written into directory `d`."""
        frame_path, model_path = os.path.join(d, "frame.json"), os.path.join(d, "model.json")
        with open(frame_path, "w") as f:
            json.dump(one_band_network([0, 0, 1], 0), f)
        with open(model_path, "w") as f:
            json.dump(model, f)
        return type("Args", (), dict(frame=frame_path, model=model_path))

    def test_the_network_goes_into_the_model(self):
        with tempfile.TemporaryDirectory() as d:
            args = self.attach_args(d, dict(format="footstepd-event-classifier", temperature=1.5))
            model_path = args.model
            with contextlib.redirect_stdout(io.StringIO()):
                frame_network.attach(args)
            with open(model_path) as f:
                model = json.load(f)
            self.assertEqual(model["temperature"], 1.5)
            self.assertEqual(model["frameNetwork"]["bands"], frame_network.BANDS)
            self.assertEqual(model["frameNetwork"]["convolutions"][0]["dilation"], 1)

    def test_a_new_network_drops_the_decision_and_calibration_fitted_with_the_old(self):
        with tempfile.TemporaryDirectory() as d:
            args = self.attach_args(d, dict(temperature=1.5, frameNetwork=dict(decision=dict(threshold=0.5)),
                                            confidenceCalibration=dict(curves=[])))
            model_path = args.model
            with contextlib.redirect_stdout(io.StringIO()) as said:
                frame_network.attach(args)
            with open(model_path) as f:
                model = json.load(f)
            self.assertNotIn("decision", model["frameNetwork"])
            self.assertNotIn("confidenceCalibration", model)
            self.assertIn("frame_decision.py attach", said.getvalue())
            self.assertIn("output_calibration.py attach", said.getvalue())


if __name__ == "__main__":
    unittest.main()
