"""The clip builder (`corpus.build`): clips are deterministic in (seed, index), so a fold built with
fewer clips and then extended (`footstep_eval.py build --train-clips N` over an existing fold) holds
byte for byte the clips a build of N from scratch writes; wide-path clips
(`build(wide_paths=True)`) are the same scenes through other buildings. And how a step recording is cut into single
impacts (`sources.split_at_gaps`): every footfall of a recording gets its own truth onset.

Made-up sounds (decaying noise bursts) and the synthetic backgrounds stand in for the recordings,
which `make test` does not fetch.
"""
import csv
import filecmp
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


def sounds(category, count, seed):
    from sources import RATE, Sound
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(RATE * rng.uniform(0.15, 0.4))
        burst = rng.standard_normal(n) * np.exp(-np.arange(n) / (RATE * rng.uniform(0.02, 0.08)))
        out.append(Sound(np.concatenate([np.zeros(64), burst]), f"made-up-{category}", category, f"{category}#{i}"))
    return out


def build_fold(out, distractors, clips=4, **options):
    """Builds `clips` clips of 10 s (seed 42) from made-up steps and `distractors` into `out`; returns the files of
    out/gt by name."""
    import backgrounds
    import corpus
    data = {"steps": sounds("footstep", 6, 1), "distractors": distractors}
    bg = backgrounds.Backgrounds([], [], [], families=backgrounds.SYNTHETIC)
    corpus.build(out, data, bg, seed=42, clips=clips, seconds=10, **options)
    files = {}
    for name in os.listdir(os.path.join(out, "gt")):
        with open(os.path.join(out, "gt", name), "rb") as f:
            files[name] = f.read()
    return files


@unittest.skipUnless(np is not None, "the evaluation's clip builder needs numpy and scipy")
class ExtendingAFoldTests(unittest.TestCase):
    def build(self, out, clips, first=0):
        import backgrounds
        import corpus
        data = {"steps": sounds("footstep", 6, 1), "distractors": sounds("drop", 4, 2)}
        bg = backgrounds.Backgrounds([], [], [], families=backgrounds.SYNTHETIC)
        return corpus.build(out, data, bg, seed=42, clips=clips, seconds=6, first=first)

    def test_an_extended_fold_equals_one_built_whole(self):
        with tempfile.TemporaryDirectory() as whole, tempfile.TemporaryDirectory() as extended:
            self.build(whole, 3)
            self.build(extended, 2)
            rows = self.build(extended, 3, first=2)
            self.assertEqual([r["clip"] for r in rows], sorted(n[:-4] for n in os.listdir(os.path.join(whole, "gt"))
                                                              if n.endswith(".csv")))
            names = sorted(os.listdir(os.path.join(whole, "gt")))
            self.assertEqual(names, sorted(os.listdir(os.path.join(extended, "gt"))))
            match, mismatch, errors = filecmp.cmpfiles(os.path.join(whole, "gt"), os.path.join(extended, "gt"),
                                                       names, shallow=False)
            self.assertEqual((mismatch, errors), ([], []))
            self.assertEqual(len(match), 6)  # three clips, each a .wav and a .csv
            self.assertTrue(filecmp.cmp(os.path.join(whole, "clips_meta.csv"),
                                        os.path.join(extended, "clips_meta.csv"), shallow=False))

    def test_extending_more_clips_than_the_fold_has_is_refused(self):
        with tempfile.TemporaryDirectory() as out:
            self.build(out, 2)
            with self.assertRaisesRegex(ValueError, "holds 2 clips, not the 3"):
                self.build(out, 4, first=3)


@unittest.skipUnless(np is not None, "the evaluation's clip builder needs numpy and scipy")
class ParallelBuildTests(unittest.TestCase):
    """`footstep_eval.py build --jobs N` writes the clips one process writes, and extends only what is missing."""

    def inputs(self):
        import backgrounds
        data = {k: {"steps": sounds("footstep", 6, 1 + k), "distractors": sounds("drop", 4, 2 + k)} for k in (0, 1)}
        return data, backgrounds.Backgrounds([], [], [], families=backgrounds.SYNTHETIC)

    def build(self, out, processes, counts):
        import footstep_eval
        jobs = footstep_eval.build_plan(out, counts, seconds=6)
        jobs = [j for j in jobs if j["fold"] in (0, 1)]
        footstep_eval.run_builds(jobs, *self.inputs(), processes=processes)
        return jobs

    def files(self, out):
        found = {}
        for root, _, names in os.walk(out):
            for name in names:
                with open(os.path.join(root, name), "rb") as f:
                    found[os.path.relpath(os.path.join(root, name), out)] = f.read()
        return found

    def test_two_processes_write_the_clips_one_writes(self):
        counts = dict(eval=2, train=2, randomised=1, distractors=1)
        with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
            self.build(one, 1, counts)
            self.build(two, 2, counts)
            a, b = self.files(one), self.files(two)
            self.assertEqual(sorted(a), sorted(b))
            self.assertGreater(len(a), 20)
            self.assertTrue(all(a[k] == b[k] for k in a), "the same bytes in every file")

    def test_a_second_build_only_extends_the_folds_that_are_short(self):
        with tempfile.TemporaryDirectory() as out:
            self.build(out, 2, dict(eval=1, train=1, randomised=0, distractors=0))
            jobs = self.build(out, 2, dict(eval=1, train=2, randomised=0, distractors=0))
            self.assertEqual([(os.path.basename(os.path.dirname(j["out_dir"])), j["first"], j["clips"]) for j in jobs],
                             [("train", 1, 2), ("train", 1, 2)])
            with open(os.path.join(out, "train", "0", "clips_meta.csv")) as f:
                self.assertEqual(len(list(csv.DictReader(f))), 2)


@unittest.skipUnless(np is not None, "the evaluation's clip builder needs numpy and scipy")
class DistractorOnlyFoldTests(unittest.TestCase):
    """`footstep_eval.py build`'s distractors/<fold>: clips without footsteps, drawn from seeds no other split uses."""

    def test_every_clip_is_without_footsteps(self):
        with tempfile.TemporaryDirectory() as out:
            import corpus
            build_fold(out, sounds("drop", 4, 2), clips=6, distractor_only_share=1.0)
            with open(os.path.join(out, "clips_meta.csv")) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual([r["distractor_only"] for r in rows], ["1"] * 6)
            self.assertEqual([r["steps"] for r in rows], ["0"] * 6)
            for r in rows:
                with open(os.path.join(out, "gt", r["clip"] + ".csv")) as f:
                    labels = [t["label"] for t in csv.DictReader(f)]
                self.assertTrue(labels, f"{r['clip']} has no distractors")
                self.assertTrue(all(label.startswith("other:") for label in labels), labels)
            self.assertEqual(corpus.clip_plan(42, 0, 1.0)[4], False)

    def test_seeds_of_every_split_and_fold_differ(self):
        import footstep_eval
        import sources
        seeds = [footstep_eval.fold_seed(split, k, seed)
                 for seed in (0, 1) for k in footstep_eval.FOLDS
                 for split in ("eval", "train", "train-randomised", "distractors")]
        seeds += [footstep_eval.fold_seed(split, sources.LOCKBOX_FOLD, seed) for seed in (0, 1)
                  for split in ("eval", "distractors")]
        self.assertEqual(len(seeds), len(set(seeds)))


@unittest.skipUnless(np is not None, "the evaluation's clip builder needs numpy and scipy")
class RandomisedSourcesTests(unittest.TestCase):
    """Training recordings with randomised sources (`corpus.build(randomised=True)`) are the same scenes, their
    events at the same times with the same labels, made of changed sounds; the evaluation clips never are."""

    def build(self, out, randomised):
        distractors = sounds("drop", 3, 2) + sounds("music_hit", 3, 3) + sounds("knock", 2, 4)
        return build_fold(out, distractors, randomised=randomised)

    def test_randomised_clips_hold_the_same_events_in_other_sounds(self):
        import csv
        import io
        with tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as randomised:
            a, b = self.build(plain, False), self.build(randomised, True)
            self.assertEqual(sorted(a), sorted(b))
            events = 0
            for name in a:
                if name.endswith(".csv"):
                    rows = [[(r["onset_s"], r["label"]) for r in csv.DictReader(io.StringIO(x[name].decode()))]
                            for x in (a, b)]
                    self.assertEqual(rows[0], rows[1], name)
                    events += len(rows[0])
                else:
                    self.assertNotEqual(a[name], b[name], f"{name}: the sounds were not changed")
            self.assertGreater(events, 10)

    def test_a_randomised_sound_is_another_sound_of_about_the_same_length_and_the_same_peak(self):
        from corpus import randomise_source
        x = sounds("footstep", 1, 5)[0].samples
        spectra = []
        for seed in range(8):
            y = randomise_source(x, np.random.default_rng(seed))
            self.assertAlmostEqual(float(np.max(np.abs(y))), 1.0, places=6)
            self.assertTrue(0.78 * len(x) < len(y) < 1.27 * len(x))
            spectra.append(np.abs(np.fft.rfft(y, 4096))[:1024])
        same = np.abs(np.fft.rfft(randomise_source(x, np.random.default_rng(3)), 4096))[:1024]
        np.testing.assert_array_equal(same, spectra[3])  # one generator state, one change
        differences = [np.corrcoef(np.log(spectra[0] + 1e-6), np.log(s + 1e-6))[0, 1] for s in spectra[1:]]
        self.assertLess(min(differences), 0.95)


@unittest.skipUnless(np is not None, "the evaluation's clip builder needs numpy and scipy")
class WidePathsTests(unittest.TestCase):
    """Training recordings with wide paths (`corpus.build(wide_paths=True)`) are the same scenes through other
    buildings, drawn by `transmission.widen` from beyond `transmission.draw`'s ranges and coloured as asked."""

    def build(self, out, wide_paths, **options):
        distractors = sounds("drop", 3, 2) + sounds("knock", 2, 4)
        return build_fold(out, distractors, randomised=True, wide_paths=wide_paths, **options)

    def test_wide_path_clips_hold_the_same_events_through_other_buildings(self):
        with tempfile.TemporaryDirectory() as narrow, tempfile.TemporaryDirectory() as wide:
            a, b = self.build(narrow, False), self.build(wide, True)
            self.assertEqual(sorted(a), sorted(b))
            for name in a:
                if name.endswith(".csv"):
                    self.assertEqual(a[name], b[name], name)
                else:
                    self.assertNotEqual(a[name], b[name], f"{name}: the building was not changed")

    def test_a_fold_is_extended_only_with_clips_of_its_own_paths(self):
        import csv
        with tempfile.TemporaryDirectory() as out:
            self.build(out, True)
            with open(os.path.join(out, "clips_meta.csv"), newline="") as f:
                self.assertEqual({r["paths"] for r in csv.DictReader(f)}, {"wide"})
            with self.assertRaisesRegex(ValueError, "built with wide paths, not the narrow paths"):
                self.build(out, False, clips=5, first=4)

    def test_widen_reaches_beyond_draw_for_every_model(self):
        import transmission as tx
        rng = np.random.default_rng(11)
        draws = {m: [tx.widen(m, rng) for _ in range(300)] for m in tx.MODELS}
        cutoffs = [p["cutoff"] for p in draws["ceiling"]]
        self.assertLess(min(cutoffs), 150)
        self.assertGreater(max(cutoffs), 1200)
        self.assertGreater(max(p["rt60"] for p in draws["same_room"]), 0.9)
        self.assertGreater(max(p["high"] for p in draws["slab"]), 160)
        self.assertLess(min(p["low"] for p in draws["timber"]), 14)
        self.assertGreater(max(p["air_db"] for p in draws["slab"]), -18)
        for m, ps in draws.items():
            self.assertTrue(all(len(p["colour"]) == len(tx.COLOUR_BANDS) for p in ps), m)
            self.assertTrue(all(-10 <= g <= 10 for p in ps for g in p["colour"]), m)

    def test_the_colouration_follows_its_band_gains(self):
        import transmission as tx
        from scipy import signal
        gains = [0, 0, 9, 9, 0, -9, -9, 0, 0]
        params = dict(model="same_room", rt60=0.3, wet=0.0, bright=0.5, seed=1)
        noise = np.random.default_rng(2).standard_normal(tx.RATE * 8)
        plain = tx.Transmission(params).apply(noise)
        coloured = tx.Transmission(dict(params, colour=gains)).apply(noise)
        f, p_plain = signal.welch(plain, tx.RATE, nperseg=4096)
        _, p_coloured = signal.welch(coloured, tx.RATE, nperseg=4096)
        for centre, gain in ((125, 9), (250, 9), (1000, -9), (2000, -9), (500, 0), (7000, 0)):
            band = (f > centre / 1.1) & (f < centre * 1.1)
            measured = 10 * np.log10(p_coloured[band].sum() / p_plain[band].sum())
            self.assertAlmostEqual(measured, gain, delta=1.5, msg=f"{centre} Hz")


def thud(seconds, level_db, decay=0.03, seed=0):
    """A decaying noise burst `seconds` long, its peak at `level_db` dB."""
    from sources import RATE
    n = int(RATE * seconds)
    x = np.random.default_rng(seed).standard_normal(n) * np.exp(-np.arange(n) / (RATE * decay))
    return x / np.max(np.abs(x)) * 10 ** (level_db / 20)


@unittest.skipUnless(np is not None, "the evaluation's sources need numpy and scipy")
class SplittingStepRecordingsTests(unittest.TestCase):
    def test_two_footfalls_with_a_silent_gap_are_two_impacts(self):
        from sources import RATE, split_at_gaps
        # berusky2's shape: a step 10 dB down, silence, the louder step 0.3 s after the first
        x = np.concatenate([thud(0.3, -10, seed=1), thud(0.3, 0, seed=2)])
        pieces = split_at_gaps(x)
        self.assertEqual(len(pieces), 2)
        self.assertAlmostEqual(len(pieces[0]) / RATE, 0.3, delta=0.02)
        self.assertEqual(sum(len(p) for p in pieces), len(x))

    def test_a_heel_and_its_toe_stay_one_impact(self):
        from sources import split_at_gaps
        # the toe 80 ms after the heel, before the heel has died away
        x = np.concatenate([thud(0.08, -6, seed=3), thud(0.3, 0, seed=4)])
        self.assertEqual(len(split_at_gaps(x)), 1)

    def test_a_second_sound_too_quiet_to_be_a_footfall_is_not_cut_off(self):
        from sources import split_at_gaps
        # a faint rustle 25 dB down after the step has died away
        x = np.concatenate([thud(0.3, 0, seed=5), thud(0.2, -25, seed=6)])
        self.assertEqual(len(split_at_gaps(x)), 1)

    def test_a_recording_that_ends_as_the_next_footfall_begins_keeps_one_footfall(self):
        from sources import RATE, split_at_gaps
        # the next step's first 20 ms end the recording: a fragment, not a footfall
        x = np.concatenate([thud(0.3, 0, seed=7), thud(0.02, -2, decay=1.0, seed=8)])
        pieces = split_at_gaps(x)
        self.assertEqual(len(pieces), 1)
        self.assertAlmostEqual(len(pieces[0]) / RATE, 0.3, delta=0.01)  # cut where the fragment rises


if __name__ == "__main__":
    unittest.main()
