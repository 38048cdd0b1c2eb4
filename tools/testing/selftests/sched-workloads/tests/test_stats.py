# SPDX-License-Identifier: GPL-2.0
"""The repetition statistics of lib/stats.c, on values worked out by hand.

Builds tests/stats_check.c with lib/stats.c under AddressSanitizer and UBSan
(as test_trace_fixtures.py builds trace_check.c) and checks its output
against the values derived in the comments, never against its own output.

Mann-Whitney: U_b counts the pairs (a_i, b_j) with b_j > a_i, plus 1/2
per tie; the one-sided "b greater" p-value is the share of the C(N, nb)
ways to pick nb ranks of the pooled N whose rank sum is at least the
observed one (U_b = R_b - nb (nb + 1) / 2). With ties the ranks are
mid-ranks and the count is over the observed mid-ranks.
"""
import math
import shutil
import subprocess
import unittest

from swtest import EXIT_USAGE, SANITIZER_ERRORS, setup_checker


def seq(lo, hi):
    """lo..hi inclusive, as arguments."""
    return [str(i) for i in range(lo, hi + 1)]


class TestStats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        setup_checker(cls, "stats_check", ["lib/stats.c"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_check(self, *args):
        p = subprocess.run([self.bin] + [str(a) for a in args],
                           capture_output=True, text=True, env=self.env,
                           timeout=60)
        for bad in SANITIZER_ERRORS:
            self.assertNotIn(bad, p.stderr, p.stderr)
        return p

    def value(self, *args):
        p = self.run_check(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return float(p.stdout)

    def assertValue(self, want, *args):
        got = self.value(*args)
        self.assertTrue(abs(got - want) <= 1e-12 * max(1.0, abs(want)),
                        "%s: got %r, want %r" % (" ".join(map(str, args)),
                                                 got, want))

    def series(self, first, step, n):
        p = self.run_check("series", first, step, n)
        self.assertEqual(p.returncode, 0, p.stderr)
        names = ("count sum min max p50 p99 p999 neg each_n each_sum "
                 "each_min each_max").split()
        return dict(zip(names, map(float, p.stdout.split())))

    def test_series_exact(self):
        # 1..1000 is under SERIES_EXACT_MAX (16384): nearest ranks exactly
        s = self.series(1, 1, 1000)
        self.assertEqual((s["count"], s["sum"], s["min"], s["max"]),
                         (1000, 500500, 1, 1000))
        # ranks ceil(0.5 * 1000), ceil(0.99 * 1000), ceil(0.999 * 1000)
        self.assertEqual((s["p50"], s["p99"], s["p999"]), (500, 990, 999))
        self.assertEqual((s["each_n"], s["each_sum"], s["each_min"],
                          s["each_max"]), (1000, 500500, 1, 1000))

    def test_series_histogram(self):
        # 20000 samples: past the exact limit, a histogram from then on.
        # -4999..15000: 4999 negative, ranks 10000, 19800 and 19980 are
        # -4999 + rank - 1 = 5000, 14800, 14980.
        s = self.series(-4999, 1, 20000)
        self.assertEqual(s["count"], 20000)
        self.assertEqual(s["sum"], sum(range(-4999, 15001)))
        self.assertEqual((s["min"], s["max"]), (-4999, 15000))
        self.assertEqual(s["neg"], 4999 / 20000)
        for key, exact in (("p50", 5000), ("p99", 14800), ("p999", 14980)):
            self.assertLessEqual(abs(s[key] - exact), 0.004 * exact,
                                 "%s %r vs %r" % (key, s[key], exact))
            self.assertNotEqual(s[key], exact)  # the bin, not the sample
        # series_each: every sample once, the extremes exact
        self.assertEqual((s["each_n"], s["each_min"], s["each_max"]),
                         (20000, -4999, 15000))
        self.assertLessEqual(abs(s["each_sum"] - s["sum"]),
                             0.004 * 20000 * 15000)

    def test_median(self):
        # odd: 1 2 3 -> the middle one
        self.assertValue(2, "median", 1, 2, 3)
        # even: 1 2 3 4 -> (2 + 3) / 2; nearest-rank p50 would give 2
        self.assertValue(2.5, "median", 1, 2, 3, 4)
        # unsorted: 9 1 7 3 -> sorted 1 3 7 9 -> (3 + 7) / 2
        self.assertValue(5, "median", 9, 1, 7, 3)
        # unsorted odd, negative: -1 5 -3 -> sorted -3 -1 5
        self.assertValue(-1, "median", -1, 5, -3)
        self.assertValue(42, "median", 42)
        # more values than the on-stack buffer (64): 1..101 -> 51
        self.assertValue(51, "median", *seq(1, 101))
        self.assertTrue(math.isnan(self.value("median")))
        self.assertTrue(math.isnan(self.value("median", 1, "nan")))

    def test_mad(self):
        # 1 2 3 4 100: median 3; |dev| 2 1 0 1 97 -> sorted 0 1 1 2 97 -> 1
        self.assertValue(1, "mad", 1, 2, 3, 4, 100)
        # 1 2 4 8: median 3; |dev| 2 1 1 5 -> sorted 1 1 2 5 -> 1.5
        self.assertValue(1.5, "mad", 8, 1, 4, 2)
        # all equal: every deviation is 0
        self.assertValue(0, "mad", 5, 5, 5)
        # 1..101: median 51, |dev| 0, 1,1, ..., 50,50 -> 51st sorted is 25
        self.assertValue(25, "mad", *seq(1, 101))
        self.assertTrue(math.isnan(self.value("mad")))

    def test_mwu_exact_separated(self):
        # 3 v 3, b above a: R_b = 4+5+6 = 15, the largest of the C(6,3)
        # = 20 sums, reached by one subset: p = 1/20.
        self.assertValue(0.05, "mwu-greater", 1, 2, 3, "--", 4, 5, 6)
        # the other direction: every one of the 20 sums is <= 15
        self.assertValue(1, "mwu-less", 1, 2, 3, "--", 4, 5, 6)
        # b below a: mirror image, p_less = 1/20
        self.assertValue(0.05, "mwu-less", 4, 5, 6, "--", 1, 2, 3)
        # 5 v 5: one subset of C(10,5) = 252 has R_b = 6+...+10
        self.assertValue(1 / 252, "mwu-greater", *(seq(1, 5) + ["--"] +
                                                   seq(6, 10)))
        # 10 v 10 (N = 20, the last exact size): 1/C(20,10) = 1/184756
        self.assertValue(1 / 184756, "mwu-greater",
                         *(seq(1, 10) + ["--"] + seq(11, 20)))

    def test_mwu_exact_overlap(self):
        # a = 1 2 5, b = 3 4 6: b's ranks 3 4 6, R_b = 13, U_b = 13 - 6 = 7
        # (3 beats 1,2; 4 beats 1,2; 6 beats all three: 2+2+3 = 7).
        # Subsets of {1..6} of size 3 with sum >= 13: 456 (15), 356 (14),
        # 346 and 256 (13): 4 of 20 -> p = 0.2.
        self.assertValue(0.2, "mwu-greater", 1, 2, 5, "--", 3, 4, 6)
        # p_less = P(sum <= 13) = 1 - P(sum >= 14) = 1 - 2/20 = 0.9
        self.assertValue(0.9, "mwu-less", 1, 2, 5, "--", 3, 4, 6)

    def test_mwu_exact_tied(self):
        # a = 1 2 3, b = 3 4 5: the two 3s share ranks 3 and 4 -> 3.5 each;
        # pooled mid-ranks 1 2 3.5 3.5 5 6, R_b = 3.5+5+6 = 14.5 (U_b 8.5).
        # Sums >= 14.5 among the 20 subsets of those six ranks: only
        # {5, 6, 3.5} twice (one per 3.5); {5, 6, 2} = 13, {6, 3.5, 3.5}
        # = 13, without 6 at most 12 -> p = 2/20 = 0.1 (0.05 untied).
        self.assertValue(0.1, "mwu-greater", 1, 2, 3, "--", 3, 4, 5)
        # 14.5 is the largest sum: every subset is <= it -> p_less = 1
        self.assertValue(1, "mwu-less", 1, 2, 3, "--", 3, 4, 5)
        # all tied: every subset has the same sum -> no evidence, p = 1
        self.assertValue(1, "mwu-greater", 7, 7, "--", 7, 7)

    def test_mwu_normal(self):
        # 15 v 15 (N = 30 > 20: normal approximation), b = 16..30 above
        # a = 1..15: U = 225, mean 225/2 = 112.5, var = 15*15*31/12 =
        # 581.25 (no ties), z = (225 - 112.5 - 0.5) / sqrt(581.25)
        # = 112 / 24.1091 = 4.64554; p = erfc(z / sqrt 2) / 2 = 1.6959e-6.
        sep = seq(1, 15) + ["--"] + seq(16, 30)
        p = self.value("mwu-greater", *sep)
        self.assertLess(p, 1e-5)
        self.assertAlmostEqual(p / 1.6959107e-6, 1, places=6)
        self.assertValue(0.5 * math.erfc(112 / math.sqrt(581.25) /
                                         math.sqrt(2)),
                         "mwu-greater", *sep)
        # identical samples 1..15 v 1..15: each value twice, U_b = sum over
        # b = j of (j - 1) + 1/2 = 105 + 7.5 = 112.5 = the mean. 15 tie
        # groups of 2: sum(t^3 - t) = 90; var = 225/12 * (31 - 90/870)
        # = 579.3103; z = -0.5 / 24.0689 = -0.020774; p = 0.50829.
        same = seq(1, 15) + ["--"] + seq(1, 15)
        var = 225 / 12 * (31 - 90 / 870)
        want = 0.5 * math.erfc(-0.5 / math.sqrt(var) / math.sqrt(2))
        self.assertAlmostEqual(want, 0.50829, places=5)
        for cmd in ("mwu-greater", "mwu-less"):
            self.assertValue(want, cmd, *same)
            self.assertGreaterEqual(self.value(cmd, *same), 0.5)
        # fully separated the other way: p_less tiny, p_greater ~ 1
        rev = seq(16, 30) + ["--"] + seq(1, 15)
        self.assertLess(self.value("mwu-less", *rev), 1e-5)
        self.assertGreater(self.value("mwu-greater", *rev), 0.99999)
        # all 30 tied: variance 0, no evidence
        self.assertValue(1, "mwu-greater", *(["3"] * 15 + ["--"] +
                                             ["3"] * 15))

    def test_mwu_empty(self):
        p = self.run_check("mwu-greater", "--", 1, 2)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(math.isnan(float(p.stdout)))

    def test_ranges_separate(self):
        self.assertValue(1, "separate", 1, 2, 3, "--", 4, 5, 6, 1)
        self.assertValue(0, "separate", 1, 2, 3, "--", 4, 5, 6, -1)
        self.assertValue(1, "separate", 4, 5, 6, "--", 1, 2, 3, -1)
        self.assertValue(0, "separate", 4, 5, 6, "--", 1, 2, 3, 1)
        # touching is not separate: max(a) = min(b) = 3
        self.assertValue(0, "separate", 1, 2, 3, "--", 3, 4, 5, 1)
        # one deviant run keeps them overlapping: nothing is trimmed
        self.assertValue(0, "separate", 1, 2, 3, 9, "--", 4, 5, 6, 1)
        self.assertValue(0, "separate", 1, 2, 3, "--", 4, 0.5, 6, -1)
        self.assertValue(0, "separate", 1, 2, 3, "--", 4, 0.5, 6, 1)

    def test_usage(self):
        for args in (["median", "x"], ["mwu-greater", 1, 2],
                     ["separate", 1, "--", 2, 0], ["nosuch", 1]):
            self.assertEqual(self.run_check(*args).returncode, EXIT_USAGE,
                             args)

    def test_fisher(self):
        """Hypergeometric upper tail, from math.comb independently."""
        def upper(k1, n1, k2, n2):
            n, kk = n1 + n2, k1 + k2
            total = math.comb(n, n2)
            return sum(math.comb(kk, x) * math.comb(n - kk, n2 - x)
                       for x in range(k2, min(kk, n2) + 1)) / total
        # 0 of 10 vs 4 of 10: all 4 events in sample 2: C(10,4)/C(20,4)
        self.assertValue(210 / 4845, "fisher", 0, 10, 4, 10)
        for case in ((1, 1000, 9, 600), (5, 5000, 5, 3000),
                     (0, 100, 1, 60), (30, 3000, 45, 1800)):
            want = upper(*case)
            got = self.value("fisher", *case)
            self.assertLess(abs(got - want), 1e-9 * want,
                            "%s: %r vs %r" % (case, got, want))
        # no event in sample 2: nothing against "not greater"
        self.assertValue(1, "fisher", 3, 10, 0, 10)
        # a large pooled count stays finite and accurate
        want = upper(100, 100000, 180, 60000)
        got = self.value("fisher", 100, 100000, 180, 60000)
        self.assertLess(abs(got - want), 1e-6 * want, (got, want))
        # impossible counts
        self.assertTrue(math.isnan(self.value("fisher", 11, 10, 0, 10)))

    def test_binom(self):
        """Binomial upper tail: hand values, then math.comb."""
        # 1 or more of 32 at 3%: 1 - 0.97^32
        self.assertValue(1 - 0.97 ** 32, "binom", 1, 32, 0.03)
        # 4 or more of 32 at 3%: P0..P3 = 0.37731, 0.37342, 0.17901,
        # 0.05536 (C(32, x) 0.03^x 0.97^(32 - x)), 1 - their sum = 0.01490
        got = self.value("binom", 4, 32, 0.03)
        self.assertLess(abs(got - 0.01490), 1e-5, got)
        for k, n, p in ((0, 10, 0.5), (5, 10, 0.5), (30, 300, 0.05),
                        (10, 10, 0.9)):
            want = sum(math.comb(n, x) * p ** x * (1 - p) ** (n - x)
                       for x in range(k, n + 1))
            self.assertLess(abs(self.value("binom", k, n, p) - want),
                            1e-9, (k, n, p))
        self.assertTrue(math.isnan(self.value("binom", 11, 10, 0.5)))
        self.assertTrue(math.isnan(self.value("binom", 1, 10, 1.5)))

    def test_sequential_majority(self):
        """The rule of verdicts.rst (3 votes, then one at a time while no
        side leads by 3, at most 9), against an enumeration of all 2^9 vote
        sequences cut where the rule stops."""
        def enumerate_rule(q, first=3, lead=3, most=9):
            won = 0.0
            for seq in range(2 ** most):
                votes = [(seq >> i) & 1 for i in range(most)]
                n = first
                while True:
                    b = sum(votes[:n])
                    if abs(2 * b - n) >= lead or n == most:
                        break
                    n += 1
                # each sequence stands for its first n votes only
                if any(votes[n:]):
                    continue
                b = sum(votes[:n])
                if 2 * b > n:
                    won += q ** b * (1 - q) ** (n - b)
            return won
        for q in (0.01, 0.03, 0.1, 0.3, 0.5, 0.7):
            want = enumerate_rule(q)
            self.assertLess(abs(self.value("majority", q, 3, 3, 9) - want),
                            1e-12, q)
        # symmetric rule: a fair coin wins half the time
        self.assertValue(0.5, "majority", 0.5, 3, 3, 9)
        # small q: q^3 + 126 q^5 to within a few percent (verdicts.rst)
        got = self.value("majority", 0.03, 3, 3, 9)
        self.assertLess(abs(got / (0.03 ** 3 + 126 * 0.03 ** 5) - 1), 0.05)
        # one vote, no extension: the vote itself
        self.assertValue(0.2, "majority", 0.2, 1, 3, 1)

    def test_dispersion(self):
        """Pearson chi2 / (reps - 1) around the pooled share."""
        # equal shares: no spread beyond binomial -> chi2 = 0
        self.assertValue(0, "dispersion", 10, 100, 10, 100, 10, 100)
        # 0, 10, 20 of 100: p = 0.1, var = 100 * 0.1 * 0.9 = 9,
        # chi2 = (100 + 0 + 100) / 9, df = 2
        self.assertValue(200 / 9 / 2, "dispersion", 0, 100, 10, 100,
                         20, 100)
        # no events at all: no estimate (prints 1)
        self.assertValue(1, "dispersion", 0, 100, 0, 100)
        # one repetition: no spread to see
        self.assertValue(1, "dispersion", 5, 100)
