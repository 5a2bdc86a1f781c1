# SPDX-License-Identifier: MIT
"""The report's histograms (tools/clockbench_lib/model/histogram.py): what the guest's
lib/hist.c writes decodes to the buckets of its data, quantiles agree with exact
nearest-rank ones within the stated bound, and malformed ones are refused in a sentence.

Run: /usr/bin/python3 -m unittest discover -s tests/tools -t .  (`make tool-tests` builds
build/host/test_hist first.)
"""

import json
import math
import os
import random
import subprocess
import unittest

from tests.tools import ROOT
from clockbench_lib.base import paths
from clockbench_lib.model import histogram
from clockbench_lib.base.outcome import RunnerError

PROGRAM = os.path.join(ROOT, paths.BUILD_DIR, "host", "test_hist")
SUB_BITS = 5
LIMIT = 1 << 32
QUANTILES = (0.0, 0.001, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0)


def bucket_low(value, sub_bits=SUB_BITS):
    """The smallest value of the bucket `value` falls in, as lib/hist.c buckets it."""
    magnitude = abs(value)
    if magnitude < (1 << sub_bits):
        return value
    shift = magnitude.bit_length() - 1 - sub_bits
    low_magnitude = (magnitude >> shift) << shift
    if value >= 0:
        return low_magnitude
    return -(low_magnitude + (1 << shift) - 1)


def encode(values, sub_bits=SUB_BITS, limit=LIMIT):
    """A "hist" member of `values`, written as the guest writes it."""
    counts = {}
    over = sum(1 for v in values if v >= limit)
    under = sum(1 for v in values if v <= -limit)
    for value in values:
        if -limit < value < limit:
            low = bucket_low(value, sub_bits)
            counts[low] = counts.get(low, 0) + 1
    return {"sub_bits": sub_bits, "limit": limit, "total": len(values), "over": over,
            "under": under, "buckets": [[low, counts[low]] for low in sorted(counts)]}


def exact(values, q):
    """The exact nearest-rank q-quantile, ranked as lib/stats.c ranks."""
    ordered = sorted(values)
    rank = min(max(math.ceil(round(q * 1000) * len(ordered) / 1000), 1), len(ordered))
    return ordered[rank - 1]


class FromTheGuest(unittest.TestCase):
    """build/host/test_hist --json prints lib/hist.c's JSON of a fixed data set."""

    # The data set tests/unit/test_hist.c's print_json() records.
    VALUES = ([v * v for v in range(1000)] + [-v * 37 for v in range(1, 301)]
              + [LIMIT, 3 * LIMIT, -LIMIT])

    def setUp(self):
        if not os.path.exists(PROGRAM):
            raise AssertionError(f"{PROGRAM} is missing: `make tool-tests` builds it first")
        out = subprocess.run([PROGRAM, "--json"], check=True, capture_output=True,
                             text=True).stdout
        self.obj = json.loads(out)

    def test_decodes_to_the_buckets_of_its_data(self):
        h = histogram.Histogram.from_json(self.obj)
        self.assertEqual(h.total, len(self.VALUES))
        self.assertEqual((h.over, h.under), (2, 1))
        self.assertAlmostEqual(h.relative_error, 1 / 32)
        self.assertEqual(self.obj, encode(self.VALUES))
        for value in self.VALUES:
            if abs(value) < LIMIT:
                self.assertEqual(sum(1 for low, high, _ in h.buckets if low <= value < high),
                                 1, value)
        for (_, high, _), (low, _, _) in zip(h.buckets, h.buckets[1:]):
            self.assertLessEqual(high, low)

    def test_quantiles_within_the_bound(self):
        h = histogram.Histogram.from_json(self.obj)
        for q in QUANTILES:
            want, got = exact(self.VALUES, q), h.quantile(q)
            if abs(want) < LIMIT:
                self.assertLessEqual(got, want, q)
                self.assertLess(want - got, max(abs(want) * h.relative_error, 1), q)


class Synthetic(unittest.TestCase):
    """Quantiles of encoded synthetic data against the exact ones."""

    def check(self, values, minimum_known=True):
        obj = encode(values)
        distribution = {"min": min(values), "max": max(values), "hist": obj}
        for h in (histogram.of(distribution), histogram.Histogram.from_json(obj)):
            self.assertEqual(h.total, len(values))
            for q in QUANTILES:
                want, got = exact(values, q), h.quantile(q)
                self.assertLessEqual(got, want, q)
                if abs(want) < 32:
                    self.assertEqual(got, want, q)
                elif abs(want) < LIMIT and (minimum_known or got >= -LIMIT):
                    self.assertLess(want - got, abs(want) * h.relative_error, q)

    def test_distributions(self):
        rng = random.Random(17)
        self.check([rng.randrange(1_000_000) for _ in range(20000)])
        self.check([int(rng.expovariate(1 / 2000)) for _ in range(20000)])
        self.check([rng.choice((20, 70000)) + rng.randrange(1000) for _ in range(20000)])
        self.check([rng.randrange(-100000, 100001) for _ in range(20000)])
        self.check([123456] * 500)
        self.check([7])
        self.check([-3, 40, 9000])

    def test_past_the_range(self):
        values = [500] * 980 + [LIMIT + i for i in range(20)]
        h = histogram.Histogram.from_json(encode(values))
        self.assertEqual(h.over, 20)
        self.assertEqual(h.quantile(0.5), 496)  # the low end of [496, 512)
        h = histogram.of({"min": 500, "max": LIMIT + 19, "hist": encode(values)})
        self.assertEqual(h.quantile(0.5), 500)  # clamped to the minimum
        self.assertEqual(h.quantile(1.0), LIMIT)
        self.check(values)

    def test_empty(self):
        h = histogram.Histogram.from_json(encode([]))
        self.assertEqual((h.total, h.buckets), (0, []))
        self.assertIsNone(h.quantile(0.5))

    def test_a_distribution_without_one(self):
        self.assertIsNone(histogram.of({"min": 1, "p50": 2, "max": 3}))
        self.assertIsNone(histogram.of(None))

    def test_q_out_of_range(self):
        with self.assertRaises(ValueError):
            histogram.Histogram.from_json(encode([1])).quantile(1.5)


class Dumps(unittest.TestCase):
    """The runner's --json file keeps each histogram's buckets on one line."""

    def test_buckets_on_one_line_and_the_same_document(self):
        document = {"clocks": [{"read_ns": {"min": 5, "hist": encode([5, 70, -3000])}}],
                    "other": [[1, [2]], []]}
        text = histogram.dumps(document)
        self.assertEqual(json.loads(text), document)
        self.assertIn('"buckets": [[-3007, 1], [5, 1], [70, 1]]', text)
        self.assertIn('"other": [\n', text)


class Malformed(unittest.TestCase):
    """A broken "hist" member: one sentence, RunnerError."""

    def refuses(self, obj, words):
        with self.assertRaises(RunnerError) as caught:
            histogram.Histogram.from_json(obj)
        self.assertIn(words, str(caught.exception))
        self.assertNotIn("\n", str(caught.exception))

    def test_refused(self):
        good = encode([1, 100, 5000])
        self.refuses([1, 2], "a JSON object")
        self.refuses({**good, "sub_bits": "5"}, "'sub_bits'")
        self.refuses({**good, "sub_bits": 40}, "out of range")
        self.refuses({**good, "limit": 1000}, "power of two")
        self.refuses({**good, "total": -1}, "'total'")
        self.refuses({**good, "buckets": {}}, "not a list")
        self.refuses({**good, "buckets": [[1, 0]]}, "positive count")
        self.refuses({**good, "buckets": [[1, 2, 3]]}, "[low, count]")
        self.refuses({**good, "buckets": list(reversed(good["buckets"]))}, "out of order")
        self.refuses({**good, "buckets": [[LIMIT, 1]]}, "past the limit")
        self.refuses({**good, "total": 4}, "not its total 4")


if __name__ == "__main__":
    unittest.main()
