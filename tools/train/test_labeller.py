"""The labelling network's targets and its post-processor (`labeller.py`); the network itself needs PyTorch and
the built clips, so `make test` checks only what turns truth into targets and probabilities into events."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
    import scipy  # noqa: F401
except ImportError:  # pragma: no cover - the trainer's own requirement
    np = None


@unittest.skipUnless(np is not None, "the labeller needs numpy and scipy")
class TargetTests(unittest.TestCase):
    def test_steps_others_and_types_land_on_their_frames(self):
        import labeller
        truth = [(1.0, 1.2, "running"), (2.0, 2.1, "other:clock"), (3.0, 3.3, "shuffling")]
        step, other, kind = labeller.targets(truth, 400)
        self.assertEqual(list(np.flatnonzero(step)), [98, 99, 100, 101, 102, 298, 299, 300, 301, 302])
        self.assertEqual(list(np.flatnonzero(other)), [198, 199, 200, 201, 202])
        self.assertEqual(set(kind[98:103]), {labeller.TYPES.index("running")})
        self.assertEqual(set(kind[298:303]), {labeller.TYPES.index("shuffling")})
        self.assertEqual(int(np.sum(kind >= 0)), 10)


@unittest.skipUnless(np is not None, "the labeller needs numpy and scipy")
class PostProcessorTests(unittest.TestCase):
    def curve(self, peaks, frames=600):
        step = np.zeros(frames)
        for frame, height in peaks:
            step[frame - 3:frame + 4] = np.maximum(step[frame - 3:frame + 4], height * np.array([.3, .5, .8, 1, .8, .5, .3]))
        return step

    def types(self, frames, kinds):
        types = np.full((frames, 4), 0.1)
        for frame, kind in kinds:
            types[frame - 2:frame + 3] = 0.1
            types[frame - 2:frame + 3, kind] = 0.7
        return types

    def test_peaks_above_the_threshold_and_apart_are_steps(self):
        import labeller
        step = self.curve([(100, 0.9), (108, 0.8), (300, 0.6), (450, 0.3)])
        rows = labeller.postprocess(step, self.types(600, []), labeller.Settings(threshold=0.5, bout_vote=False))
        # 108 is within the minimum gap of the stronger 100; 450 is below the threshold.
        self.assertEqual([round(r[0], 2) for r in rows], [1.0, 3.0])
        self.assertEqual([round(r[2], 2) for r in rows], [0.9, 0.6])

    def test_a_bout_takes_its_steps_vote_and_a_doubtful_step_is_unknown(self):
        import labeller
        step = self.curve([(100, 0.9), (160, 0.9), (220, 0.9), (500, 0.45)])
        kinds = [(100, 2), (160, 2), (220, 3), (500, 1)]
        alone = labeller.postprocess(step, self.types(600, kinds), labeller.Settings(threshold=0.4, bout_vote=False))
        self.assertEqual([r[1] for r in alone], ["stomping", "stomping", "shuffling", "unknown"])
        voted = labeller.postprocess(step, self.types(600, kinds), labeller.Settings(threshold=0.4, bout_gap=1.0))
        self.assertEqual([r[1] for r in voted], ["stomping", "stomping", "stomping", "unknown"])


if __name__ == "__main__":
    unittest.main()


@unittest.skipUnless(np is not None, "the labeller needs numpy and scipy")
class TrainingWindowTests(unittest.TestCase):
    def test_negatives_get_their_share_of_the_windows(self):
        import labeller
        negative = np.array([True, False, False, False, True])
        p = labeller.clip_shares(negative, 0.3)
        self.assertAlmostEqual(float(p.sum()), 1.0)
        self.assertAlmostEqual(float(p[negative].sum()), 0.3)
        self.assertAlmostEqual(float(p[0]), 0.15)
        self.assertIsNone(labeller.clip_shares(negative, None))
        self.assertIsNone(labeller.clip_shares(np.array([False, False]), 0.3))

    def test_augment_shifts_tilts_and_masks_without_changing_the_shape(self):
        import labeller
        rng = np.random.default_rng(3)
        x = np.ones((50, 56), dtype=np.float32)
        masked = 0
        for _ in range(20):
            y = labeller.augment(x.copy(), rng)
            self.assertEqual(y.shape, x.shape)
            self.assertEqual(y.dtype, np.float32)
            # One shift per band for the whole window: every frame of a band moves alike.
            self.assertTrue(np.allclose(y, y[:1]))
            masked += int(np.any(np.all(y == 0, axis=0)))
        self.assertGreater(masked, 0)
        self.assertLess(masked, 20)


@unittest.skipUnless(np is not None, "the labeller needs numpy and scipy")
class MixTests(unittest.TestCase):
    def test_a_negative_mixed_under_a_window_adds_power_and_its_other_impacts(self):
        import labeller
        rng = np.random.default_rng(3)
        window, lead = 200, 50
        x = np.zeros((window, 56), dtype=np.float32)  # at the floor everywhere
        pic = np.full((window, 56), 40.0, dtype=np.float16)  # 40 dB over the floor
        other = np.zeros(window, dtype=np.float32)
        other[100:105] = 1
        negative = (pic, np.zeros(window), other, np.full(window, -1), [], {})
        mixed, mixed_other = labeller.mix_negative(x, [negative], rng, lead)
        self.assertEqual(mixed.shape, x.shape)
        db = mixed * labeller.frame_network.SCALE
        # 10·log10(1 + 10^((40 + gain)/10)) with the gain in [-20, 0]: between 20.04 and 40.0 dB, one gain for all.
        self.assertTrue(np.all((db > 20.0) & (db < 40.01)))
        self.assertAlmostEqual(float(db.max() - db.min()), 0.0, places=3)
        self.assertEqual(len(mixed_other), window - lead)
        self.assertEqual(list(np.flatnonzero(mixed_other)),
                         [i - (lead - labeller.LOOKAHEAD) for i in range(100, 105)])


@unittest.skipUnless(np is not None, "the labeller needs numpy and scipy")
class PoolTests(unittest.TestCase):
    def test_pooled_bands_are_their_groups_mean(self):
        import labeller
        x = np.arange(2 * 56, dtype=np.float32).reshape(2, 56)
        pooled = labeller.pool_bands(x, 4)
        self.assertEqual(pooled.shape, x.shape)
        self.assertTrue(np.allclose(pooled[0, :4], x[0, :4].mean()))
        self.assertTrue(np.allclose(pooled[1, 52:], x[1, 52:].mean()))
        self.assertIs(labeller.pool_bands(x, 1), x)
