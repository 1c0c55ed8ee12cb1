"""The network soak's chunks folded in as each one ends, so a soak of days stays bounded.

Kept per pair (and per host total): the folded seconds (analysis/soak_series.py: every
second of the first and last ten minutes, buckets between, the running period's seconds,
running mean/CoV/min/max), the chunks that measured and failed, the retransmits summed,
the last error. Nothing else of a chunk outlives its fold: its JSON is already on disk,
compressed (soak_chunk.py), and the chunk loop keeps only whether it was interrupted.
Before this, every pair's every second stayed in the controller until the soak ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.analysis.soak import judge_pair
from stackprobe.analysis.soak_series import SoakSeries, period_label
from stackprobe.analysis.soak_sharing import Pair, TotalsFold
from stackprobe.kinds.network.soak_chunk import PairChunk, SoakPair
from stackprobe.schema.soak_records import SoakPairRecord


@dataclass
class PairTally:
    """One pair's chunks so far: the counts, and its seconds folded."""

    series: SoakSeries
    chunks: int = 0
    errors: int = 0
    last_error: str | None = None
    retransmits: int | None = None
    tool_version: str | None = None

    def add(self, got: PairChunk) -> None:
        for p in got.points:
            self.series.add(p)
        if got.points:
            self.chunks += 1
        elif got.error:
            self.errors, self.last_error = self.errors + 1, got.error
        if got.retransmits is not None:
            self.retransmits = (self.retransmits or 0) + got.retransmits
        self.tool_version = self.tool_version or got.tool_version


@dataclass
class NetSoakFold:
    """Every chunk of the soak, folded: `add` per chunk, `records` at the end."""

    pairs: list[SoakPair]
    period_s: float
    cov_limit: float
    dip_fraction: float
    one_period: bool  # the soak is no longer than a period: sentences name no period
    tallies: dict[str, PairTally] = field(init=False, default_factory=dict)
    totals: TotalsFold = field(init=False)

    def __post_init__(self) -> None:
        for pair in self.pairs:
            name = f"{pair.client.name}→{pair.server.name}"
            self.tallies[pair.label] = PairTally(SoakSeries(
                period_s=self.period_s, cov_limit=self.cov_limit,
                dip_fraction=self.dip_fraction,
                period_label=period_label(name, self.one_period)))
        self.totals = TotalsFold(period_s=self.period_s, cov_limit=self.cov_limit,
                                 dip_fraction=self.dip_fraction, one_period=self.one_period)

    def add(self, chunk: dict[str, PairChunk]) -> bool:
        """Fold one chunk in; True when it was interrupted (the soak ends there)."""
        seconds: dict[Pair, list] = {}
        for pair in self.pairs:
            got = chunk.get(pair.label)
            if got is None:
                continue
            self.tallies[pair.label].add(got)
            seconds[(pair.client.name, pair.server.name)] = got.points
        self.totals.add(seconds)
        return any(c.interrupted for c in chunk.values())

    def records(self, streams: int) -> list[SoakPairRecord]:
        """Each pair's record, judged on its folded seconds (sharing and slow: the step's)."""
        out = []
        for pair in self.pairs:
            tally = self.tallies[pair.label]
            rec = SoakPairRecord(
                client=pair.client.name, server=pair.server.name, port=pair.port,
                streams=streams, tool_version=tally.tool_version, chunks=tally.chunks,
                chunks_failed=tally.errors, retransmits=tally.retransmits,
                error=tally.last_error)
            out.append(judge_pair(rec, tally.series))
        return out
