"""Are nodes that should be alike alike? One per-node figure, judged against the others.

Servers bought as twins should measure as twins; one that does not has something wrong
that no single-node figure shows (seed reports: a missing DIMM left one server with 0.66x
its twins' memory bandwidth). Among three or more, each node is compared with the median of
all of them, and a node is flagged when both of these hold:

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

Beside that judge, the spread of the nodes (seed 004's own measure: eight OSS "within 0.3%")
is reported: (max - min) / median above `spread_flag_pct` (10%) is flagged ("spread 14% >
10%"), below `consistent_pct` (0.3%) said "consistent (0.2%)", in between just given. A
spread flag names no node - the MAD judge does that, when one stands out.

Two nodes have no median to trust: either could be the odd one. They are compared with each
other instead (analysis/pair_ratio.py): further apart than `differ_pct` (10%) of the better
one, both are flagged and named with their ratio ("mds1 : mds2 = 3 : 2"); within it, they
are consistent. Without `limits`, a caller's own `min_deviation` is the pair's limit too
(the OSD view's 50% for latencies, analysis/osd_view.py).

Nodes are compared within a role (engine/per_node.py groups them): `role` names it in the
stored form and in every sentence.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field

from stackprobe.analysis.consistency_text import pair_line, spread_line
from stackprobe.analysis.pair_ratio import Pair, compare_pair

MIN_NODES = 3  # for the median judge; two nodes are compared as a pair
Z_SCALE = 0.6745  # makes the MAD-based score comparable to a z-score for normal data


@dataclass(frozen=True)
class Limits:
    """What a comparison of nodes calls different; a step's `compare:` sets them
    (kinds/compare.py), in % as a suite writes them."""

    differ_pct: float = 10.0  # two nodes: further apart than this, % of the better one
    spread_flag_pct: float = 10.0  # three or more: (max - min) / median above this: flagged
    consistent_pct: float = 0.3  # ... below this: "consistent"

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class NodeFigure:
    node: str
    value: float
    ratio: float  # value / median
    robust_z: float | None  # None when the MAD is 0, and for a pair
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
    role: str | None = None  # the role whose hosts were compared; None: no role
    limits: Limits = field(default_factory=Limits)
    pair: Pair | None = None  # two nodes: how they compare
    spread_verdict: str | None = None  # three or more: flagged | consistent | reported

    def flagged(self) -> list[NodeFigure]:
        return [f for f in self.figures if f.flagged]

    def as_dict(self) -> dict:
        """What results.json keeps of it (a step's findings["consistency"] entries)."""
        return {
            "metric": self.metric, "unit": self.unit, "role": self.role,
            "median": self.median, "mad": self.mad, "spread_pct": round(self.spread_pct, 2),
            "spread_verdict": self.spread_verdict, "limits": self.limits.as_dict(),
            "pair": self.pair.as_dict() if self.pair is not None else None,
            "figures": [{"node": f.node, "value": f.value, "ratio": round(f.ratio, 4),
                         "robust_z": None if f.robust_z is None else round(f.robust_z, 2),
                         "flagged": f.flagged} for f in self.figures],
        }

    def sentences(self) -> list[str]:
        """Warnings: a pair that differs ('memory bandwidth, role mds: mds1 : mds2 = 3 : 2
        ...'), else one line per flagged node: 'node3 memory bandwidth 0.66× median
        (median 52.1 GB/s)'."""
        fmt = self.fmt or (lambda v: _default_fmt(v, self.unit))
        if self.pair is not None:
            return [pair_line(self.as_dict(), fmt)] if self.pair.differ else []
        among = f" of role {self.role}" if self.role else ""
        return [f"{f.node} {self.metric} {_times(f.ratio)} median{among} "
                f"(median {fmt(self.median)})" for f in self.flagged()]

    def spread_sentence(self) -> str | None:
        """A warning when three or more nodes spread beyond the limit, else None."""
        return spread_line(self.as_dict()) if self.spread_verdict == "flagged" else None


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
    limits: Limits | None = None,
    role: str | None = None,
) -> Consistency | None:
    """The nodes' figures compared (see the module docstring): two as a pair, three or
    more each against the median of all, with their spread.

    Returns None for fewer than 2 nodes. Figures are sorted by node name. Raises
    ValueError for a value that is not a finite number, a median that is not positive, or
    a pair with a figure that is not positive (ratios to them mean nothing).
    """
    if len(values) < 2:
        return None
    for node, value in values.items():
        if not math.isfinite(value):
            raise ValueError(f"{metric} of {node} is not a finite number: {value!r}")
    if limits is None:
        limits = Limits(differ_pct=min_deviation * 100)
    median = statistics.median(values.values())
    if median <= 0:
        raise ValueError(f"median {metric} is {median}: ratios to it mean nothing")
    mad = statistics.median(abs(v - median) for v in values.values())
    spread = (max(values.values()) - min(values.values())) / median * 100
    if len(values) < MIN_NODES:
        pair = compare_pair(dict(values), higher_is_better=higher_is_better,
                            differ_pct=limits.differ_pct, metric=metric)
        figures = [NodeFigure(n, values[n], values[n] / median, None, pair.differ)
                   for n in sorted(values)]
        return Consistency(metric, unit, median, mad, spread, figures, fmt, role, limits, pair)
    sign = 1.0 if higher_is_better else -1.0
    figures = []
    for node in sorted(values):
        value = values[node]
        z = Z_SCALE * (value - median) / mad if mad > 0 else None
        worse_by = sign * (median - value) / median  # > 0: on the bad side
        outlier = z is None or abs(z) > z_limit
        flagged = worse_by > hard_deviation or (worse_by > min_deviation and outlier)
        figures.append(NodeFigure(node, value, value / median, z, flagged))
    verdict = ("flagged" if spread > limits.spread_flag_pct
               else "consistent" if spread < limits.consistent_pct else "reported")
    return Consistency(metric, unit, median, mad, spread, figures, fmt, role, limits, None,
                       verdict)
