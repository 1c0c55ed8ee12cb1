"""Are nodes that should be alike alike? One per-node figure, judged against the others.

Servers bought as twins should measure as twins; one that does not has something wrong
that no single-node figure shows (seed reports: a missing DIMM left one server with 0.66x
its twins' memory bandwidth). Each node is compared with the median of all of them, and a
node is flagged when both of these hold:

- it is worse than the median (below it when higher is better, above it otherwise) by more
  than `min_deviation` of the median. This guard matters most for true twins: their figures
  differ by a percent or so, the median absolute deviation (MAD) is then close to 0, and
  without the guard any percent would count as an outlier;
- it is an outlier among the nodes: its robust z-score 0.6745 x (x - median) / MAD exceeds
  `z_limit` (3.5 is the usual cut-off for this score), or the MAD is 0 - most nodes are
  identical and this one is not, e.g. [100, 100, 30].

A node worse than the median by more than `hard_deviation` (25%) is flagged whatever the
others do. With a handful of nodes the MAD is itself made of noise: three nodes measuring
32, 22 and 4.4 GB/s give a MAD of 10 and a robust z of only -1.1 for the one at 0.2x —
yet no twin is ever a fifth of its peers for a good reason. Twins that differ by a quarter
have something to explain (the seeds' missing DIMM was 0.66x).

A node better than the median is never flagged: it is not the broken one.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

MIN_NODES = 3
Z_SCALE = 0.6745  # makes the MAD-based score comparable to a z-score for normal data


@dataclass(frozen=True)
class NodeFigure:
    node: str
    value: float
    ratio: float  # value / median
    robust_z: float | None  # None when the MAD is 0
    flagged: bool


@dataclass(frozen=True)
class Consistency:
    metric: str  # what was measured, in words: "memory bandwidth"
    unit: str
    median: float
    mad: float  # median absolute deviation from the median
    spread_pct: float  # (max - min) / median, in %
    figures: list[NodeFigure]
    fmt: Callable[[float], str] | None = field(default=None, repr=False, compare=False)

    def flagged(self) -> list[NodeFigure]:
        return [f for f in self.figures if f.flagged]

    def as_dict(self) -> dict:
        """What results.json keeps of it (a step's findings["consistency"] entries)."""
        return {
            "metric": self.metric, "unit": self.unit, "median": self.median,
            "mad": self.mad, "spread_pct": round(self.spread_pct, 2),
            "figures": [{"node": f.node, "value": f.value, "ratio": round(f.ratio, 4),
                         "robust_z": None if f.robust_z is None else round(f.robust_z, 2),
                         "flagged": f.flagged} for f in self.figures],
        }

    def sentences(self) -> list[str]:
        """One line per flagged node: 'node3 memory bandwidth 0.66× median (median 52.1 GB/s)'."""
        median = self.fmt(self.median) if self.fmt else _default_fmt(self.median, self.unit)
        return [f"{f.node} {self.metric} {_times(f.ratio)} median (median {median})"
                for f in self.flagged()]


def _default_fmt(value: float, unit: str) -> str:
    return f"{value:.3g} {unit}".rstrip()


def _times(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.2f}×"


def judge(
    values: Mapping[str, float],
    *,
    metric: str,
    unit: str = "",
    higher_is_better: bool = True,
    z_limit: float = 3.5,
    min_deviation: float = 0.10,
    hard_deviation: float = 0.25,
    fmt: Callable[[float], str] | None = None,
) -> Consistency | None:
    """Each node's figure against the median of all nodes' (see the module docstring).

    Returns None for fewer than 3 nodes: with two, the median is their mean and either
    could be the odd one; there is no median to trust. Figures are sorted by node name.
    Raises ValueError for a value that is not a finite number, or a median that is not
    positive (ratios to it mean nothing).
    """
    if len(values) < MIN_NODES:
        return None
    for node, value in values.items():
        if not math.isfinite(value):
            raise ValueError(f"{metric} of {node} is not a finite number: {value!r}")
    median = statistics.median(values.values())
    if median <= 0:
        raise ValueError(f"median {metric} is {median}: ratios to it mean nothing")
    mad = statistics.median(abs(v - median) for v in values.values())
    sign = 1.0 if higher_is_better else -1.0
    figures = []
    for node in sorted(values):
        value = values[node]
        z = Z_SCALE * (value - median) / mad if mad > 0 else None
        worse_by = sign * (median - value) / median  # > 0: on the bad side
        outlier = z is None or abs(z) > z_limit
        flagged = worse_by > hard_deviation or (worse_by > min_deviation and outlier)
        figures.append(NodeFigure(node, value, value / median, z, flagged))
    spread = (max(values.values()) - min(values.values())) / median * 100
    return Consistency(metric, unit, median, mad, spread, figures, fmt)
