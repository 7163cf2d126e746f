"""The negative families (`negatives.py`): clips with nobody walking, each family through every building,
deterministic, with truth rows the scorer reads, and scored per family as false footsteps an hour.

Made-up impacts (decaying noise bursts) and the synthetic backgrounds stand in for the recordings, which
`make test` does not fetch.
"""
import csv
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
    import scipy  # noqa: F401
except ImportError:  # pragma: no cover - the evaluation's own requirement
    np = None


def made_up_sources(with_music=True):
    import backgrounds
    import negatives
    from sources import RATE, Sound
    from test_corpus import sounds
    rng = np.random.default_rng(5)
    kit = [Sound(s.samples, "hydrogen-drumkits/Made", "music_hit", f"Made/{name}.flac")
           for s, name in zip(sounds("music_hit", 3, 3), ("bd_01", "sd_01", "tom"))]
    impacts = sounds("thud", 3, 4) + sounds("knock", 2, 6)
    music = [np.sin(2 * np.pi * 110 * np.arange(20 * RATE) / RATE) * rng.uniform(0.5, 1, 20 * RATE)] if with_music else []
    fold = {"steps": [], "distractors": kit + impacts, "music": music}
    synthetic = backgrounds.Backgrounds([], [], [], families=backgrounds.SYNTHETIC)
    # The radio's speech: a made-up voice (a tone gliding under a syllable-rate envelope) instead of espeak-ng's.
    t = np.arange(3 * RATE) / RATE
    voice = np.sin(2 * np.pi * (140 + 30 * np.sin(2 * np.pi * 0.7 * t)) * t) * (np.sin(2 * np.pi * 4 * t) > 0)
    radio = backgrounds.Backgrounds([voice], music, [], families=("tv",))
    return negatives.fold_sources(fold, radio, synthetic)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@unittest.skipUnless(np is not None, "the negatives need numpy and scipy")
class NegativeClipTests(unittest.TestCase):
    def test_every_family_is_a_clip_without_footsteps(self):
        import negatives
        from sources import RATE
        sources = made_up_sources()
        self.assertEqual(negatives.available(sources), list(negatives.FAMILIES))
        for family in negatives.FAMILIES:
            with self.subTest(family=family):
                rng = np.random.default_rng([1, negatives.FAMILIES.index(family)])
                x, truth, meta = negatives.make_clip(rng, sources, family, "ceiling", "clean", seconds=6)
                self.assertEqual(len(x), 6 * RATE)
                self.assertTrue(np.all(np.isfinite(x)))
                self.assertLessEqual(np.max(np.abs(x)), 0.99 + 1e-9)
                self.assertGreater(np.max(np.abs(x)), 10 ** (-36 / 20))
                self.assertEqual(meta["steps"], 0)
                self.assertEqual(meta["family"], family)
                self.assertTrue(all(label == "other:" + family for _, _, label in truth), truth[:3])
                if family not in ("music_track", "radio"):
                    self.assertTrue(truth, f"{family} placed no impact in 6 s")

    def test_a_quartz_clock_ticks_exactly_at_its_rate(self):
        import negatives
        sources = made_up_sources()
        seen = set()
        for seed in range(40):
            rng = np.random.default_rng([seed, 9])
            scene = negatives.Scene(10)
            negatives.clock(scene, rng, sources)
            onsets = np.array([on for on, _, _ in scene.truth])
            gaps = np.diff(onsets)
            rate = min(negatives.CLOCK_RATES, key=lambda r: abs(r - 1 / np.median(gaps)))
            self.assertAlmostEqual(1 / np.median(gaps), rate, delta=0.01 * rate)
            # Quartz ticks are exact to the sample; a mechanical clock jitters by a fraction of a millisecond.
            self.assertLess(np.max(np.abs(gaps - 1 / rate)), 0.003)
            seen.add(bool(np.max(np.abs(gaps - 1 / rate)) < 1.5 / 16000))
        self.assertEqual(seen, {True, False})

    def test_beat_music_keeps_its_tempo(self):
        import negatives
        sources = made_up_sources()
        for seed in range(10):
            scene = negatives.Scene(12)
            negatives.beat_music(scene, np.random.default_rng([seed, 3]), sources)
            onsets = np.array(sorted({round(on, 4) for on, _, _ in scene.truth}))
            self.assertGreaterEqual(len(onsets), 8)
            # Kicks and snares fall on sixteenths of one tempo between 60 and 180 bpm.
            sixteenth = np.min(np.diff(onsets))
            self.assertGreater(sixteenth, 60 / 180 / 4 * 0.69)

    def test_a_fold_without_music_has_no_music_tracks_and_every_building_hears_every_family(self):
        import negatives
        import transmission as tx
        sources = made_up_sources(with_music=False)
        families = negatives.available(sources)
        self.assertNotIn("music_track", families)
        plans = [negatives.clip_plan(0, i, families) for i in range(len(families) * len(tx.MODELS))]
        self.assertEqual({(p[2], p[3]) for p in plans}, {(f, m) for f in families for m in tx.MODELS})

    def test_build_is_deterministic_and_scored_per_family(self):
        import negatives
        import scoring
        sources = made_up_sources()
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            rows = negatives.build(a, sources, seed=3, clips=4, seconds=5)
            negatives.build(b, sources, seed=3, clips=4, seconds=5)
            for row in rows:
                for ext in (".wav", ".csv"):
                    with open(os.path.join(a, "gt", row["clip"] + ext), "rb") as f1, \
                            open(os.path.join(b, "gt", row["clip"] + ext), "rb") as f2:
                        self.assertEqual(f1.read(), f2.read())
            meta = read_rows(os.path.join(a, "clips_meta.csv"))
            self.assertEqual([r["family"] for r in meta], list(negatives.FAMILIES[:4]))
            # Two footsteps claimed on the first clip, none on the others: 2 in 5 s is 1,440 an hour for that
            # family, nothing for the rest.
            pred = os.path.join(b, "pred")
            os.makedirs(pred)
            with open(os.path.join(pred, meta[0]["clip"] + ".csv"), "w") as f:
                f.write("onset_s,label,confidence\n1.0,running,0.9\n2.0,heel_strike,0.8\n")
            total, groups = scoring.score_directory(pred, os.path.join(a, "gt"), group_by="family",
                                                    false_footsteps_only=True)
            self.assertAlmostEqual(groups[meta[0]["family"]].figures()["false_per_hour"], 1440, places=3)
            self.assertEqual(groups[meta[1]["family"]].figures()["false_per_hour"], 0)
            self.assertAlmostEqual(total.figures()["false_per_hour"], 2 / 20 * 3600, places=3)


if __name__ == "__main__":
    unittest.main()
