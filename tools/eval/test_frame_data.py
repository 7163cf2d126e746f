"""Tests of the frame picture's NumPy helpers: peak picking, floors, training weights (run by `make test`)."""
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_data  # noqa: E402


class PeakTests(unittest.TestCase):
    def test_local_maxima_above_the_threshold_are_onsets(self):
        prob = np.zeros(300, dtype=np.float32)
        prob[50], prob[120], prob[124], prob[200] = 0.9, 0.7, 0.8, 0.4
        # 120 and 124 are within ±60 ms: only the higher one is an onset; 200 is under the threshold.
        self.assertEqual([round(t, 2) for t in frame_data.peaks(prob, 0.5)], [0.5, 1.24])

    def test_a_plateau_is_one_onset_at_its_start(self):
        prob = np.zeros(100, dtype=np.float32)
        prob[40:44] = 0.9
        self.assertEqual([round(t, 2) for t in frame_data.peaks(prob, 0.5)], [0.4])


class TrailingFloorTests(unittest.TestCase):
    def test_each_second_uses_the_seconds_before_it(self):
        # One band: 0 dB for 3 s, then 30 dB.
        db = np.concatenate([np.zeros(300), np.full(500, 30.0)])[:, None]
        floors = frame_data.trailing_floors(db, 2)[:, 0]
        self.assertEqual(floors[0], 0)  # the first second is its own history
        self.assertEqual(floors[350], 0)  # 3.5 s: the floor of 1-3 s, before the rise
        self.assertEqual(floors[450], 0)  # 4.5 s: 2-4 s, half quiet: the 20th percentile is still 0 dB
        self.assertEqual(floors[550], 30)  # 5.5 s: 3-5 s, all loud
        self.assertEqual(len(floors), 800)


class TrainingTests(unittest.TestCase):
    def test_the_receptive_field_is_three_frames_and_two_per_dilation(self):
        self.assertEqual(frame_data.receptive_frames(frame_data.DILATIONS), 129)  # 1.28 s back, as the Swift docs say
        self.assertEqual(frame_data.receptive_frames((1, 2, 4, 8, 16, 32, 64, 128)), 513)

    def test_frames_near_a_distractor_weigh_more_and_steps_do_not(self):
        pic = np.zeros((300, 2))
        truth = [(1.0, 0.2, "heel_strike"), (2.0, 0.3, "other:knock")]
        weights = frame_data.distractor_weights(pic, truth, 8.0)
        self.assertEqual(weights[100], 1)  # the step: its frames are positives, weighted by pos_weight instead
        self.assertEqual(list(weights[195:206]), [8.0] * 11)  # ±5 frames (50 ms) of the knock
        self.assertEqual((weights[194], weights[206]), (1, 1))
        self.assertEqual(weights.sum(), 300 + 7 * 11)

    def test_windows_come_more_often_from_the_weighted_floors_and_low_snr_clips(self):
        metas = [dict(scenario="ceiling", snr_db="20"), dict(scenario="slab", snr_db="20"),
                 dict(scenario="slab", snr_db="4.5"), dict(scenario="same_room", snr_db="3"), dict()]
        p = frame_data.sampling_weights(metas, {"slab": 2.0, "timber": 2.0}, low_snr_weight=2.0)
        # 1, 2, 2·2, 2 (low SNR only), 1 (no meta: neither) → out of 10.
        self.assertEqual(list(np.round(p * 10, 9)), [1.0, 2.0, 4.0, 2.0, 1.0])
        self.assertIsNone(frame_data.sampling_weights(metas))  # no weights: uniform, the generator's draws as before
        self.assertIsNone(frame_data.sampling_weights(metas[:2], {"timber": 3.0}))  # neither clip is timber
        with self.assertRaises(ValueError):
            frame_data.sampling_weights(metas, {"slab": 0.0})


class NearMaximumTests(unittest.TestCase):
    def test_the_highest_probability_within_50_ms(self):
        prob = np.zeros(500, dtype=np.float32)
        prob[100], prob[106] = 0.6, 0.95
        self.assertAlmostEqual(frame_data.near_maximum(prob, 1.0), 0.6, places=6)  # 106 is 60 ms away
        self.assertAlmostEqual(frame_data.near_maximum(prob, 1.02), 0.95, places=6)
        self.assertEqual(frame_data.near_maximum(prob, 9.0), 0.0)  # past the clip's end


if __name__ == "__main__":
    unittest.main()
