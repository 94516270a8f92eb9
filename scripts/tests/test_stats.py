"""The bootstrap behind every interval in the claims table (cbresults/stats.py): fixed
seed, so the same CSVs give the same report; order of the samples does not matter; one
sample has no interval; the interval covers what it should. No binaries."""

import math
import os
import random
import statistics
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))

from cbresults import stats  # noqa: E402


class BootstrapTest(unittest.TestCase):
    def test_same_values_any_order_same_interval(self):
        vals = [1.1, 0.9, 1.3, 1.2, 1.0, 1.4, 0.95, 1.05, 1.15, 1.25]
        a = stats.bootstrap_ci(vals)
        b = stats.bootstrap_ci(list(reversed(vals)))
        self.assertEqual(a, b)
        self.assertEqual(a, stats.bootstrap_ci(vals))  # and on every call (fixed seed)
        # the seed is what fixes it: another seed moves a continuous statistic's ends
        mean = statistics.mean
        self.assertNotEqual(stats.bootstrap_ci(vals, stat=mean),
                            stats.bootstrap_ci(vals, stat=mean, seed=stats.SEED + 1))

    def test_one_value_has_no_interval(self):
        self.assertIsNone(stats.bootstrap_ci([1.0]))
        self.assertIsNone(stats.bootstrap_ci([]))
        m = stats.median_ci([2.0])
        self.assertEqual((m["median"], m["ci"], m["n"]), (2.0, None, 1))

    def test_constant_samples_give_a_point_interval(self):
        lo, hi = stats.bootstrap_ci([1.5] * 10)
        self.assertAlmostEqual(lo, 1.5)
        self.assertAlmostEqual(hi, 1.5)

    def test_interval_holds_the_median_and_sits_inside_the_range(self):
        rng = random.Random(7)
        vals = [rng.lognormvariate(0.3, 0.2) for _ in range(12)]
        m = stats.median_ci(vals)
        lo, hi = m["ci"]
        self.assertLessEqual(lo, m["median"])
        self.assertLessEqual(m["median"], hi)
        self.assertGreaterEqual(lo, min(vals) - 1e-12)
        self.assertLessEqual(hi, max(vals) + 1e-12)

    def test_coverage_of_the_median_is_near_95_percent(self):
        # lognormal samples of 10, true median exp(0) = 1: the interval should miss it in
        # roughly 5-10 % of 300 trials (the percentile bootstrap is a little short at n=10)
        rng = random.Random(11)
        miss = 0
        for t in range(300):
            vals = [rng.lognormvariate(0.0, 0.3) for _ in range(10)]
            lo, hi = stats.median_ci(vals, resamples=500, seed=t)["ci"]
            miss += not (lo <= 1.0 <= hi)
        self.assertLess(miss, 45)   # < 15 %
        self.assertGreater(miss, 3)  # an interval that never misses is too wide to use

    def test_ratios_are_resampled_on_a_log_scale(self):
        # 2x and 0.5x are equally far from 1: the median of [0.5, 2] is 1, not 1.25
        self.assertAlmostEqual(stats.median_ci([0.5, 2.0])["median"], 1.0)
        self.assertAlmostEqual(stats.median_ci([0.5, 1.0, 2.0])["median"], 1.0)

    def test_percentile_interpolates(self):
        self.assertEqual(stats.percentile([1, 2, 3, 4, 5], 0.5), 3)
        self.assertAlmostEqual(stats.percentile([1, 2], 0.25), 1.25)
        self.assertEqual(stats.spread([3, 1, 2]), (1, 3))
        self.assertIsNone(stats.spread([]))
        self.assertTrue(math.isclose(statistics.median([1, 2, 3]), 2))


if __name__ == "__main__":
    unittest.main()
