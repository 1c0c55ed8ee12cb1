"""Two nodes side by side: how far apart they are, and their ratio as people say it.

With two nodes there is no majority: the median is their mean, and either could be the odd
one. Seed 004 had exactly this: two MDS servers whose STREAM memory bandwidth stood at about
3 : 2 — a DIMM not seated, a memory channel missing on one of them; a median-based judge
(analysis/consistency.py needs three nodes for one) would have said nothing. So a pair is
not judged node by node: the two figures are compared with each other and, when they are
further apart than the limit, both nodes are named with their ratio — the verdict is that
they differ, not which one is wrong.

How far apart is measured relative to the *better* of the two — the higher figure when
higher is better, the lower one otherwise: 60 and 40 GB/s differ by 33%, 100 and 95 by 5%;
latencies of 2 and 3 ms by 50%.

The ratio (the higher figure first) is written in small integers when it is within 2% of a
ratio of at most 9 over at most 3 — the ratios one notices and says ("3 : 2", "2 : 1",
"5 : 3") — and as a decimal against 1 otherwise ("1.27 : 1").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

CLOSE = 0.02  # a ratio within 2% of a small-integer one is written as that one
MAX_TERM = 9
MAX_DENOMINATOR = 3


@dataclass(frozen=True)
class Pair:
    high: str  # the node with the higher figure, named first
    low: str
    ratio: float  # high / low, >= 1
    ratio_text: str  # "3 : 2", "1.27 : 1"
    differ_pct: float  # |high - low|, % of the better figure
    differ: bool  # further apart than the limit

    def as_dict(self) -> dict:
        return {"high": self.high, "low": self.low, "ratio": round(self.ratio, 4),
                "ratio_text": self.ratio_text, "differ_pct": round(self.differ_pct, 2),
                "differ": self.differ}


def ratio_text(ratio: float) -> str:
    """'3 : 2' for 1.49, '2 : 1' for 2.03, '1.27 : 1' for 1.27, '14 : 1' for 14.2."""
    for q in range(1, MAX_DENOMINATOR + 1):
        p = round(ratio * q)
        if q <= p <= MAX_TERM and math.gcd(p, q) == 1 and abs(p / q - ratio) <= CLOSE * ratio:
            return f"{p} : {q}"
    return f"{ratio:.2f} : 1" if ratio < 10 else f"{ratio:.0f} : 1"


def compare_pair(values: dict[str, float], *, higher_is_better: bool, differ_pct: float,
                 metric: str) -> Pair:
    """The two nodes of `values` compared (see the module docstring). Raises ValueError
    when a figure is not positive: a ratio to it means nothing."""
    (a, va), (b, vb) = sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))
    for node, value in ((a, va), (b, vb)):
        if value <= 0:
            raise ValueError(f"{metric} of {node} is {value}: a ratio to it means nothing")
    better = va if higher_is_better else vb
    apart = (va - vb) / better * 100
    ratio = va / vb
    return Pair(a, b, ratio, ratio_text(ratio), apart, apart > differ_pct)
