"""Pairs that share a link trade rate second by second: is that the link, or the sharing?

When several soak pairs send into one host (or out of one), they share its link, and TCP
shares it unevenly from one second to the next: each pair's own series can swing by tens
of percent while the link itself carries a steady total. Judged alone, every such pair
would be 'fluctuating' though nothing is wrong. So the soak also judges, with the same
rule (analysis/stability.py), each host's per-second totals: everything sent into it and
everything sent out of it by the soak's pairs.

A pair whose own series fluctuates (not one that stalled or lost chunks) is `stable` with
the flag `sharing` when the total into its receiver (two pairs or more) is stable - its
swings are its share of that link changing, not its path failing - and its sender is not
the cause: the total out of the sender is stable too, or every other pair of the sender
is stable on its own (a fault of the sender's link would move all of them; capped pairs
cannot take up the slack, so the sender's total then moves with this pair's share alone).
A link cut into the receiver shows in the receiver's total, a flaky uplink of the sender in
its total and its other pairs. A pair alone at its receiver keeps its own verdict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from stackprobe.analysis.soak_series import PERIOD_S, SoakSeries, period_label
from stackprobe.analysis.stability import COV_LIMIT, DIP_FRACTION, MIN_POINTS
from stackprobe.schema.records import SeriesPoint
from stackprobe.schema.soak_records import SoakPairRecord

Pair = tuple[str, str]


def host_totals(series: Mapping[Pair, Sequence[SeriesPoint]]) -> dict[Pair, list[SeriesPoint]]:
    """{("in", host): ..., ("out", host): ...}: per second, the sum over the pairs into or
    out of the host, for the seconds every one of those pairs measured (seconds matched by
    their rounded end time: the pairs of a chunk start together)."""
    groups: dict[Pair, list[Pair]] = defaultdict(list)
    for pair, points in series.items():
        if points:
            groups[("out", pair[0])].append(pair)
            groups[("in", pair[1])].append(pair)
    out = {}
    for key, pairs in sorted(groups.items()):
        per_pair = [{round(p.t_s): p.bw_bytes or 0.0 for p in series[pair]} for pair in pairs]
        common = sorted(set.intersection(*(set(d) for d in per_pair)))
        out[key] = [SeriesPoint(t_s=float(t), bw_bytes=sum(d[t] for d in per_pair))
                    for t in common]
    return out


class TotalsFold:
    """Each host's totals into and out of it, folded chunk by chunk as the soak runs and
    judged per period like the pairs (analysis/soak_series.py). A chunk's totals are its
    own pairs' seconds summed (`host_totals` on that chunk): a pair that failed one chunk
    leaves that chunk's total to the pairs that measured, the link's total all the same."""

    def __init__(self, *, period_s: float = PERIOD_S, cov_limit: float = COV_LIMIT,
                 dip_fraction: float = DIP_FRACTION, one_period: bool = True):
        self.period_s, self.cov_limit, self.dip_fraction = period_s, cov_limit, dip_fraction
        self.one_period = one_period  # a soak of one period: its sentences name no period
        self.series: dict[Pair, SoakSeries] = {}
        self.members: dict[Pair, set[Pair]] = defaultdict(set)

    def add(self, chunk: Mapping[Pair, Sequence[SeriesPoint]]) -> None:
        """One chunk's seconds of every pair (on the soak's clock)."""
        for pair, points in chunk.items():
            if points:
                self.members[("out", pair[0])].add(pair)
                self.members[("in", pair[1])].add(pair)
        for key, points in host_totals(chunk).items():
            if key not in self.series:
                self.series[key] = SoakSeries(
                    period_s=self.period_s, cov_limit=self.cov_limit,
                    dip_fraction=self.dip_fraction,
                    period_label=period_label(_label(key), self.one_period))
            for p in points:
                self.series[key].add(p)

    def judged(self) -> dict[Pair, dict]:
        """{("in", host): {pairs, mean_bps, cov, stability, sentence}} over the soak."""
        out = {}
        for key, series in sorted(self.series.items()):
            figures = series.figures()
            n = figures["seconds"]
            judged = n >= MIN_POINTS
            sentence = (figures["notes"][0] if figures["notes"] else
                        figures["periods"][-1].sentence if figures["periods"] else None)
            out[key] = {"pairs": len(self.members[key]),
                        "mean_bps": figures["mean"] * 8 if n else None,
                        "cov": figures["cov"] if judged else None,
                        "stability": figures["verdict"] if judged else None,
                        "sentence": sentence if judged else None}
        return out


def _label(key: Pair) -> str:
    return f"{'into' if key[0] == 'in' else 'out of'} {key[1]}"


def apply_sharing(rec: SoakPairRecord, totals: Mapping[Pair, dict],
                  sender_others_stable: bool) -> None:
    """Make a fluctuating pair `stable (sharing)` when its receiver's total is stable and
    its sender is not the cause (its total stable, or `sender_others_stable`)."""
    if rec.stability != "fluctuating" or rec.chunks_failed or rec.verdict != "unstable":
        return
    into, out_of = totals.get(("in", rec.server)), totals.get(("out", rec.client))
    if not into or into["stability"] != "stable" or into["pairs"] < 2:
        return
    sender_steady = out_of is not None and out_of["stability"] == "stable"
    if not (sender_steady or sender_others_stable):
        return
    rec.verdict = "stable"
    at = rec.flags.index("fluctuating")
    rec.flags[at] = "sharing"
    sender = (f"the {out_of['pairs']} pair(s) out of {rec.client} hold "
              f"{out_of['mean_bps'] / 1e6:.0f} Mbit/s (CoV {out_of['cov'] * 100:.1f}%)"
              if sender_steady and out_of else f"{rec.client}'s other pairs are stable")
    rec.notes[at] = (
        f"{rec.client}→{rec.server}: sharing: its own rate varies (CoV "
        f"{(rec.cov or 0) * 100:.0f}%) while the {into['pairs']} pair(s) into {rec.server} "
        f"hold {into['mean_bps'] / 1e6:.0f} Mbit/s together (CoV {into['cov'] * 100:.1f}%) "
        f"and {sender}: its share changes, its path holds")
