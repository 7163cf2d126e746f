"""Tests of exact_beat_study.py's timing and chains (run by `make test`)."""
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import exact_beat_study as study  # noqa: E402


def thud(seconds, starts, rate=study.RATE):
    """Faint noise with a 60 Hz thud (3 ms rise, 60 ms decay) beginning at each of `starts` (seconds)."""
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1e-4, int(seconds * rate))
    t = np.arange(int(0.3 * rate)) / rate
    shape = (1 - np.exp(-t / 0.003)) * np.exp(-t / 0.06) * np.sin(2 * np.pi * 60 * t + 0.3)
    for s in starts:
        i = int(round(s * rate))
        x[i:i + len(shape)] += 0.3 * shape[: len(x) - i]
    return x


class AttackTests(unittest.TestCase):
    def test_the_same_sound_later_is_timed_that_much_later_wherever_the_onset_was_put(self):
        x = thud(3.0, [1.0, 2.0003])
        first = study.refined_onset(x, 0.996, 12)
        second = study.refined_onset(x, 2.009, 12)  # the detector's onset 5.7 ms later relative to the sound
        self.assertAlmostEqual(second - first, 1.0003, delta=0.0002)

    def test_the_attack_follows_the_sound_not_the_onset_given(self):
        x = thud(2.0, [1.0])
        self.assertAlmostEqual(study.refined_onset(x, 0.99, 12), study.refined_onset(x, 1.01, 12), delta=1e-9)
        self.assertGreater(study.refined_onset(x, 1.0, 12), 1.0)


class ChainTests(unittest.TestCase):
    def test_chains_are_onsets_at_one_gait_interval(self):
        times = np.array([0, 0.5, 1.0, 1.5, 1.7, 2.2, 2.8])
        self.assertEqual(study.chains(times, 3), [(0, 1, 2), (1, 2, 3), (3, 5, 6)])

    def test_a_machines_beat_has_no_spread_and_a_walk_a_few_per_cent(self):
        drum = np.array([0, 0.5, 1.0, 1.5])
        walk = np.array([0, 0.55, 1.111, 1.65])
        self.assertTrue(np.all(study.beat_errors(drum, 3) < 1e-9))
        self.assertTrue(np.all(study.beat_errors(walk, 3) > 0.015))

    def test_a_chain_ending_after_the_horizon_does_not_count(self):
        times = np.array([0.0, 1.0, 2.0])
        errors = study.beat_errors(times, 3, horizon=1.5)
        self.assertTrue(np.isinf(errors[0]), "the chain ends 2 s after its first onset")
        self.assertEqual(errors[1], 0.0)
        self.assertEqual(errors[2], 0.0)


if __name__ == "__main__":
    unittest.main()
