# SPDX-License-Identifier: MIT
"""The log-linear histogram a distribution of the report carries (its "hist" member).

The guest (lib/hist.c) counts every sample in buckets: magnitudes below 2^sub_bits one
bucket each, every power of two above split into 2^sub_bits equal buckets, negative
values by their magnitude the same way, magnitudes of `limit` or more only counted
(`over`, `under`).  The JSON lists the non-empty buckets in ascending order as
[low, count]; a bucket holds low <= v < low + width(|low|), where width(m) is 1 for
m < 2^sub_bits, else 2^(floor(log2 m) - sub_bits).  docs/report-format.md describes it.

A quantile is nearest-rank over the buckets and returns the low end of the bucket the
ranked sample lies in (clamped into [min, max] when they are known, as the guest does):
never above the exact nearest-rank quantile, and below it by less than
`relative_error` of its magnitude (exact for magnitudes below 2^sub_bits).  A rank among
the over-range samples returns `limit`, one among the under-range ones `-limit`
(or the minimum when known).
"""

import json
import re

from ..base.outcome import RunnerError

MAX_SUB_BITS = 16     # far beyond the guest's 5: a bigger one is not a histogram of ours
MAX_LIMIT_BITS = 63


# A list of [low, count] pairs as json.dumps(indent=2) spreads it, four lines a pair.
_SPREAD_PAIRS = re.compile(r"\[(?:\s*\[\s*-?\d+,\s*-?\d+\s*\],?)+\s*\]")
_PAIR = re.compile(r"\[\s*(-?\d+),\s*(-?\d+)\s*\]")


def dumps(document):
    """`document` as pretty JSON (indent 2), with each histogram's buckets on one line:
    spread out, a report's buckets would take four lines each."""
    def one_line(match):
        return "[" + ", ".join(f"[{low}, {count}]"
                               for low, count in _PAIR.findall(match.group(0)[1:])) + "]"
    return _SPREAD_PAIRS.sub(one_line, json.dumps(document, indent=2))


def width_at(low, sub_bits):
    """The width of the bucket whose smallest value is `low`."""
    magnitude = abs(low)
    if magnitude < (1 << sub_bits):
        return 1
    return 1 << (magnitude.bit_length() - 1 - sub_bits)


def _count(obj, key):
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RunnerError(f"the histogram's {key!r} is {value!r}, not a count")
    return value


class Histogram:
    """A distribution's histogram: `buckets` [(low, high, count)], values v with
    low <= v < high, non-empty only, ascending; `total` samples recorded (over- and
    under-range ones included); `relative_error` the stated bound."""

    def __init__(self, sub_bits, limit, buckets, over=0, under=0, minimum=None,
                 maximum=None):
        self.sub_bits = sub_bits
        self.limit = limit
        self.buckets = buckets
        self.over = over
        self.under = under
        self.total = sum(count for _, _, count in buckets) + over + under
        self.relative_error = 2.0 ** -sub_bits
        self.minimum = minimum
        self.maximum = maximum

    @classmethod
    def from_json(cls, obj):
        """The Histogram of a distribution's "hist" member; RunnerError if malformed."""
        if not isinstance(obj, dict):
            raise RunnerError(f"a histogram is a JSON object, not {type(obj).__name__}")
        sub_bits = _count(obj, "sub_bits")
        if not 0 <= sub_bits <= MAX_SUB_BITS:
            raise RunnerError(f"the histogram's sub_bits {sub_bits} is out of range "
                              f"(0 to {MAX_SUB_BITS})")
        limit = _count(obj, "limit")
        if limit < (1 << sub_bits) or limit > (1 << MAX_LIMIT_BITS) or limit & (limit - 1):
            raise RunnerError(f"the histogram's limit {limit} is not a power of two "
                              f"from 2^sub_bits to 2^{MAX_LIMIT_BITS}")
        total, over, under = (_count(obj, key) for key in ("total", "over", "under"))
        pairs = obj.get("buckets")
        if not isinstance(pairs, list):
            raise RunnerError(f"the histogram's buckets are {pairs!r}, not a list")
        buckets = []
        for pair in pairs:
            if (not isinstance(pair, list) or len(pair) != 2
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
                    or pair[1] <= 0):
                raise RunnerError(f"a histogram bucket is {pair!r}, not [low, count] with "
                                  "a positive count")
            low, count = pair
            high = low + width_at(low, sub_bits)
            if low <= -limit or high > limit or (buckets and low < buckets[-1][1]):
                raise RunnerError(f"the histogram bucket [{low}, {count}] is out of order "
                                  f"or past the limit {limit}")
            buckets.append((low, high, count))
        histogram = cls(sub_bits, limit, buckets, over, under)
        if histogram.total != total:
            raise RunnerError(f"the histogram's buckets and over/under add up to "
                              f"{histogram.total}, not its total {total}")
        return histogram

    def quantile(self, q):
        """The nearest-rank q-quantile (q in [0, 1]): the low end of the bucket the
        ranked sample lies in, clamped into [minimum, maximum] where known; None when
        the histogram is empty."""
        if not 0 <= q <= 1:
            raise ValueError(f"a quantile is between 0 and 1, not {q}")
        if self.total == 0:
            return None
        # ceil(q * total) as the guest ranks: in per-mille steps for the
        # report's percentiles, exactly for others (integer arithmetic where it can).
        rank = min(max(_ceil_rank(q, self.total), 1), self.total)
        seen = self.under
        if rank <= seen:
            return self.minimum if self.minimum is not None else -self.limit
        for low, _, count in self.buckets:
            seen += count
            if rank <= seen:
                return self._clamp(low)
        return self._clamp(self.limit)

    def _clamp(self, value):
        if self.minimum is not None:
            value = max(value, self.minimum)
        if self.maximum is not None:
            value = min(value, self.maximum)
        return value


def _ceil_rank(q, total):
    """ceil(q * total), exact for the q the report uses (p50 .. p99.9)."""
    permille = round(q * 1000)
    if abs(permille - q * 1000) < 1e-9:
        return (permille * total + 999) // 1000
    return -int(-q * total // 1)


def of(distribution):
    """The Histogram of a distribution object (its "hist" member, with its min and max),
    or None when it has none (older reports, or a distribution without one)."""
    if not isinstance(distribution, dict) or distribution.get("hist") is None:
        return None
    histogram = Histogram.from_json(distribution["hist"])
    histogram.minimum = distribution.get("min")
    histogram.maximum = distribution.get("max")
    return histogram


def pooled(histograms):
    """One Histogram of every sample of `histograms` (the runs of one clock, say): their
    bucket counts added, over and under added, the smallest minimum and largest maximum;
    None for none.  RunnerError when they differ in sub_bits or limit, whose buckets do
    not line up."""
    histograms = list(histograms)
    if not histograms:
        return None
    first = histograms[0]
    if any((h.sub_bits, h.limit) != (first.sub_bits, first.limit) for h in histograms):
        raise RunnerError("the histograms differ in sub_bits or limit, so their buckets "
                          "cannot be added")
    counts = {}
    for histogram in histograms:
        for low, high, count in histogram.buckets:
            counts[(low, high)] = counts.get((low, high), 0) + count
    minima = [h.minimum for h in histograms if h.minimum is not None]
    maxima = [h.maximum for h in histograms if h.maximum is not None]
    return Histogram(first.sub_bits, first.limit,
                     [(low, high, count) for (low, high), count in sorted(counts.items())],
                     over=sum(h.over for h in histograms),
                     under=sum(h.under for h in histograms),
                     minimum=min(minima) if len(minima) == len(histograms) else None,
                     maximum=max(maxima) if len(maxima) == len(histograms) else None)
