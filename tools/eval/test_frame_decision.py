"""Tests of the frame decision's features (run by `make test`): what `FrameEvidence` in Swift forms too."""
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frame_decision as decision  # noqa: E402


class CandidateTests(unittest.TestCase):
    rows = [dict(onset_s="1.000", label="heel_strike", confidence="0.900", duration_s="0.200"),
            dict(onset_s="1.600", label="other", confidence="0.700", duration_s="0.300"),
            dict(onset_s="4.000", label="other", confidence="0.600", duration_s="0.100")]

    def test_detections_and_far_network_onsets_with_their_neighbours(self):
        prob = np.zeros(600, dtype=np.float32)
        prob[100], prob[160] = 0.9, 0.4  # at the two first detections: not candidates of their own
        prob[250] = 0.6  # 2.5 s: a network onset with no detection near
        prob[405] = 0.85  # 4.05 s: within 100 ms of the third detection
        found = decision.candidates(self.rows, prob)
        self.assertEqual([round(t, 2) for t, _, _ in found], [1.0, 1.6, 4.0, 2.5])
        self.assertEqual([d for _, _, d in found], [True, True, True, False])
        features = {round(t, 2): dict(zip(decision.NAMES, f)) for t, f, _ in found}
        first = features[1.0]
        self.assertEqual((first["detection"], first["footstep_label"], first["footstep_probability"]), (1, 1, 0.9))
        self.assertAlmostEqual(first["network_50ms"], 0.9, places=6)
        self.assertEqual(first["duration_s"], 0.2)
        # No other footstep: the window; one network onset ≥ 0.3 within 2 s (1.6), one ≥ 0.5 (2.5), a detection.
        self.assertEqual(first["nearest_footstep_s"], decision.WINDOW)
        self.assertEqual((first["footsteps_2s"], first["network_onsets_03_2s"], first["network_onsets_05_2s"],
                          first["network_onsets_08_2s"], first["detections_2s"]), (0, 2, 1, 0, 1))
        second = features[1.6]
        self.assertAlmostEqual(second["footstep_probability"], 0.3)
        self.assertAlmostEqual(second["nearest_footstep_s"], 0.6)
        self.assertEqual((second["footsteps_2s"], second["network_onsets_08_2s"]), (1, 1))
        added = features[2.5]
        self.assertEqual((added["detection"], added["footstep_label"], added["duration_s"]), (0, 0, 0))
        self.assertAlmostEqual(added["network_20ms"], 0.6, places=6)
        self.assertAlmostEqual(added["nearest_footstep_s"], 1.5)
        # 1.0, 1.6 and 4.05 s are its neighbours among the onsets (4.05 s: 1.55 s away), two of them ≥ 0.8.
        self.assertEqual((added["network_onsets_03_2s"], added["network_onsets_08_2s"], added["detections_2s"]),
                         (3, 2, 3))


class NetworkBeatTests(unittest.TestCase):
    # FrameStepNetworkTests.theNetworksBeatIsItsStrongestRegularTrainThroughTheCandidate: the same cases.
    @staticmethod
    def beat(peaks, centre):
        prob = np.zeros(1000, dtype=np.float32)
        for hop, p in peaks.items():
            prob[hop] = p
        return decision.network_beat(decision.beat_peaks(prob), centre)

    def test_a_walk_through_the_candidate_and_impacts_that_are_none(self):
        walk = {300: 0.9, 361: 0.9, 420: 0.9, 478: 0.9, 540: 0.9, 800: 0.9}
        self.assertAlmostEqual(self.beat(walk, 420), 0.9, places=6)
        self.assertAlmostEqual(self.beat(walk, 540), 0.6, places=6)
        self.assertEqual(self.beat(walk, 800), 0)
        # The second step after, 230 frames on, is further than the window: not heard when judged.
        self.assertAlmostEqual(self.beat({100: 0.9, 215: 0.9, 330: 0.9}, 100), 0.3, places=6)
        self.assertAlmostEqual(self.beat({500: 0.9, 530: 0.9}, 500), 0.3, places=6)
        self.assertEqual(self.beat({497: 0.9, 503: 0.9}, 500), 0)

    def test_every_candidate_has_its_beat(self):
        prob = np.zeros(600, dtype=np.float32)
        prob[[100, 160, 220]] = 0.9
        found = decision.candidates([dict(onset_s="1.600", label="other", confidence="0.7", duration_s="0.1")], prob)
        beats = {round(t, 2): dict(zip(decision.NAMES, f))["network_beat"] for t, f, _ in found}
        self.assertAlmostEqual(beats[1.6], 0.6, places=6)  # the detection between two network onsets
        self.assertAlmostEqual(beats[1.0], 0.6, places=6)  # a network onset: 1.6 and 2.2 s after it


if __name__ == "__main__":
    unittest.main()
