# SPDX-License-Identifier: MIT
"""What reading the clock costs a CPU at a read rate (docs/verdict.md): the verdict's one
piece of arithmetic, a pure function of a read's cost and the rate.

The seed (../shared/seeds/xen-clocksource-cassandra.txt) is the example: a fleet spent a
third of its CPU reading the clock where a Xen clock read cost 0.68 µs and a TSC read
0.033 µs.  A third of a CPU at 0.68 µs a read is about 490,000 reads a second; at that rate
the TSC takes 1.6 % of a CPU, so switching saves about 32 % of one.
"""

import math
from dataclasses import dataclass

NS_PER_S = 1_000_000_000

# The seed's figures: what a Xen clock read and a TSC read cost, and the share of a CPU
# the fleet spent reading the clock.
SEED_XEN_READ_NS = 680.0
SEED_TSC_READ_NS = 33.0
SEED_CPU_SHARE = 1 / 3

# The read rate the verdict prices each clocksource at when the user names none: the
# seed's fleet's own, rounded to one significant figure (implied_reads_per_s of its
# figures is 490,196 a second).  A measured rate, from a workload that made the clock's
# cost matter, rather than a round guess; --reads-per-second gives one's own.
DEFAULT_READS_PER_S = 500_000


@dataclass(frozen=True)
class ReadingCost:
    """What reading one clock `reads_per_s` times a second costs one CPU."""

    cost_ns: float          # one read
    reads_per_s: float      # the rate asked for
    cpu_share: float        # of one CPU, 0.25 = a quarter; above 1: more than one CPU
    max_reads_per_s: float  # the most reads a second one CPU can make: 1 / cost

    @property
    def cpu_pct(self):
        """The share in per cent."""
        return self.cpu_share * 100


def reading_cost(cost_ns, reads_per_s):
    """What `reads_per_s` reads a second of `cost_ns` each take of one CPU, and the most
    reads a second one CPU can make (infinite for a cost of 0: a read no slower than the
    empty bracket).  ValueError for a cost below 0 or a rate not above 0."""
    if not cost_ns >= 0 or math.isinf(cost_ns):
        raise ValueError(f"a read's cost is a finite number of ns of at least 0, not {cost_ns}")
    if not reads_per_s > 0 or math.isinf(reads_per_s):
        raise ValueError(f"a read rate is a finite number above 0, not {reads_per_s}")
    return ReadingCost(cost_ns, reads_per_s, cost_ns * reads_per_s / NS_PER_S,
                       NS_PER_S / cost_ns if cost_ns else math.inf)


def implied_reads_per_s(cost_ns, cpu_share):
    """The read rate at which reads of `cost_ns` take `cpu_share` of one CPU: the seed's
    question turned round (a third of a CPU at 0.68 µs a read is 490,196 a second)."""
    if not cost_ns > 0 or not cpu_share > 0:
        raise ValueError("a read's cost and a CPU share are both above 0")
    return cpu_share * NS_PER_S / cost_ns


def cpu_saved(current_ns, better_ns, reads_per_s):
    """The share of one CPU saved at `reads_per_s` by reading a clock of `better_ns` a
    read instead of one of `current_ns` (negative when it costs more)."""
    return (reading_cost(current_ns, reads_per_s).cpu_share
            - reading_cost(better_ns, reads_per_s).cpu_share)
