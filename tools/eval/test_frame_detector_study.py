"""Tests of the frame detector study's peak picking and fusion (run by `make test`)."""
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_detector_study as study  # noqa: E402


class PeakTests(unittest.TestCase):
    def test_local_maxima_above_the_threshold_are_onsets(self):
        prob = np.zeros(300, dtype=np.float32)
        prob[50], prob[120], prob[124], prob[200] = 0.9, 0.7, 0.8, 0.4
        # 120 and 124 are within ±60 ms: only the higher one is an onset; 200 is under the threshold.
        self.assertEqual([round(t, 2) for t in study.peaks(prob, 0.5)], [0.5, 1.24])

    def test_a_plateau_is_one_onset_at_its_start(self):
        prob = np.zeros(100, dtype=np.float32)
        prob[40:44] = 0.9
        self.assertEqual([round(t, 2) for t in study.peaks(prob, 0.5)], [0.4])


class TrailingFloorTests(unittest.TestCase):
    def test_each_second_uses_the_seconds_before_it(self):
        # One band: 0 dB for 3 s, then 30 dB.
        db = np.concatenate([np.zeros(300), np.full(500, 30.0)])[:, None]
        floors = study.trailing_floors(db, 2)[:, 0]
        self.assertEqual(floors[0], 0)  # the first second is its own history
        self.assertEqual(floors[350], 0)  # 3.5 s: the floor of 1-3 s, before the rise
        self.assertEqual(floors[450], 0)  # 4.5 s: 2-4 s, half quiet: the 20th percentile is still 0 dB
        self.assertEqual(floors[550], 30)  # 5.5 s: 3-5 s, all loud
        self.assertEqual(len(floors), 800)


class TrainingTests(unittest.TestCase):
    def test_the_receptive_field_is_three_frames_and_two_per_dilation(self):
        self.assertEqual(study.receptive_frames(study.DILATIONS), 129)  # 1.28 s back, as the Swift docs say
        self.assertEqual(study.receptive_frames((1, 2, 4, 8, 16, 32, 64, 128)), 513)

    def test_frames_near_a_distractor_weigh_more_and_steps_do_not(self):
        pic = np.zeros((300, 2))
        truth = [(1.0, 0.2, "heel_strike"), (2.0, 0.3, "other:knock")]
        weights = study.distractor_weights(pic, truth, 8.0)
        self.assertEqual(weights[100], 1)  # the step: its frames are positives, weighted by pos_weight instead
        self.assertEqual(list(weights[195:206]), [8.0] * 11)  # ±5 frames (50 ms) of the knock
        self.assertEqual((weights[194], weights[206]), (1, 1))
        self.assertEqual(weights.sum(), 300 + 7 * 11)

    def test_windows_come_more_often_from_the_weighted_floors_and_low_snr_clips(self):
        metas = [dict(scenario="ceiling", snr_db="20"), dict(scenario="slab", snr_db="20"),
                 dict(scenario="slab", snr_db="4.5"), dict(scenario="same_room", snr_db="3"), dict()]
        p = study.sampling_weights(metas, {"slab": 2.0, "timber": 2.0}, low_snr_weight=2.0)
        # 1, 2, 2·2, 2 (low SNR only), 1 (no meta: neither) → out of 10.
        self.assertEqual(list(np.round(p * 10, 9)), [1.0, 2.0, 4.0, 2.0, 1.0])
        self.assertIsNone(study.sampling_weights(metas))  # no weights: uniform, the generator's draws as before
        self.assertIsNone(study.sampling_weights(metas[:2], {"timber": 3.0}))  # neither clip is timber
        with self.assertRaises(ValueError):
            study.sampling_weights(metas, {"slab": 0.0})


class FusionTests(unittest.TestCase):
    rows = [dict(onset_s="1.00", label="heel_strike"), dict(onset_s="2.00", label="other"),
            dict(onset_s="3.00", label="stomping")]

    def probabilities(self):
        prob = np.zeros(500, dtype=np.float32)
        prob[100], prob[200], prob[300], prob[400] = 0.6, 0.95, 0.05, 0.97
        return prob

    def test_the_pipeline_alone_keeps_its_claims(self):
        self.assertEqual([t for t, _ in study.fused_claims(self.rows, self.probabilities())], [1.0, 3.0])

    def test_rescue_veto_and_add(self):
        prob = self.probabilities()
        self.assertEqual([t for t, _ in study.fused_claims(self.rows, prob, rescue=0.9)], [1.0, 2.0, 3.0])
        self.assertEqual([t for t, _ in study.fused_claims(self.rows, prob, veto=0.1)], [1.0])
        # The network's onset at 4 s has no detection near it; those at 1 and 2 s do.
        self.assertEqual([t for t, _ in study.fused_claims(self.rows, prob, add=0.9)], [1.0, 3.0, 4.0])

    def test_a_fusion_is_read_from_its_command_line_form(self):
        self.assertEqual(study.parse_fusion("rescue=0.5,veto=0.1,add=0.5,company=1.5"),
                         dict(rescue=0.5, veto=0.1, add=0.5, company=1.5))
        with self.assertRaisesRegex(ValueError, "unknown fusion setting 'resuce'"):
            study.parse_fusion("resuce=0.5")
        with self.assertRaisesRegex(ValueError, "veto needs a number"):
            study.parse_fusion("veto=low")

    def test_company_needs_a_footstep_of_the_pipeline_nearby(self):
        prob = self.probabilities()
        # The rescued detection at 2 s has the claims at 1 and 3 s within 1.5 s; the added onset at 4 s has
        # the claim at 3 s within 1.5 s but none within 0.5 s.
        self.assertEqual([t for t, _ in study.fused_claims(self.rows, prob, rescue=0.9, add=0.9, company=1.5)],
                         [1.0, 2.0, 3.0, 4.0])
        self.assertEqual([t for t, _ in study.fused_claims(self.rows, prob, rescue=0.9, add=0.9, company=0.5)],
                         [1.0, 3.0])


if __name__ == "__main__":
    unittest.main()
